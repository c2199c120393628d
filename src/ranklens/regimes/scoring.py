"""Runs and per-query scores: the documents each model ranks and how they are scored (§4.2).

- :func:`candidate_run` builds the documents to rank per query: the judged pool (qrels), optionally
  plus seeded random corpus negatives, or a first-stage run.
- :func:`bm25_first_stage` is the paper's first stage (BM25 top ``depth`` from the whole corpus).
- :func:`evaluation_mode` / :func:`model_run`: the paper's evaluation per model type (first-stage
  models retrieve from the whole corpus, other rankers re-rank the first stage) and the run a
  ranker produces under it (scores through :mod:`ranklens.engine`).
- :func:`evaluate_run` / :func:`per_query_scores`: per-query values with ir_measures (trec_eval
  semantics: ties by doc id, via pytrec_eval); :func:`tied_top` flags fully tied top ranks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from .declaration import Params
from .similarity import _check_queries

__all__ = [
    "DEFAULT_MEASURES",
    "EVALUATIONS",
    "bm25_first_stage",
    "candidate_run",
    "evaluate_run",
    "evaluation_mode",
    "first_stage_run",
    "model_run",
    "per_query_scores",
    "tied_top",
]

DEFAULTS = Params()
DEFAULT_MEASURES = DEFAULTS.measures
EVALUATIONS = ("auto", "full", "rerank", "judged")


def candidate_run(
    query_ids: Sequence[str],
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    *,
    extra_run: pd.DataFrame | None = None,
    judged: bool = True,
    random_negatives: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """Candidate documents per query as a frame (``query_id``, ``doc_id``), no scores.

    Args:
        query_ids: queries to rank for.
        qrels: judgments; with ``judged=True`` every judged document of a query is a candidate.
        corpus: ``doc_id -> text`` (candidates missing from it are dropped).
        extra_run: a run (``query_id``, ``doc_id``, ...) whose documents are added.
        random_negatives: documents drawn uniformly from the corpus per query (seeded).
    """
    ids = [str(q) for q in query_ids]
    idset = set(ids)
    parts = []
    if judged:
        sub = qrels.loc[qrels["query_id"].astype(str).isin(idset), ["query_id", "doc_id"]]
        parts.append(pd.DataFrame({"query_id": sub["query_id"].astype(str).to_numpy(dtype=object),
                                   "doc_id": sub["doc_id"].astype(str).to_numpy(dtype=object)}))
    if extra_run is not None:
        sub = extra_run.loc[extra_run["query_id"].astype(str).isin(idset)]
        parts.append(pd.DataFrame({"query_id": sub["query_id"].astype(str).to_numpy(dtype=object),
                                   "doc_id": sub["doc_id"].astype(str).to_numpy(dtype=object)}))
    if random_negatives:
        rng = np.random.default_rng(seed)
        doc_ids = np.array(list(corpus), dtype=object)
        picks = rng.integers(0, len(doc_ids), size=(len(ids), random_negatives))
        parts.append(pd.DataFrame({"query_id": np.repeat(np.array(ids, dtype=object), random_negatives),
                                   "doc_id": doc_ids[picks.ravel()]}))
    if not parts:
        raise ValidationError("no candidates: set judged=True, extra_run=... or random_negatives > 0")
    run = pd.concat(parts, ignore_index=True).drop_duplicates()
    run = run.loc[np.array([d in corpus for d in run["doc_id"]], dtype=bool)]
    return run.reset_index(drop=True)

def bm25_first_stage(
    queries: pd.DataFrame, corpus: Any, *, depth: int = DEFAULTS.depth, k1: float = 0.9, b: float = 0.4,
    engine: Any = None,
) -> pd.DataFrame:
    """Top-``depth`` BM25 documents per query from the whole corpus (the paper's first stage:
    Anserini BM25, Lucene idf, k1=0.9, b=0.4), through :func:`ranklens.rankers.retrieval.retrieve`."""
    from ..rankers import BM25Ranker
    from ..rankers.retrieval import retrieve

    q = _check_queries(queries, "queries")
    return retrieve(BM25Ranker(k1=k1, b=b, method="lucene"), q, corpus, k=depth, engine=engine)

def first_stage_run(first_stage: Any, queries: pd.DataFrame, corpus: Any, *, depth: int, engine: Any = None,
                    ) -> pd.DataFrame:
    """The run rerankers re-rank: a run frame as given; ``"bm25"`` (``Params.first_stage``'s
    default; ``None`` too) = :func:`bm25_first_stage`'s top ``depth`` for ``queries``; any other
    string = a TREC run file."""
    if isinstance(first_stage, pd.DataFrame):
        return first_stage
    if first_stage is None or first_stage == "bm25":
        return bm25_first_stage(queries, corpus, depth=depth, engine=engine)
    if isinstance(first_stage, str):
        from ..io import read_run

        return read_run(first_stage)
    raise ValidationError(f"first_stage must be 'bm25', a run file or a run frame, got {type(first_stage).__name__}")


def _parse_measures(measures: Sequence[Any]) -> list[Any]:
    import ir_measures

    out = []
    for m in measures:
        if isinstance(m, str):
            try:
                out.append(ir_measures.parse_measure(m))
            except (ValueError, NameError, SyntaxError, KeyError) as exc:
                raise ValidationError(f"unknown measure {m!r} ({exc}); use ir_measures names such as nDCG@10, R@100, RR@10") from exc
        else:
            out.append(m)
    return out

def evaluate_run(run: pd.DataFrame, qrels: pd.DataFrame, measures: Sequence[Any],
                 query_ids: Sequence[str]) -> pd.DataFrame:
    """Per-query values (``query_id``, ``measure``, ``value``) of ``run`` for ``query_ids``
    (ir_measures, trec_eval semantics). A judged query absent from the run scores 0 (trec_eval -c);
    queries without any judgment are absent."""
    import ir_measures

    ids = {str(q) for q in query_ids}
    sub = qrels.loc[qrels["query_id"].astype(str).isin(ids)]
    qr = pd.DataFrame({"query_id": sub["query_id"].astype(str).to_numpy(dtype=object),
                       "doc_id": sub["doc_id"].astype(str).to_numpy(dtype=object),
                       "relevance": sub["relevance"].astype("int64").to_numpy()})
    r = run.loc[run["query_id"].astype(str).isin(ids)]
    r = pd.DataFrame({"query_id": r["query_id"].astype(str).to_numpy(dtype=object),
                      "doc_id": r["doc_id"].astype(str).to_numpy(dtype=object),
                      "score": r["score"].astype(np.float64).to_numpy()})
    ms = _parse_measures(measures)
    rows = [(m.query_id, str(m.measure), float(m.value)) for m in ir_measures.iter_calc(ms, qr, r)]
    out = pd.DataFrame(rows, columns=["query_id", "measure", "value"])
    missing = sorted(set(qr["query_id"]) - set(out["query_id"]))
    extra = [(qid, str(m), 0.0) for qid in missing for m in ms]
    if extra:
        out = pd.concat([out, pd.DataFrame(extra, columns=out.columns)], ignore_index=True)
    return out

def tied_top(run: pd.DataFrame, cutoff: int = 10) -> pd.Series:
    """Per query: True when its top-``cutoff`` scores are all equal as 32-bit floats (trec_eval's
    comparison), i.e. its ranking there is decided by the doc-id tie-break alone."""
    if run.empty:
        return pd.Series(dtype=bool)
    r = run.assign(_s=run["score"].astype(np.float32))
    top = r.sort_values(["query_id", "_s"], ascending=[True, False], kind="stable").groupby("query_id").head(cutoff)
    g = top.groupby("query_id")["_s"]
    return (g.transform("size") > 1).groupby(top["query_id"]).first() & (g.max() == g.min())

def evaluation_mode(ranker: Any, evaluation: str) -> str:
    """``"full"`` or ``"rerank"`` or ``"judged"``: ``"auto"`` is the paper's choice per model type --
    first-stage models (BM25, bi-encoders) retrieve from the whole corpus, other rankers re-rank
    the first stage's top ``depth`` (the paper: BM25 top-1000)."""
    if evaluation not in EVALUATIONS:
        raise ValidationError(f"evaluation must be one of {EVALUATIONS}, got {evaluation!r}")
    if evaluation != "auto":
        return evaluation
    return "full" if _retriever(ranker) is not None else "rerank"

