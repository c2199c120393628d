"""Experiment steps: one adapter per analysis type of an experiment file (see
:mod:`ranklens.experiment`).

Each adapter has the signature
``fn(collection, models, params, out_dir, *, engine, seed) -> list[Path]``: it builds the
models it can use from their specs, calls the analysis drivers of its package, saves every
result under ``out_dir`` and returns the result directories. ``params`` are the ``params`` table
of the ``[[analyses]]`` entry; unknown keys are an error (listed with the valid ones), so a typo
never silently falls back to a default.

Models whose spec cannot serve an analysis (e.g. ``bm25`` as an embedder for N2O) are skipped
and listed in the adapter's ``skipped.json``; an analysis left with too few models raises.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import ValidationError

__all__ = ["STEP_PARAMS", "asl_step", "explain_step", "neighbors_step", "probes_step", "regimes_step"]

#: analysis type -> accepted ``params`` keys with their defaults.
STEP_PARAMS: dict[str, dict[str, Any]] = {
    "asl": {"k": 100, "baseline": None, "rel": 1, "unretrieved": "lower_bound", "n_resamples": 2000,
            "runs": None, "compare": None},
    "probes": {"probes": ["mm-*", "tr-*"], "cap": 200, "delta": "calibrate", "alpha": 0.01,
               "correction": "bonferroni", "sweep": ["tr-shuffle-words", "tr-shuffle-sents"],
               "calibration_queries": 30, "calibration_depth": 20},
    "neighbors": {"k": 10, "n_queries": 50, "n_samples": 3, "ranker_k": 10, "max_sentences": 20000},
    "regimes": {"buckets": 5, "train_fraction": 0.5, "k": 10, "fine_tune_steps": 0},
    "demo": {"part": None},
    "explain": {"pool": 20, "max_queries": 10, "m": 3, "k": [10], "granularities": ["sentence", "window:5"],
                "samples": 12, "pool_model": None, "subdoc": None, "sweep_m": [1, 2, 3, 4]},
}


def check_params(analysis: str, params: Mapping[str, Any]) -> list[str]:
    """Problems with an analysis's ``params`` (unknown keys), for experiment validation."""
    valid = STEP_PARAMS.get(analysis)
    if valid is None:
        return []
    return [f"params.{k}: unknown parameter for {analysis!r}; valid: {sorted(valid)}" for k in params
            if k not in valid]


def _params(analysis: str, params: Mapping[str, Any]) -> dict[str, Any]:
    problems = check_params(analysis, params)
    if problems:
        raise ValidationError("; ".join(problems))
    return {**STEP_PARAMS[analysis], **params}


def _texts(collection: Any) -> list[str]:
    return [t for _, t in collection.docs.iter_docs()]


