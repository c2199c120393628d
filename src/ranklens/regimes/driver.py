"""The ``regimes`` analysis's driver (``Analysis.run``): the judged queries drawn into a training pool and a
test set, diagnostics, ReSTrain / ReSTTest splits, the trainers' models trained on every training set and
evaluated in both regimes (per seed), and the zero-shot OOD correlation. The parameters are
:class:`~.declaration.Params`; the door (:func:`ranklens.drive.run_analysis`) stamps them into provenance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ValidationError
from .declaration import Params

__all__ = ["make_trainer", "make_trainers", "read_query_file", "run"]


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
    if spec == "demo":
        import pandas as pd

        from ..datasets.demo import load_demo_train

        q = load_demo_train()[0]
        return pd.DataFrame({"query_id": q["query_id"].astype(str).to_numpy(dtype=object),
                             "text": q["text"].astype(str).to_numpy(dtype=object)})
    return read_query_file(spec)


#: first fields of a header line the queries reader does not recognise (its text column is named
#: otherwise, e.g. WikiQA's ``query_id<TAB>question``): the line is dropped, not read as a query
_HEADER_IDS = frozenset({"query_id", "qid", "id"})


def read_query_file(path: str | Path) -> Any:
    """The one checked reader of a queries file for regimes (the analysis's ``train_queries`` and
    every file tool's ``--train-queries``/``--test-queries``): :func:`ranklens.io.read_queries`,
    then

    - a first line whose id is ``query_id``/``qid``/``id`` is a header (dropped, whatever its text
      column is called);
    - a headerless TSV line with more than two tab-separated fields is refused: the reader would
      make the extra columns part of the query text (a label, a split name ... in every similarity
      and every trained model). The error names the file, the first such line, and the fix.

    Returns:
        Frame ``query_id``, ``text`` (both ``str``).
    """
    import pandas as pd

    from ..errors import DataFormatError
    from ..io import read_queries

    q = read_queries(path)
    header = len(q) > 0 and str(q["query_id"].iloc[0]).strip().lower() in _HEADER_IDS
    if header:
        q = q.iloc[1:].reset_index(drop=True)
    folded = q["text"].astype(str).str.contains("\t", regex=False)
    if folded.any():
        where = _first_wide_line(Path(path), skip_first=header)
        if where is not None:
            lineno, n, qid = where
            raise DataFormatError(
                f"{n} tab-separated columns (query {qid!r}; {int(folded.sum())} such lines) where a queries file has "
                "2, query_id<TAB>text: the extra columns would become part of the query text; keep only the id and text columns, "
                "or start the file with a header line naming them (query_id<TAB>text<TAB>...; the text column must "
                "be named text, query or title) so the extra columns are read as columns", path=path, line=lineno)
    return pd.DataFrame({"query_id": q["query_id"].astype(str).to_numpy(dtype=object),
                         "text": q["text"].astype(str).to_numpy(dtype=object)})


def _first_wide_line(path: Path, *, skip_first: bool) -> tuple[int, int, str] | None:
    """(line number, fields, query id) of the first line of a TSV queries file with more than two
    tab-separated fields, decoded and numbered as the reader does; None for JSONL, topics, SMART."""
    from ..io.readers import _lines, _text

    text = _text(path, None)
    if text.lstrip()[:1] in ("{", "<", "."):
        return None
    for lineno, line in _lines(text):
        if (skip_first and lineno == 1) or not line.strip():
            continue
        n = line.count("\t") + 1
        if n > 2:
            return lineno, n, line.split("\t", 1)[0].strip()
    return None


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


def make_trainer(spec: str, p: Params, seed: int) -> Any:
    """The trainer of one ``Params.trainers`` spec: ``bm25``, ``memorizing``, ``bi-encoder[:MODEL]``,
    ``cross-encoder[:MODEL]`` (MODEL default ``p.base_model``; epochs, batch size, steps, dev share
    and the cross-encoder loss from ``p``) or ``callable:MODULE:FUNC``."""
    from .finetune import BiEncoderTrainer, CrossEncoderTrainer
    from .trainers import BM25Trainer, CallableTrainer, MemorizingTrainer

    kind, _, arg = spec.partition(":")
    neural = {"model": arg or p.base_model, "epochs": p.epochs, "batch_size": p.batch_size,
              "max_steps": p.max_steps, "seed": seed, "dev_fraction": p.dev_fraction}
    if kind == "bm25":
        return BM25Trainer()
    if kind == "memorizing":
        return MemorizingTrainer()
    if kind == "bi-encoder":
        return BiEncoderTrainer(**neural)
    if kind == "cross-encoder":
        return CrossEncoderTrainer(**neural, loss=p.reranker_loss)
    if kind == "callable" and arg:
        from ..rankers.callables import load_callable

        return CallableTrainer(fn=load_callable(arg), name=arg.replace(":", "."))
    raise ValidationError(f"trainers: unknown trainer {spec!r}; use bm25, memorizing, bi-encoder[:MODEL], "
                          "cross-encoder[:MODEL] or callable:MODULE:FUNC")


def make_trainers(p: Params, seed: int) -> list[Any]:
    """The trainers of ``p.trainers`` (repeated specs once, in order)."""
    return [make_trainer(t, p, seed) for t in dict.fromkeys(p.trainers)]


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
    from .similarity import similarity_method
    from .variants import train_variants

    pool, test, allq, qrels = _pools(collection, p, seed)
    if len(pool) < 2 or len(test) < 2:
        raise ValidationError(f"{collection.name}: {len(pool)} training and {len(test)} test queries with a "
                              "positive judgment; need at least 2 of each")
    sim = similarity_method(p.similarity)
    results = _diagnostics(test, pool, qrels, sim, p, engine) if first else []
    splits, warns = _splits(pool, test, sim, p, seed, collection.name, engine)
    tabbed = int(allq["text"].astype(str).str.contains("\t", regex=False).sum())
    if tabbed:
        warns.append(f"{tabbed} queries of {collection.name} hold a tab in their text (a queries file with more "
                     "than two columns and no header folds the extra columns into the text): their similarity and "
                     "the trained models read those columns as words; give the queries file a header line")
    if first:
        results += _pca_results(splits, allq, sim, seed, engine, pool, test, p)
    variants = train_variants(make_trainers(p, seed), splits, allq, qrels, collection.docs, models_dir, engine=engine)
    reg = evaluate_regimes(variants, splits, allq, qrels, collection.docs, measures=p.measures,
                           evaluation=p.evaluation, depth=p.depth, first_stage=p.first_stage,
                           random_negatives=p.random_negatives, seed=seed, engine=engine)
    return [*results, reg.with_warnings(*warns)], variants


def _ood(p: Params, regime: Any, variants: list[tuple[int, Any]], multi: bool, engine: Any) -> Any:
    """Zero-shot scores of every variant on the ``ood`` collections and their correlation with
    the in-domain interpolation / extrapolation scores."""
    import pandas as pd

    from ..io import load_collection
    from .ood import evaluate_collection, ood_correlation, variant_scores

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
    protocol repeats per seed and the regime table gives mean +- sd over seeds. ``models`` is empty:
    the trainers make the models (the door refuses a model given to regimes: ``Analysis.max_models`` 0)."""
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
    return results
