"""Overlap of rankers' top-k documents (N2O for retrieval) and rank-biased overlap."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..engine import ScoringEngine
from ..errors import ValidationError
from ..results import Result, make_provenance
from ..search.overlap import rbo
from .declaration import Params
from .n2o import pair_matrix

__all__ = ["ranker_overlap", "run_from_ranker"]

DEFAULTS = Params()

def _topk_lists(run: pd.DataFrame, k: int, name: str) -> dict[str, list[str]]:
    missing = {"query_id", "doc_id", "score"} - set(run.columns)
    if missing:
        raise ValidationError(f"run {name!r} lacks column(s) {sorted(missing)}")
    r = run[["query_id", "doc_id", "score"]].copy()
    r["query_id"] = r["query_id"].astype(str)
    r["doc_id"] = r["doc_id"].astype(str)
    # trec_eval order: score descending, ties by doc_id descending
    r = r.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="mergesort")
    return {q: list(g["doc_id"].iloc[:k]) for q, g in r.groupby("query_id", sort=False)}


def _run_hash(run: pd.DataFrame) -> str:
    # order-independent digest of the (query_id, doc_id, score) rows
    from .._hashing import sha256_texts

    rows = sorted(f"{q}\t{d}\t{float(x)!r}" for q, d, x in
                  zip(run["query_id"].astype(str), run["doc_id"].astype(str), run["score"]))
    return sha256_texts(rows)


def run_from_ranker(ranker: Any, queries: pd.DataFrame, docs: Mapping[str, str], *,
                    engine: ScoringEngine | None = None) -> pd.DataFrame:
    """Exhaustive run: ``ranker`` scores every (query, document) pair through the engine.

    Only for small collections (n_queries × n_docs model calls, cached).
    """
    from ..engine import score_pairs

    ids = list(docs)
    texts = [docs[d] for d in ids]
    qs, ts, qid, did = [], [], [], []
    for q, text in zip(queries["query_id"].astype(str), queries["text"]):
        qs += [text] * len(ids)
        ts += texts
        qid += [q] * len(ids)
        did += ids
    scores = score_pairs(ranker, qs, ts, engine=engine)
    return pd.DataFrame({"query_id": qid, "doc_id": did, "score": scores})


def ranker_overlap(runs: Mapping[str, pd.DataFrame], *, k: int, p: float = DEFAULTS.rbo_p) -> Result:
    """Overlap of the top-k documents of rankers (N2O for retrieval) plus rank-biased overlap.

    ``k`` is the depth compared (the analysis passes ``ranker_k``), ``p`` the RBO persistence.
    Only queries present in every run are compared (the number dropped is reported). Each run is
    ordered by score descending, ties by doc_id descending (trec_eval's convention).

    Returns:
        ``Result(kind="neighbors-ranker-overlap")``: table ``model, other_model, overlap_mean, rbo_mean``;
        tables ``per_query`` and ``matrix`` (overlap, diagonal 1).
    """
    if len(runs) < 2:
        raise ValidationError("ranker overlap compares runs: pass at least two")
    if k < 1:
        raise ValidationError(f"k must be >= 1, got {k}")
    lists = {n: _topk_lists(r, k, n) for n, r in runs.items()}
    common = sorted(set.intersection(*(set(v) for v in lists.values())))
    all_q = set().union(*(set(v) for v in lists.values()))
    if not common:
        raise ValidationError("the runs share no query id")
    per = []
    for a, b in itertools.combinations(list(lists), 2):
        for q in common:
            la, lb = lists[a][q], lists[b][q]
            per.append((a, b, q, len(set(la) & set(lb)) / k, rbo(la, lb, p)))
    per_df = pd.DataFrame(per, columns=["model", "other_model", "query_id", "overlap", "rbo"])
    table = per_df.groupby(["model", "other_model"], sort=False)[["overlap", "rbo"]].mean().reset_index()
    table = table.rename(columns={"overlap": "overlap_mean", "rbo": "rbo_mean"})
    matrix = pair_matrix(list(lists), {(r.model, r.other_model): r.overlap_mean for r in table.itertuples()}, 1.0)
    summary = {"k": k, "p": p, "n_queries": len(common), "n_queries_dropped": len(all_q) - len(common),
               "rankers": list(lists), "mean_overlap": float(table["overlap_mean"].mean()),
               "mean_rbo": float(table["rbo_mean"].mean())}
    return Result(kind="neighbors-ranker-overlap", summary=summary, table=table,
                  tables={"per_query": per_df, "matrix": matrix},
                  provenance=make_provenance(
                      params={"k": k, "p": p, "ties": "score desc, doc_id desc (trec_eval)",
                              "rbo": "extrapolated RBO_ext, Webber et al. 2010 eq. 32",
                              "queries": "intersection of the runs' query ids"},
                      inputs={n: f"sha256:{_run_hash(r)}"
                              for n, r in runs.items()}))