def _build(models: Mapping[str, Mapping[str, Any]], factory: Any, corpus: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """``{name: factory(spec, corpus=..., **params)}`` for the models the factory accepts."""
    built, skipped = {}, {}
    for name, m in models.items():
        try:
            built[name] = factory(m["spec"], corpus=corpus, **dict(m.get("params") or {}))
        except ValidationError as exc:
            skipped[name] = str(exc)
    return built, skipped


def _need(what: str, built: Mapping[str, Any], n: int, skipped: Mapping[str, str]) -> None:
    if len(built) < n:
        why = "; ".join(f"{k}: {v}" for k, v in skipped.items()) or "no models listed"
        raise ValidationError(f"{what} needs at least {n} usable model(s), got {len(built)} ({why})")


def _save(results: list[Any], out_dir: Path, skipped: Mapping[str, str] | None = None) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    if skipped:
        (out_dir / "skipped.json").write_text(json.dumps(skipped, indent=2))
    return [res.save(out_dir / res.kind) for res in results]


def _runs_for_models(collection: Any, models: Mapping[str, Mapping[str, Any]], k: int, engine: Any,
                     ) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """Top-``k`` run per model: BM25 and embedders retrieve; other rankers re-rank BM25's top k."""
    from .embedders import make_embedder
    from .rankers import BM25Ranker, make_ranker
    from .rankers._specs import split_spec
    from .rankers.retrieval import rerank, retrieve

    texts = _texts(collection)
    runs: dict[str, pd.DataFrame] = {}
    skipped: dict[str, str] = {}
    first_stage = None
    for name, m in models.items():
        spec, params = m["spec"], dict(m.get("params") or {})
        kind, _ = split_spec(spec)
        if kind == "bm25":
            runs[name] = retrieve(BM25Ranker(**params), collection.queries, collection.docs, k=k, engine=engine)
            continue
        try:
            model = make_embedder(spec, corpus=texts, **params)
        except ValidationError:
            try:
                ranker = make_ranker(spec, corpus=texts, **params)
            except ValidationError as exc:
                skipped[name] = str(exc)
                continue
            if first_stage is None:
                first_stage = retrieve(BM25Ranker(), collection.queries, collection.docs, k=k, engine=engine)
            runs[name] = rerank(ranker, first_stage, collection.queries, collection.docs, k=k, engine=engine)
            continue
        runs[name] = retrieve(model, collection.queries, collection.docs, k=k, engine=engine)
    return runs, skipped


def asl_step(collection: Any, models: Mapping[str, Mapping[str, Any]], params: Mapping[str, Any], out_dir: Path,
             *, engine: Any = None, seed: int = 0) -> list[Path]:
    """ASL evaluation table, per-document distribution, RRIE and the MAP -> ASL chain.

    Runs come from the dataset's ``runs`` (a run file or a directory of runs: a track) or the
    ``runs`` parameter, else from the models (top ``k`` each). ``compare = [A, B]`` names the two
    systems of the distribution and RRIE (default: the baseline and the best other system by
    ASL); ``baseline`` defaults to the first system.
    """
    from .metrics.analyses import asl_distribution, map_to_asl_chain, rrie
    from .metrics.evaluation import evaluate, load_runs

    p = _params("asl", params)
    if collection.qrels is None or collection.qrels.empty:
        raise ValidationError(f"{collection.name}: ASL needs qrels")
    skipped: dict[str, str] = {}
    source = p["runs"] or collection.meta.get("runs")
    if source:
        runs: dict[str, Any] = load_runs(source)
    else:
        runs, skipped = _runs_for_models(collection, models, int(p["k"]), engine)
    _need("asl", runs, 1, skipped)
    names = list(runs)
    baseline = p["baseline"] or names[0]
    if baseline not in runs:
        raise ValidationError(f"params.baseline: {baseline!r} is not one of the systems {names}")
    size = len(collection.docs) or None
    ev = evaluate(collection.qrels, runs, baseline=baseline if len(runs) > 1 else None, rel=int(p["rel"]),
                  unretrieved=p["unretrieved"], collection_size=size, per_document=True,
                  n_resamples=int(p["n_resamples"]), seed=seed)
    results: list[Any] = [ev]
    if len(runs) > 1:
        if p["compare"]:
            a, b = p["compare"]
            for x in (a, b):
                if x not in runs:
                    raise ValidationError(f"params.compare: {x!r} is not one of the systems {names}")
        else:
            table = ev.table.set_index("system")
            others = [n for n in names if n != baseline]
            a, b = baseline, min(others, key=lambda n: float(table.loc[n, "ASL"]))
        kw = {"rel": int(p["rel"]), "unretrieved": p["unretrieved"], "collection_size": size}
        results.append(asl_distribution(collection.qrels, runs[a], runs[b], name=a, other_name=b, **kw))
        results.append(rrie(collection.qrels, runs[a], runs[b], name_a=a, name_b=b, **kw))
        results.append(map_to_asl_chain(collection.qrels, runs, **kw))
    return _save(results, out_dir, skipped)


def probes_step(collection: Any, models: Mapping[str, Mapping[str, Any]], params: Mapping[str, Any],
                out_dir: Path, *, engine: Any = None, seed: int = 0) -> list[Path]:
    """ABNIRML probes (default: every measure-and-match and manipulation probe, ``cap`` samples
    each) for every model, δ calibrated on the dataset; plus a δ sweep of ``sweep`` probes."""
    from .probes import delta_sweep, get_probe, run_probes, select_probes
    from .probes.delta import DeltaSpec, parse_delta
    from .rankers import make_ranker

    p = _params("probes", params)
    rankers, skipped = _build(models, make_ranker, _texts(collection))
    _need("probes", rankers, 1, skipped)
    patterns = p["probes"] if isinstance(p["probes"], list) else [p["probes"]]
    probes = [get_probe(n, cap=int(p["cap"])) for n in select_probes(patterns)]
    delta = (DeltaSpec(max_queries=int(p["calibration_queries"]), depth=int(p["calibration_depth"]))
             if p["delta"] == "calibrate" else parse_delta(p["delta"]))
    res = run_probes(probes, rankers, collection, delta=delta, engine=engine, seed=seed, alpha=float(p["alpha"]),
                     correction=p["correction"])
    results: list[Any] = [res]
    sweep = [n for n in (p["sweep"] or []) if n in set(res.table["probe"])]
    if sweep and "calibration" in res.tables:
        results.append(delta_sweep(res, probes=sweep))
    return _save(results, out_dir, skipped)


def neighbors_step(collection: Any, models: Mapping[str, Mapping[str, Any]], params: Mapping[str, Any],
                   out_dir: Path, *, engine: Any = None, seed: int = 0) -> list[Path]:
    """N2O matrix and token overlap of the embedders among the models (over the dataset's
    sentences, at most ``max_sentences`` of them), and the top-k overlap/RBO of every model as
    a ranker."""
    from .embedders import make_embedder
    from .neighbors.analysis import n2o_matrix, ranker_overlap, token_overlap
    from .neighbors.corpus import build_corpus

    p = _params("neighbors", params)
    docs = list(collection.docs.iter_docs())
    corpus = build_corpus(docs)
    if p["max_sentences"] and len(corpus) > int(p["max_sentences"]):
        # a seeded uniform sample of whole documents, sized to about max_sentences sentences
        keep = max(1, len(docs) * int(p["max_sentences"]) // len(corpus))
        pick = np.sort(np.random.default_rng(seed).choice(len(docs), size=keep, replace=False))
        corpus = build_corpus([docs[i] for i in pick])
    texts = list(corpus.texts)
    embedders, skipped = _build(models, make_embedder, texts)
    results: list[Any] = []
    k = int(p["k"])
    n_q = min(int(p["n_queries"]), len(corpus) - k - 1)
    if len(embedders) >= 2:
        results.append(n2o_matrix(embedders, corpus, k=k, n_queries=n_q, n_samples=int(p["n_samples"]),
                                  seed=seed, engine=engine))
    if embedders:
        results.append(token_overlap(embedders, corpus, k=k, n_queries=n_q, seed=seed, engine=engine))
    runs, skipped_r = _runs_for_models(collection, models, int(p["ranker_k"]), engine)
    if len(runs) >= 2:
        results.append(ranker_overlap(runs, k=int(p["ranker_k"])))
    if not results:
        _need("neighbors", embedders, 2, {**skipped, **skipped_r})
    return _save(results, out_dir, {**skipped, **{f"{k} (ranker)": v for k, v in skipped_r.items()}})


def regimes_step(collection: Any, models: Mapping[str, Mapping[str, Any]], params: Mapping[str, Any],
                 out_dir: Path, *, engine: Any = None, seed: int = 0) -> list[Path]:
    """Interpolation vs. extrapolation on one collection: its judged queries are split (seeded)
    into a training pool (``train_fraction``) and test queries; diagnostics (BM25 query
    similarity, label overlap), ReSTTest with ``buckets`` folds; trains tuned BM25 and the
    memorising baseline (plus a MiniLM fine-tune of ``fine_tune_steps`` steps when > 0) and
    evaluates them in both regimes. ``models`` are not used: the trainers make the models."""
    import numpy as np

    from .resampling.diagnostics import label_overlap
    from .resampling.evaluation import evaluate_regimes
    from .resampling.plots import split_pca
    from .resampling.similarity import query_similarity
    from .resampling.splits import ReSTTest, queries_with_positives
    from .resampling.trainers import BiEncoderTrainer, BM25Trainer, MemorizingTrainer, train_variants

    p = _params("regimes", params)
    if collection.qrels is None or collection.qrels.empty:
        raise ValidationError(f"{collection.name}: interpolation/extrapolation needs qrels")
    judged = queries_with_positives(collection.queries[["query_id", "text"]], collection.qrels)
    if len(judged) < 2 * int(p["buckets"]):
        raise ValidationError(f"{collection.name}: {len(judged)} judged queries are too few for "
                              f"{p['buckets']} ReSTTest buckets")
    rng = np.random.default_rng(seed)
    is_train = np.zeros(len(judged), dtype=bool)
    is_train[rng.permutation(len(judged))[: int(round(len(judged) * float(p["train_fraction"])))]] = True
    train_q, test_q = judged[is_train].reset_index(drop=True), judged[~is_train].reset_index(drop=True)
    qrels = collection.qrels
    train_qrels = qrels[qrels["query_id"].isin(train_q["query_id"])]
    test_qrels = qrels[qrels["query_id"].isin(test_q["query_id"])]
    corpus = dict(collection.docs.iter_docs())
    results: list[Any] = [query_similarity(test_q, train_q, method="bm25", k=int(p["k"]), engine=engine),
                          label_overlap(test_qrels, train_qrels)]
    splits = ReSTTest(n_buckets=int(p["buckets"]), seed=seed, name=f"resttest-{collection.name}").fit(
        train_q, test_q).splits_
    trainers: list[Any] = [BM25Trainer(), MemorizingTrainer()]
    if int(p["fine_tune_steps"]) > 0:
        trainers.append(BiEncoderTrainer(max_steps=int(p["fine_tune_steps"]), name="minilm-ft"))
    allq = judged
    results.append(split_pca(splits[0], allq, seed=seed))  # paper Fig. 1, first fold
    variants = train_variants(trainers, splits, allq, qrels, corpus, out_dir / "models", engine=engine)
    results.append(evaluate_regimes(variants, splits, allq, qrels, corpus, seed=seed, engine=engine))
    return _save(results, out_dir)


def explain_step(collection: Any, models: Mapping[str, Mapping[str, Any]], params: Mapping[str, Any],
                 out_dir: Path, *, engine: Any = None, seed: int = 0) -> list[Path]:
    """MRC@k (and MER@k when ``subdoc`` names a sub-document qrels file) of every model, on the
    first ``max_queries`` queries; each model re-ranks the ``pool`` top documents of
    ``pool_model`` (default: BM25); plus an ``m`` sweep of sentence rationales."""
    from .explain.consistency import explanation_consistency, explanation_sweep, rank_candidates
    from .explain.files import read_subdoc_qrels
    from .explain.occlusion import OcclusionExplainer
    from .rankers import make_ranker

    p = _params("explain", params)
    texts = _texts(collection)
    rankers, skipped = _build(models, make_ranker, texts)
    _need("explain", rankers, 1, skipped)
    queries = collection.queries.head(int(p["max_queries"]))
    pool_ranker = rankers[p["pool_model"]] if p["pool_model"] else make_ranker("bm25", corpus=texts)
    cand = rank_candidates(pool_ranker, queries, collection.docs, engine=engine)
    cand = cand[cand["rank"] <= int(p["pool"])][["query_id", "doc_id"]]
    subdoc = read_subdoc_qrels(p["subdoc"]) if p["subdoc"] else None
    ks = tuple(int(k) for k in (p["k"] if isinstance(p["k"], list) else [p["k"]]))
    kw = dict(qrels=collection.qrels, candidates=cand, ks=ks, mer_k=ks[0], subdoc=subdoc, engine=engine,
              explainer=OcclusionExplainer(n=2, samples=int(p["samples"]), seed=seed))
    results = [explanation_consistency(rankers, queries, collection.docs, granularities=tuple(p["granularities"]),
                                       m=int(p["m"]), **kw)]
    if p["sweep_m"]:
        results.append(explanation_sweep(rankers, queries, collection.docs, ms=tuple(int(m) for m in p["sweep_m"]),
                                         granularities=("sentence",), **kw))
    return _save(results, out_dir, skipped)
