"""The ``regimes`` analysis: interpolation vs extrapolation (Zhan et al.). Declared once; the CLI
(``ranklens regimes``, with the file tools ``ranklens regimes --out D diagnose|restrain|resttest|
train|evaluate|annotations``), experiment files (``type = "regimes"``), the demo and the report
derive from it.

Defaults follow the paper: query similarity by dense query embeddings (MiniLM here; the paper's
STAR embeddings are not offline), ReSTTest with K = 5 buckets over those embeddings, ReSTrain
with the top-k rule, first-stage models (BM25, bi-encoders) evaluated by retrieval from the whole
corpus and other rankers by re-ranking BM25's top 1000, measures nDCG@10, R@100 and MRR@10.
Deviations are named options, recorded in provenance and warned about.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..declare import Analysis, ModelRows, ResultKind, param, params_dict
from ..errors import ValidationError

__all__ = ["ANALYSIS", "Params", "run"]

TRAINERS = ("bm25", "memorizing", "bi-encoder", "cross-encoder")


@dataclass(frozen=True)
class Params:
    methods: tuple[str, ...] = param(("restrain", "resttest"), "resampling methods (paper: ReSTrain for small test "
                                     "sets, ReSTTest for large ones)", choices=("restrain", "resttest"))
    similarity: str = param("minilm", "query similarity for ReSTrain neighbours and ReSTTest clustering (paper: "
                            "dense embeddings): an embedder spec, or bm25 / tfidf (ReSTTest then clusters TF-IDF)")
    train_queries: str = param("", "file of training queries (qrels in the collection); 'demo' = the demo's "
                               "training queries; empty = a seeded share train_fraction of the judged queries")
    train_fraction: float = param(0.5, "share of the judged queries drawn (seeded) as the training pool when "
                                  "no train_queries are given", min=0.0, max=1.0)
    k: int = param(1, "ReSTrain: top-k neighbours per test query form the interpolation set (paper leaves k open)",
                   min=1)
    size: int | None = param(None, "ReSTrain: target interpolation-set size (none = the top-k union)", min=1)
    size_rule: str = param("topk", "ReSTrain with size: topk = the paper's (every test query keeps its top-k, k the "
                           "largest whose union fits; refused when none fits), fill = rank by rank to exactly size "
                           "(warned: test queries lose their nearest)", choices=("topk", "fill"))
    k_exclude: int | None = param(None, "ReSTrain k': neighbours per test query kept out of the extrapolation set "
                                  "(none = 10 x k, lowered with a warning when the pool is too small)", min=1)
    buckets: int = param(5, "ReSTTest buckets K (paper: 5)", min=2)
    trainers: tuple[str, ...] = param(("bm25", "memorizing"), "models trained on each training set: bm25 (grid-"
                                      "tuned), memorizing (sanity baseline), bi-encoder / cross-encoder (fine-tuned "
                                      "base_model; the paper's neural models, slow on CPU)", choices=TRAINERS)
    base_model: str = param("minilm", "starting checkpoint of the neural trainers (sentence-transformers name/path)")
    epochs: int = param(1, "neural trainers: epochs over the training pairs", min=1)
    batch_size: int = param(16, "neural trainers: pairs per step (bi-encoder: in-batch negatives)", min=2)
    max_steps: int | None = param(None, "neural trainers: stop after this many optimiser steps (none = all epochs)",
                                  min=1)
    reranker_loss: str = param("pairwise", "cross-encoder loss: pairwise (the paper's: softmax cross-entropy over "
                               "(positive, negative) scores) or pointwise (binary cross-entropy)",
                               choices=("pairwise", "pointwise"))
    dev_fraction: float = param(0.0, "neural trainers: share of each training set held out as a dev set; the "
                                "checkpoint with the best dev MRR@10 is kept (the paper selects on a dev set every 2 "
                                "epochs; 0 = the last step)", min=0.0, max=0.5)
    evaluation: str = param("auto", "auto = the paper's (BM25 and bi-encoders retrieve from the whole corpus, other "
                            "rankers re-rank the first stage's top depth); full; rerank; judged (judged documents "
                            "only: degenerate, warned)", choices=("auto", "full", "rerank", "judged"))
    depth: int = param(1000, "documents retrieved / re-ranked per test query (paper: 1000)", min=1)
    first_stage: str = param("bm25", "run re-ranked by rerankers: bm25 (Lucene idf, k1=0.9, b=0.4, top depth) or a "
                             "TREC run file")
    random_negatives: int = param(0, "evaluation=judged: random corpus documents added per query", min=0)
    measures: tuple[str, ...] = param(("nDCG@10", "R@100", "RR@10"), "ir_measures names (paper: NDCG@10, R@100, "
                                      "MRR@10)")
    k_nn: int = param(10, "diagnostics: nearest training queries listed per test query (paper: 10)", min=1)
    thresholds: tuple[int, ...] = param((1,), "label overlap: relevance thresholds")
    min_shared: int = param(1, "label overlap: shared positives needed (paper 1; the authors' script 2)", min=1)
    backend: str = param("exact", "nearest-query search for embedders", choices=("exact", "faiss"))
    ood: tuple[str, ...] = param((), "out-of-domain collections (collection specs, e.g. cisi) on which every trained "
                                 "variant is evaluated zero-shot (evaluation, depth as above); adds the regimes-ood-correlation "
                                 "result (paper §4.2, Table 5)")
    seeds: tuple[int, ...] = param((), "repeat the whole protocol (training pool draw, splits, trainers) under these "
                                   "seeds and report mean +- sd of the regime values and gaps over seeds (empty = the "
                                   "run's seed once, as the paper)")

    def check(self) -> list[str]:
        problems = []
        if not self.methods:
            problems.append("methods: give restrain and/or resttest")
        if self.first_stage != "bm25" and not Path(self.first_stage).is_file():
            problems.append(f"first_stage: {self.first_stage!r} is neither 'bm25' nor an existing run file")
        if self.train_queries not in ("", "demo") and not Path(self.train_queries).is_file():
            problems.append(f"train_queries: {self.train_queries!r} does not exist; give a queries file or 'demo'")
        return problems


# --------------------------------------------------------------------------- driver parts

def _similarity(spec: str) -> Any:
    if spec in ("bm25", "tfidf"):
        return spec
    from ..embedders import make_embedder

    return make_embedder(spec)


def _pools(collection: Any, p: Params, seed: int) -> tuple[Any, Any, Any, Any]:
    """(training pool, test queries, all queries, qrels): judged queries only."""
    import numpy as np
    import pandas as pd

    from .splits import queries_with_positives

    qrels = collection.qrels
    queries = collection.queries[["query_id", "text"]]
    if p.train_queries:
        train = _train_queries(p.train_queries)
        if p.train_queries == "demo":
            from ..datasets.demo import load_demo_train

            qrels = pd.concat([qrels, load_demo_train()[1]], ignore_index=True)
        test = queries.loc[~queries["query_id"].astype(str).isin(set(train["query_id"]))]
        pool = queries_with_positives(train, qrels)
        test = queries_with_positives(test, qrels)
        allq = pd.concat([train, test], ignore_index=True).drop_duplicates("query_id")
        return pool, test, allq, qrels
    judged = queries_with_positives(queries, qrels)
    is_train = np.zeros(len(judged), dtype=bool)
    is_train[np.random.default_rng(seed).permutation(len(judged))[: int(round(len(judged) * p.train_fraction))]] = True
    return (judged[is_train].reset_index(drop=True), judged[~is_train].reset_index(drop=True), judged, qrels)


def _train_queries(spec: str) -> Any:
    import pandas as pd

    if spec == "demo":
        from ..datasets.demo import load_demo_train

        q = load_demo_train()[0]
    else:
        from ..io import read_queries

        q = read_queries(spec)
    return pd.DataFrame({"query_id": q["query_id"].astype(str).to_numpy(dtype=object),
                         "text": q["text"].astype(str).to_numpy(dtype=object)})


def _diagnostics(test: Any, pool: Any, qrels: Any, sim: Any, p: Params, engine: Any) -> list[Any]:
    from .diagnostics import label_overlap
    from .similarity import query_similarity

    test_qrels = qrels[qrels["query_id"].isin(set(test["query_id"]))]
    train_qrels = qrels[qrels["query_id"].isin(set(pool["query_id"]))]
    return [query_similarity(test, pool, method=sim, k=p.k_nn, backend=p.backend, engine=engine),
            label_overlap(test_qrels, train_qrels, thresholds=p.thresholds, min_shared=p.min_shared)]


def _splits(pool: Any, test: Any, sim: Any, p: Params, seed: int, name: str, engine: Any,
            ) -> tuple[list[Any], list[str]]:
    from .splits import ReSTrain, ReSTTest

    splits, warns = [], []
    if "restrain" in p.methods:
        try:
            f = ReSTrain(k=p.k, size=p.size, size_rule=p.size_rule, k_exclude=p.k_exclude, similarity=sim,
                         seed=seed, backend=p.backend, name=f"restrain-{name}").fit(pool, test, engine=engine)
        except ValidationError as exc:
            if "resttest" not in p.methods:
                raise
            warns.append(f"ReSTrain skipped: {exc} (ReSTrain needs a training pool much larger than the test set; "
                         "the paper uses it for TREC DL's 97 test queries against 0.5M training queries)")
        else:
            splits += f.splits_
            warns += f.warnings
    if "resttest" in p.methods:
        vectors = "tfidf" if isinstance(sim, str) else sim
        if isinstance(sim, str):
            warns.append(f"ReSTTest clusters TF-IDF vectors (similarity={sim!r} has no query vectors); the paper "
                         "clusters dense query embeddings (similarity=minilm)")
        f = ReSTTest(n_buckets=p.buckets, vectors=vectors, seed=seed, name=f"resttest-{name}").fit(
            pool, test, engine=engine)
        splits += f.splits_
        warns += f.warnings
    return splits, warns


def _trainers(p: Params, seed: int) -> list[Any]:
    from .trainers import BiEncoderTrainer, BM25Trainer, CrossEncoderTrainer, MemorizingTrainer

    neural = {"model": p.base_model, "epochs": p.epochs, "batch_size": p.batch_size, "max_steps": p.max_steps,
              "seed": seed, "dev_fraction": p.dev_fraction}
    make = {"bm25": lambda: BM25Trainer(), "memorizing": lambda: MemorizingTrainer(),
            "bi-encoder": lambda: BiEncoderTrainer(**neural),
            "cross-encoder": lambda: CrossEncoderTrainer(**neural, loss=p.reranker_loss)}
    return [make[t]() for t in dict.fromkeys(p.trainers)]


def _first_stage(p: Params) -> Any:
    if p.first_stage == "bm25":
        return None  # evaluate_regimes retrieves BM25's top depth itself
    from ..io import read_run

    return read_run(p.first_stage)


def _pca_results(splits: list[Any], allq: Any, sim: Any, seed: int, engine: Any, pool: Any, test: Any,
                 p: Params) -> list[Any]:
    """Per method: the actual first split projected to 2-D, and the paper's Figure 1 illustration
    (queries reduced to 2-D first, then resampled there; ``summary["resampled_in"]``)."""
    from .plots import illustrate_split, split_pca

    vectors = "tfidf" if isinstance(sim, str) else sim
    firsts = {s.method: s for s in reversed(splits)}  # the first split of each method
    out = [split_pca(s, allq, vectors=vectors, seed=seed, engine=engine) for s in splits if firsts[s.method] is s]
    opts = {"restrain": {"k": p.k, "k_exclude": p.k_exclude}, "resttest": {"n_buckets": p.buckets}}
    for method in firsts:
        try:
            out.append(illustrate_split(pool, test, method=method, vectors=vectors, engine=engine, seed=seed,
                                        **opts[method]))
        except ValidationError:  # too small a pool for the plane split: the projected split stays
            continue
    return out


def _one_seed(collection: Any, p: Params, seed: int, engine: Any, models_dir: Path, first: bool,
              ) -> tuple[list[Any], list[Any]]:
    """(results, variants): diagnostics and split PCA (first seed only), then the regime table of
    one seed (last), and the trained variants."""
    from .evaluation import evaluate_regimes
    from .trainers import train_variants

    pool, test, allq, qrels = _pools(collection, p, seed)
    if len(pool) < 2 or len(test) < 2:
        raise ValidationError(f"{collection.name}: {len(pool)} training and {len(test)} test queries with a "
                              "positive judgment; need at least 2 of each")
    sim = _similarity(p.similarity)
    results = _diagnostics(test, pool, qrels, sim, p, engine) if first else []
    splits, warns = _splits(pool, test, sim, p, seed, collection.name, engine)
    if first:
        results += _pca_results(splits, allq, sim, seed, engine, pool, test, p)
    variants = train_variants(_trainers(p, seed), splits, allq, qrels, collection.docs, models_dir, engine=engine)
    reg = evaluate_regimes(variants, splits, allq, qrels, collection.docs, measures=p.measures,
                           evaluation=p.evaluation, depth=p.depth, first_stage=_first_stage(p),
                           random_negatives=p.random_negatives, seed=seed, engine=engine)
    return [*results, reg.with_warnings(*warns)], variants


def _ood(p: Params, regime: Any, variants: list[tuple[int, Any]], multi: bool, engine: Any) -> Any:
    """Zero-shot scores of every variant on the ``ood`` collections and their correlation with
    the in-domain interpolation / extrapolation scores."""
    import pandas as pd

    from ..io import load_collection
    from .evaluation import evaluate_collection, ood_correlation, variant_scores

    measure = p.measures[0]
    frames = []
    for spec in p.ood:
        c = load_collection(spec)
        if c.qrels is None:
            raise ValidationError(f"ood: collection {spec!r} has no qrels")
        for s, vs in variants:
            f = evaluate_collection(vs, c.name, c.queries, c.qrels, c.docs, measure=measure, evaluation=p.evaluation,
                                    depth=p.depth, engine=engine)
            if multi:
                f["variant"] = f["variant"] + f"@seed{s}"
            frames.append(f)
    return ood_correlation(variant_scores(regime, measure=measure), pd.concat(frames, ignore_index=True),
                           seed=variants[0][0])


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """Interpolation vs. extrapolation on one collection: diagnostics of the test queries against
    the training pool, ReSTrain / ReSTTest splits, the trainers' models trained on every training
    set (resumable under ``work_dir/models``) and evaluated in both regimes; with ``seeds`` the
    protocol repeats per seed and the regime table gives mean +- sd over seeds. ``models`` are not
    used: the trainers make the models."""
    import tempfile

    from .evaluation import combine_seeds

    p = params
    seeds = list(dict.fromkeys(p.seeds)) or [seed]
    with tempfile.TemporaryDirectory() as tmp:
        models_dir = (work_dir or Path(tmp)) / "models"
        runs = [_one_seed(collection, p, s, engine, models_dir, i == 0) for i, s in enumerate(seeds)]
        results = runs[0][0][:-1] + [combine_seeds([r[-1] for r, _ in runs], seeds)]
        if p.ood:
            results.append(_ood(p, results[-1], [(s, vs) for s, (_, vs) in zip(seeds, runs)], len(seeds) > 1,
                                engine))
    return [_with_params(r, p) for r in results]


def _with_params(result: Any, p: Params) -> Any:
    import dataclasses

    prov = result.provenance
    merged = {**dict(prov.params or {}), "analysis_params": params_dict(p)}
    return dataclasses.replace(result, provenance=dataclasses.replace(prov, params=merged))


_R = "ranklens.regimes.evaluation"
_P = "ranklens.regimes.plots"
ANALYSIS = Analysis(
    name="regimes",
    title="Interpolation vs extrapolation",
    params=Params,
    run="ranklens.regimes.declaration:run",
    help="interpolation vs extrapolation: resampled train/test queries, retrained models, both regimes",
    description=("ReSTrain / ReSTTest resampling and evaluation of retrained models (Zhan et al.). File tools: "
                 "ranklens regimes --out DIR {diagnose,restrain,resttest,train,evaluate,annotations} ..."),
    needs_qrels=True,
    min_models=0,
    tools="ranklens.regimes.tools:add_tools",
    kinds=(
        ResultKind("regimes-table", "Interpolation vs extrapolation", findings="ranklens.regimes.findings:regimes_table",
                   significance="ranklens.regimes.findings:sig_regimes_table", plots=(f"{_R}:plot_regimes",),
                   model_rows=ModelRows("model", items=("setting", "regime"), long=("measure", "value")),
                   higher_is_better={"nDCG@10": True, "R@100": True, "RR@10": True}),
        ResultKind("regimes-query-similarity", "Nearest training queries", plots=(f"{_P}:plot_nn_similarity",)),
        ResultKind("regimes-label-overlap", "Label overlap"),
        ResultKind("regimes-ood-correlation", "Out-of-distribution correlation", plots=(f"{_R}:plot_ood",)),
        ResultKind("regimes-split-pca", "Split (PCA)", plots=(f"{_P}:plot_split_pca_result",)),
    ),
    demo={"train_queries": "demo", "trainers": ("bm25", "memorizing", "bi-encoder"), "max_steps": 5,
          "methods": ("restrain",), "k_nn": 5},
    renamed_kinds={"regime-table": "regimes-table", "split-pca": "regimes-split-pca", "query-similarity": "regimes-query-similarity", "ood-correlation": "regimes-ood-correlation", "label-overlap": "regimes-label-overlap", "annotation-summary": "regimes-annotation-summary"},  # result kinds before the one-name rename still load
)