def _retriever(ranker: Any) -> Any:
    """What :func:`ranklens.rankers.retrieval.retrieve` can search the corpus with, or ``None``."""
    from ..rankers import BM25Ranker
    from ..rankers.biencoder import BiEncoderRanker

    if isinstance(ranker, BM25Ranker):
        return ranker
    if isinstance(ranker, BiEncoderRanker) and ranker.similarity == "cosine":
        return ranker.embedder
    return None

def model_run(ranker: Any, mode: str, queries: pd.DataFrame, corpus: Any, *, depth: int,
              first_stage: Any = DEFAULTS.first_stage, candidates: pd.DataFrame | None = None,
              engine: Any = None) -> pd.DataFrame:
    """The run ``ranker`` produces for ``queries`` under an evaluation ``mode``:

    - ``"full"``: top-``depth`` from the whole corpus (bm25s for BM25, exact dense search for
      bi-encoders, through :func:`ranklens.rankers.retrieval.retrieve`);
    - ``"rerank"``: ``first_stage``'s top ``depth`` per query re-scored
      (:func:`ranklens.rankers.retrieval.rerank`; ``first_stage`` as in :func:`first_stage_run`);
    - ``"judged"``: ``candidates`` (:func:`candidate_run`) re-scored.
    """
    from ..rankers.retrieval import rerank, retrieve

    if mode == "full":
        model = _retriever(ranker)
        if model is None:
            raise ValidationError(f"{type(ranker).__name__} cannot retrieve from the whole corpus (only BM25 and "
                                  "cosine bi-encoders can); use evaluation='rerank' or 'auto'")
        if hasattr(model, "fitted") and model.fitted:
            model = type(model)(k1=model.k1, b=model.b, method=model.method, delta=model.delta, stem=model.stem,
                                stopwords=model.stopwords)  # refitted on `corpus` in its order by retrieve
        return retrieve(model, queries, corpus, k=depth, engine=engine)
    if mode == "rerank":
        first_stage = first_stage_run(first_stage, queries, corpus, depth=depth, engine=engine)
        fs = first_stage.loc[first_stage["query_id"].astype(str).isin(set(queries["query_id"].astype(str)))]
        return rerank(ranker, fs, queries, corpus, k=depth, engine=engine)
    if candidates is None:
        raise ValidationError("evaluation 'judged' needs candidates (candidate_run)")
    cand = candidates.loc[candidates["query_id"].astype(str).isin(set(queries["query_id"].astype(str)))]
    return rerank(ranker, cand, queries, corpus, engine=engine)

def per_query_scores(
    ranker: Any,
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    candidates: pd.DataFrame,
    *,
    measures: Sequence[Any] = DEFAULTS.measures,
    engine: Any = None,
) -> pd.DataFrame:
    """Rank the ``candidates`` of ``queries`` with ``ranker`` and evaluate per query
    (``query_id``, ``measure``, ``value``); judged queries without candidates score 0."""
    q = _check_queries(queries, "queries")
    run = model_run(ranker, "judged", q, corpus, depth=0, candidates=candidates, engine=engine)
    return evaluate_run(run, qrels, measures, q["query_id"].tolist())
