"""Train/test overlap diagnostics of an existing benchmark (Zhan et al., §3, Tables 1-4).

- :func:`label_overlap`: share of test queries with a relevant document that is also a positive
  of some training query, per relevance threshold (Table 3). The paper's text counts a query
  with **at least one** shared positive (default ``min_shared=1``); the authors' released script
  counts only queries with two or more and divides by all test queries (``min_shared=2`` and
  ``share_of_all@t`` reproduce it).
- :func:`near_duplicates`: test queries whose nearest training query scores above a threshold,
  side by side (Table 4).
- :func:`export_annotation_sheet` / :func:`read_annotation_sheets`: a CSV sheet with the top-n
  nearest training queries per test query and empty ``entity_overlap`` / ``intent_similarity``
  columns for annotators (the paper recalls 10 per test query), and a reader that summarises
  filled sheets as the paper's Tables 1-2 (median label over annotators, a test query's best
  label over all recalled training queries) with the mean Cohen's kappa between annotators
  (``sklearn.metrics.cohen_kappa_score``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataFormatError, ValidationError
from .similarity import _check_queries, frame_digest

__all__ = [
    "ANNOTATION_COLUMNS",
    "PAPER_CATEGORIES",
    "export_annotation_sheet",
    "label_overlap",
    "near_duplicates",
    "read_annotation_sheets",
]

ANNOTATION_COLUMNS = ("entity_overlap", "intent_similarity")


def _check_qrels(qrels: pd.DataFrame, what: str) -> pd.DataFrame:
    if not isinstance(qrels, pd.DataFrame):
        raise ValidationError(f"{what} must be a DataFrame (query_id, doc_id, relevance); got {type(qrels).__name__}")
    missing = {"query_id", "doc_id", "relevance"} - set(qrels.columns)
    if missing:
        raise ValidationError(f"{what} lacks column(s) {sorted(missing)} (found {list(qrels.columns)})")
    try:
        rel = qrels["relevance"].astype("int64").to_numpy()
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{what}: column 'relevance' must hold integers ({exc})") from exc
    return pd.DataFrame({"query_id": qrels["query_id"].astype(str).to_numpy(dtype=object),
                         "doc_id": qrels["doc_id"].astype(str).to_numpy(dtype=object), "relevance": rel})


def label_overlap(
    test_qrels: pd.DataFrame,
    train_qrels: pd.DataFrame,
    *,
    thresholds: Sequence[int] = (1,),
    train_rel: int = 1,
    min_shared: int = 1,
) -> Any:
    """Share of test queries whose relevant documents are also training positives.

    For each threshold ``t``, a test query counts when at least ``min_shared`` of its documents
    with ``relevance >= t`` are positives (``relevance >= train_rel``) of some training query.
    Two denominators, each named: ``share@t`` divides by the test queries with at least one
    document at ``>= t`` (the paper's Table 3); ``share_of_all@t`` by every judged test query
    (the authors' script; with ``min_shared=2`` it reproduces the script's number).

    Returns:
        ``Result`` (kind ``"regimes-label-overlap"``): table with one row per test query and threshold
        (``query_id``, ``threshold``, ``n_relevant``, ``n_shared``, ``overlap``) and a
        ``by_threshold`` table (``threshold``, ``n_queries``, ``n_overlap``, ``share``).

    Example:
        >>> import pandas as pd
        >>> tr = pd.DataFrame({"query_id": ["a"], "doc_id": ["d1"], "relevance": [1]})
        >>> te = pd.DataFrame({"query_id": ["x", "y"], "doc_id": ["d1", "d2"], "relevance": [1, 1]})
        >>> label_overlap(te, tr).summary["share@1"]
        0.5
    """
    from ..results import Result, make_provenance

    if min_shared < 1:
        raise ValidationError(f"min_shared must be >= 1, got {min_shared}")
    te = _check_qrels(test_qrels, "test_qrels")
    tr = _check_qrels(train_qrels, "train_qrels")
    positives = set(tr.loc[tr["relevance"] >= train_rel, "doc_id"])
    n_all = int(te["query_id"].nunique())
    rows, by = [], []
    for t in thresholds:
        rel = te.loc[te["relevance"] >= t]
        shared = rel["doc_id"].isin(positives)
        g = pd.DataFrame({"query_id": rel["query_id"], "shared": shared.to_numpy()}).groupby("query_id", sort=True)
        per = g["shared"].agg(["size", "sum"]).reset_index()
        per.columns = ["query_id", "n_relevant", "n_shared"]
        per["threshold"] = int(t)
        per["overlap"] = per["n_shared"] >= min_shared
        rows.append(per[["query_id", "threshold", "n_relevant", "n_shared", "overlap"]])
        n = len(per)
        k = int(per["overlap"].sum())
        by.append({"threshold": int(t), "n_queries": n, "n_overlap": k, "share": k / n if n else float("nan"),
                   "n_test_queries": n_all, "share_of_all": k / n_all if n_all else float("nan")})
    table = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
    table["n_relevant"] = table["n_relevant"].astype("int64")
    table["n_shared"] = table["n_shared"].astype("int64")
    by_t = pd.DataFrame(by)
    summary = {f"share@{r['threshold']}": r["share"] for r in by}
    summary.update({f"n_queries@{r['threshold']}": r["n_queries"] for r in by})
    summary.update({f"share_of_all@{r['threshold']}": r["share_of_all"] for r in by})
    prov = make_provenance(
        params={"thresholds": list(thresholds), "train_rel": train_rel, "min_shared": min_shared,
                "rule": "a test query overlaps when >= min_shared of its relevant docs are training positives"},
        inputs={"test_qrels": frame_digest(te), "train_qrels": frame_digest(tr)},
    )
    return Result(kind="regimes-label-overlap", summary=summary, table=table, tables={"by_threshold": by_t}, provenance=prov)


def _texts(queries: pd.DataFrame, what: str) -> dict[str, str]:
    q = _check_queries(queries, what)
    return dict(zip(q["query_id"], q["text"]))


def near_duplicates(
    similarity: Any,
    test_queries: pd.DataFrame,
    train_queries: pd.DataFrame,
    *,
    threshold: float,
) -> pd.DataFrame:
    """Test queries whose nearest training query scores at least ``threshold`` (Table 4).

    Args:
        similarity: a ``regimes-query-similarity`` Result (or its table) from
            :func:`~ranklens.regimes.similarity.query_similarity`.
        threshold: on the similarity's own scale (cosine for embedders/TF-IDF, raw BM25 for BM25).

    Returns:
        Columns ``query_id``, ``test_query``, ``train_query_id``, ``train_query``, ``score``,
        sorted by score (descending), then query id.
    """
    table = similarity.table if hasattr(similarity, "table") else similarity
    need = {"query_id", "rank", "train_query_id", "score"}
    if not need <= set(table.columns):
        raise ValidationError(f"similarity table lacks {sorted(need - set(table.columns))}; pass query_similarity(...)")
    te, tr = _texts(test_queries, "test_queries"), _texts(train_queries, "train_queries")
    top = table.loc[(table["rank"] == 1) & (table["score"] >= threshold)]
    out = pd.DataFrame({
        "query_id": top["query_id"].astype(str).to_numpy(dtype=object),
        "test_query": [te.get(q, "") for q in top["query_id"].astype(str)],
        "train_query_id": top["train_query_id"].astype(str).to_numpy(dtype=object),
        "train_query": [tr.get(q, "") for q in top["train_query_id"].astype(str)],
        "score": top["score"].to_numpy(dtype=np.float64),
    })
    return out.sort_values(["score", "query_id"], ascending=[False, True], kind="stable").reset_index(drop=True)


def export_annotation_sheet(
    similarity: Any,
    test_queries: pd.DataFrame,
    train_queries: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    top_n: int = 10,
    sample: int | None = None,
    seed: int = 0,
) -> Path:
    """Write a CSV annotation sheet: top-``top_n`` nearest training queries per test query.

    Columns: ``query_id``, ``test_query``, ``rank``, ``train_query_id``, ``train_query``,
    ``score``, ``entity_overlap``, ``intent_similarity`` (the last two empty, to be filled with
    labels, e.g. 0/1/2, by an annotator). ``sample`` draws that many test queries (seeded).
    """
    table = similarity.table if hasattr(similarity, "table") else similarity
    te, tr = _texts(test_queries, "test_queries"), _texts(train_queries, "train_queries")
    sub = table.loc[table["rank"] <= top_n].copy()
    if sample is not None:
        ids = sorted(sub["query_id"].astype(str).unique())
        rng = np.random.default_rng(seed)
        keep = set(rng.choice(ids, size=min(sample, len(ids)), replace=False).tolist())
        sub = sub.loc[sub["query_id"].astype(str).isin(keep)]
    sheet = pd.DataFrame({
        "query_id": sub["query_id"].astype(str).to_numpy(dtype=object),
        "test_query": [te.get(q, "") for q in sub["query_id"].astype(str)],
        "rank": sub["rank"].astype("int64").to_numpy(),
        "train_query_id": sub["train_query_id"].astype(str).to_numpy(dtype=object),
        "train_query": [tr.get(q, "") for q in sub["train_query_id"].astype(str)],
        "score": sub["score"].to_numpy(dtype=np.float64),
    })
    for c in ANNOTATION_COLUMNS:
        sheet[c] = ""
    from ..files import atomic_output

    p = Path(path)
    with atomic_output(p, what="annotation sheet") as tmp:
        sheet.to_csv(tmp, index=False)
    return p


def _read_sheet(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise DataFormatError("annotation sheet not found", path=path)
    sheet = pd.read_csv(path, dtype={"query_id": str, "train_query_id": str}, keep_default_na=False)
    need = {"query_id", "rank", "train_query_id", *ANNOTATION_COLUMNS}
    missing = need - set(sheet.columns)
    if missing:
        raise DataFormatError(f"missing column(s) {sorted(missing)}; export the sheet with export_annotation_sheet",
                              path=path, line=1)
    for c in ANNOTATION_COLUMNS:
        vals = sheet[c].astype(str).str.strip()
        for i, v in enumerate(vals):
            if v == "":
                continue
            try:
                int(float(v))
            except ValueError:
                raise DataFormatError(f"column {c!r} must hold integer labels (or stay empty), got {v!r}",
                                      path=path, line=i + 2) from None
        sheet[c] = [int(float(v)) if v != "" else np.nan for v in vals]
    return sheet


PAPER_CATEGORIES = {
    "entity_overlap": {2: "full overlap", 1: "partial overlap", 0: "zero overlap"},
    "intent_similarity": {2: "duplicate", 1: "similar", 0: "dissimilar"},
}
"""Labels 2 / 1 / 0 of the two annotation columns as the paper names them (Tables 1-2)."""


def _median_low(values: np.ndarray) -> float:
    """Median of the non-missing labels; of two middle labels the lower (labels stay labels)."""
    v = np.sort(values[~np.isnan(values)])
    return float(v[(len(v) - 1) // 2]) if len(v) else float("nan")


def _paper_table(merged: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """The paper's Tables 1-2: per pair the median label over annotators, per test query its best
    pair over all recalled training queries, then the share of test queries per category."""
    rows = []
    for c in ANNOTATION_COLUMNS:
        labels = merged[[f"{c}:{n}" for n in names]].to_numpy(dtype=float)
        final = pd.Series([_median_low(r) for r in labels], index=merged.index)
        best = final.groupby(merged["query_id"]).max().dropna()
        for label, cat in PAPER_CATEGORIES[c].items():
            n = int((best == label).sum())
            rows.append({"column": c, "category": cat, "label": label, "n_queries": n, "n_labelled": len(best),
                         "share": n / len(best) if len(best) else float("nan")})
        other = int((~best.isin(list(PAPER_CATEGORIES[c]))).sum())
        if other:
            rows.append({"column": c, "category": "other label", "label": -1, "n_queries": other,
                         "n_labelled": len(best), "share": other / len(best)})
    return pd.DataFrame(rows, columns=["column", "category", "label", "n_queries", "n_labelled", "share"])


def _kappas(merged: pd.DataFrame, names: Sequence[str], c: str) -> list[dict[str, Any]]:
    from sklearn.metrics import cohen_kappa_score

    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = merged[f"{c}:{names[i]}"], merged[f"{c}:{names[j]}"]
            both = a.notna() & b.notna()
            n = int(both.sum())
            k = float(cohen_kappa_score(a[both].astype(int), b[both].astype(int))) if n else float("nan")
            out.append({"column": c, "a": names[i], "b": names[j], "n": n, "kappa": k})
    return out


def read_annotation_sheets(paths: Sequence[str | os.PathLike[str]], *, names: Sequence[str] | None = None) -> Any:
    """Summarise filled annotation sheets (one per annotator) as the paper does (Tables 1-2).

    Rows are matched on (``query_id``, ``train_query_id``). Labels: 2 = full overlap / duplicate
    intent, 1 = partial overlap / similar intent, 0 = zero overlap / dissimilar intent
    (:data:`PAPER_CATEGORIES`). The paper's summary (``tables["paper"]``, summary keys
    ``<column>:<category>``): each pair's final label is the median over the annotators who
    labelled it (of two middle labels the lower), a test query falls in the category of its best
    pair over **all** recalled training queries ("there exists at least one training query ..."),
    and the shares are over the test queries with a label. Agreement: Cohen's kappa between every
    two annotators on the rows both labelled (``tables["kappa"]``) and its mean per column
    (``kappa_mean:<column>``, the paper's "average Cohen's kappa"). Also kept, per annotator:
    the label distribution of the rank-1 pairs (``<column>:<annotator>:distribution``).

    Returns:
        ``Result`` (kind ``"regimes-annotation-summary"``): table = the merged labels (one column per
        annotator and label), ``tables["paper"]`` and ``tables["kappa"]``.
    """
    from ..results import Result, make_provenance

    if not paths:
        raise ValidationError("read_annotation_sheets needs at least one sheet")
    names = list(names) if names is not None else [Path(p).stem for p in paths]
    if len(names) != len(paths) or len(set(names)) != len(names):
        raise ValidationError(f"need one distinct name per sheet, got {names}")
    key = ["query_id", "train_query_id"]
    merged = None
    for name, p in zip(names, paths):
        s = _read_sheet(Path(p))
        part = s[[*key, "rank", *ANNOTATION_COLUMNS]].rename(columns={c: f"{c}:{name}" for c in ANNOTATION_COLUMNS})
        if merged is None:
            merged = part
        else:
            merged = merged.merge(part, on=key, how="outer", suffixes=("", "_r"))
            merged["rank"] = merged["rank"].fillna(merged.pop("rank_r"))
    paper = _paper_table(merged, names)
    summary: dict[str, Any] = {"annotators": names, "n_pairs": len(merged)}
    summary.update({f"{r.column}:{r.category}": r.share for r in paper.itertuples()})
    kappas = []
    for c in ANNOTATION_COLUMNS:
        for name in names:
            top1 = merged.loc[merged["rank"] == 1, f"{c}:{name}"].dropna()
            summary[f"{c}:{name}:distribution"] = {str(int(k)): int(v) for k, v in top1.value_counts().sort_index().items()}
        ks = _kappas(merged, names, c)
        kappas += ks
        summary.update({f"kappa:{c}:{k['a']}:{k['b']}": k["kappa"] for k in ks})
        vals = [k["kappa"] for k in ks if k["kappa"] == k["kappa"]]
        summary[f"kappa_mean:{c}"] = float(np.mean(vals)) if vals else float("nan")
    prov = make_provenance(params={"match_on": key, "final_label": "median over annotators (lower middle)",
                                   "per_query": "best label over all recalled training queries",
                                   "kappa": "sklearn cohen_kappa_score per annotator pair, mean per column"},
                           inputs={n: str(Path(p)) for n, p in zip(names, paths)})
    return Result(kind="regimes-annotation-summary", summary=summary, table=merged.reset_index(drop=True),
                  tables={"paper": paper, "kappa": pd.DataFrame(kappas, columns=["column", "a", "b", "n", "kappa"])},
                  provenance=prov)
