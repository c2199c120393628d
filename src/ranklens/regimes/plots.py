"""Plots of the analysis: 2-D PCA of training and test queries per regime (Fig. 1), similarity
histograms, the regime table's bars (:func:`plot_regimes`) and the OOD scatter (Fig. 2,
:func:`plot_ood`).

The PCA of a split is a first-class Result: :func:`split_pca` computes it (kind ``"regimes-split-pca"``,
one row per query and regime with its 2-D coordinates) and :func:`plot_split_pca_result` draws it
from the Result alone (so a saved result can be re-plotted, e.g. by the report).
:func:`plot_split_pca` is the two in one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..results import Result
from .similarity import _check_queries
from .names import EXTRAPOLATION, INTERPOLATION
from .splits import Split, _ordered

__all__ = ["illustrate_split", "plot_nn_similarity", "plot_ood", "plot_regimes", "plot_split_pca",
           "plot_split_pca_result", "project_2d", "split_pca"]

SPLIT_PCA_COLUMNS = ["query_id", "side", "regime", "x", "y"]


def _project_2d(texts: list[str], *, vectors: Any, engine: Any, seed: int) -> tuple[np.ndarray, list[float], str]:
    """``(coordinates (n, 2), explained variance ratio of the 2 components, projection name)``."""
    if isinstance(vectors, str):
        if vectors != "tfidf":
            raise ValidationError(f"vectors must be 'tfidf' or an embedder, got {vectors!r}")
        from sklearn.decomposition import TruncatedSVD

        from .similarity import tfidf_vectors

        x, _ = tfidf_vectors(texts)
        if x.shape[1] < 3:
            xy = np.pad(x.toarray(), ((0, 0), (0, max(0, 2 - x.shape[1]))))[:, :2]
            total = float(x.multiply(x).sum()) if x.shape[0] else 0.0
            ratio = [float((xy[:, i] ** 2).sum() / total) if total else float("nan") for i in range(2)]
            return xy, ratio, "tfidf (raw, fewer than 3 terms)"
        svd = TruncatedSVD(n_components=2, random_state=seed)
        xy = svd.fit_transform(x)
        return xy, [float(v) for v in svd.explained_variance_ratio_], "TruncatedSVD of TF-IDF (PCA without centring)"
    from sklearn.decomposition import PCA

    from .similarity import embed_queries

    pca = PCA(n_components=2, random_state=seed)
    xy = pca.fit_transform(embed_queries(vectors, texts, engine=engine))
    return xy, [float(v) for v in pca.explained_variance_ratio_], "PCA of embedder vectors"


def project_2d(texts: list[str], *, vectors: Any = "tfidf", engine: Any = None, seed: int = 0) -> np.ndarray:
    """2-D coordinates of ``texts``: PCA of embedder vectors, or TruncatedSVD (PCA without
    centring, for sparse input) of TF-IDF vectors when ``vectors="tfidf"``."""
    return _project_2d(texts, vectors=vectors, engine=engine, seed=seed)[0]


def illustrate_split(train_queries: pd.DataFrame, test_queries: pd.DataFrame, *, method: str = "restrain",
                     vectors: Any = "tfidf", engine: Any = None, seed: int = 0, **options: Any) -> Result:
    """The paper's Figure 1: project the training and test queries to two dimensions *first*,
    then resample in that plane (ReSTrain neighbours by 2-D distance, ReSTTest k-means on the
    2-D points), so that the drawn split shows the resampling itself. (A split made in the full
    embedding space and projected afterwards, :func:`split_pca`, need not look separated.)

    Args:
        train_queries, test_queries: ``query_id``, ``text``.
        method: ``"restrain"`` or ``"resttest"`` (the first fold is drawn).
        vectors: ``"tfidf"`` or an embedder, projected as in :func:`split_pca`.
        options: :class:`~.splits.ReSTrain` / :class:`~.splits.ReSTTest` arguments (``k``,
            ``k_exclude``, ``size``, ``n_buckets``, ...).

    Returns:
        ``Result(kind="regimes-split-pca")`` (see :func:`split_pca`) with ``summary["resampled_in"] =
        "2-D projection"``; draw it with :func:`plot_split_pca_result`.
    """
    import dataclasses

    from .similarity import PlaneVectors
    from .splits import ReSTrain, ReSTTest

    tr, te = _check_queries(train_queries, "train_queries"), _check_queries(test_queries, "test_queries")
    pool = pd.concat([tr, te], ignore_index=True)
    xy, ratio, how = _project_2d(pool["text"].tolist(), vectors=vectors, engine=engine, seed=seed)
    plane = PlaneVectors({t: (float(x), float(y)) for t, (x, y) in zip(pool["text"], xy)}, name=f"2-D {how}")
    if method == "restrain":
        split = ReSTrain(similarity=plane, seed=seed, **options).fit(tr, te).splits_[0]
    elif method == "resttest":
        split = ReSTTest(vectors=plane, seed=seed, **options).fit(tr, te).splits_[0]
    else:
        raise ValidationError(f"method must be 'restrain' or 'resttest', got {method!r}")
    res = _pca_result(split, pool["query_id"].tolist(), xy, ratio, how, vectors, seed,
                      "all training and test queries; resampled in this plane")
    return dataclasses.replace(res, summary={**res.summary, "resampled_in": "2-D projection"})


def split_pca(split: Split, queries: pd.DataFrame, *, vectors: Any = "tfidf", engine: Any = None,
              seed: int = 0) -> Result:
    """2-D projection of all the split's queries (training and test together), per regime (Fig. 1).

    Args:
        split: the split.
        queries: at least every query of the split, with ``query_id`` and ``text``.
        vectors: ``"tfidf"`` (TruncatedSVD of TF-IDF vectors) or an embedder (PCA of its vectors).
        seed: the projection's random state.

    Returns:
        ``Result(kind="regimes-split-pca")``: table ``query_id, side ("train"|"test"), regime, x, y`` (a
        query used in several regimes has one row per regime, same coordinates); summary with
        the split's name, the sizes per regime and ``explained_variance`` (ratio per component)
        and ``explained_variance_total``.
    """

    q = _check_queries(queries, "queries")
    text = dict(zip(q["query_id"], q["text"]))
    pool = split.pool_ids()
    ids = [x for x in pool if x in text]
    if len(ids) < len(pool):
        missing = [x for x in pool if x not in text]
        raise ValidationError(
            f"queries lack text for {len(missing)} id(s) of split {split.name!r}, e.g. {missing[0]!r}; pass the "
            "training and test queries together"
        )
    xy, ratio, how = _project_2d([text[x] for x in ids], vectors=vectors, engine=engine, seed=seed)
    return _pca_result(split, ids, xy, ratio, how, vectors, seed,
                       "all the split's queries (training and test, every regime) together")


def _pca_result(split: Split, ids: list[str], xy: np.ndarray, ratio: list[float], how: str, vectors: Any,
                seed: int, fitted_on: str) -> Result:
    from ..results import make_provenance
    from .similarity import similarity_name

    pos = {x: i for i, x in enumerate(ids)}
    parts = []
    for regime in _ordered(split.regimes):
        for side, group in zip(("train", "test"), split.regimes[regime]):
            rows = [pos[x] for x in group]
            parts.append(pd.DataFrame({
                "query_id": pd.Series(list(group), dtype=object), "side": side, "regime": regime,
                "x": xy[rows, 0] if rows else np.zeros(0), "y": xy[rows, 1] if rows else np.zeros(0)}))
    table = pd.concat(parts, ignore_index=True)[SPLIT_PCA_COLUMNS]
    summary = {
        "split": split.name, "method": split.method, "fold": split.fold, "vectors": similarity_name(vectors),
        "projection": how, "n_queries": len(ids), "regimes": _ordered(split.regimes),
        "explained_variance": ratio, "explained_variance_total": float(np.nansum(ratio)),
        **{f"n_{side}|{regime}": len(group) for regime in _ordered(split.regimes)
           for side, group in zip(("train", "test"), split.regimes[regime])},
    }
    prov = make_provenance(
        params={"vectors": similarity_name(vectors), "projection": how, "seed": seed,
                "fitted_on": fitted_on},
        components={"vectors": getattr(vectors, "fingerprint", str(vectors))},
        inputs={"split": split.fingerprint}, seed=seed)
    return Result(kind="regimes-split-pca", summary=summary, table=table, provenance=prov)


def plot_split_pca_result(result: Result, ax: Any = None) -> Any:
    """Draw a ``"regimes-split-pca"`` Result (:func:`split_pca`): one panel per regime, training queries
    (grey) and test queries (colour) in the shared 2-D projection. Returns the matplotlib Figure
    (with ``ax``, every regime is drawn into that Axes)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if result.kind != "regimes-split-pca":
        raise ValidationError(f"expected a result of kind 'regimes-split-pca' (from split_pca), got {result.kind!r}")
    t = result.table
    missing = set(SPLIT_PCA_COLUMNS) - set(t.columns)
    if missing:
        raise ValidationError(f"regimes-split-pca table lacks column(s) {sorted(missing)}")
    regimes = [str(r) for r in result.summary.get("regimes") or list(dict.fromkeys(t["regime"]))]
    name = result.summary.get("split", "split")
    if ax is None:
        fig, axes = plt.subplots(1, len(regimes), figsize=(3.6 * len(regimes), 3.4), squeeze=False,
                                 sharex=True, sharey=True)
        axes = axes[0]
    else:
        fig, axes = ax.figure, [ax] * len(regimes)
    for a, regime in zip(axes, regimes):
        g = t.loc[t["regime"] == regime]
        tr = g.loc[g["side"] == "train"]
        te = g.loc[g["side"] == "test"]
        a.scatter(tr["x"], tr["y"], s=6, c="0.6", alpha=0.5, label=f"train ({len(tr)})")
        a.scatter(te["x"], te["y"], s=8, c="C3", alpha=0.7, label=f"test ({len(te)})")
        a.set_title(f"{name}: {regime}", fontsize="small")
        a.legend(fontsize="x-small")
    ev = result.summary.get("explained_variance")
    if ev and len(axes):
        axes[0].set_xlabel(f"component 1 ({ev[0]:.1%})", fontsize="small")
        axes[0].set_ylabel(f"component 2 ({ev[1]:.1%})", fontsize="small")
    fig.tight_layout()
    return fig


def plot_split_pca(split: Split, queries: pd.DataFrame, *, vectors: Any = "tfidf", engine: Any = None,
                   seed: int = 0, ax: Any = None) -> Any:
    """One panel per regime: training queries (grey) and test queries (colour) in a shared 2-D
    projection of all the split's queries. Returns the matplotlib Figure.

    Same as ``plot_split_pca_result(split_pca(split, queries, ...), ax=ax)``; keep the Result
    from :func:`split_pca` when the coordinates should be saved too.
    """
    return plot_split_pca_result(split_pca(split, queries, vectors=vectors, engine=engine, seed=seed), ax=ax)


def plot_nn_similarity(similarity: Any, ax: Any = None, *, bins: int = 40) -> Any:
    """Histogram of each test query's nearest-training-query similarity (a regimes-query-similarity Result)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    t = similarity.table
    nn = t.loc[t["rank"] == 1, "score"].to_numpy(float)
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.0, 3.0))
    else:
        fig = ax.figure
    ax.hist(nn, bins=bins, color="C0")
    ax.set_xlabel(f"nearest training query similarity ({similarity.summary.get('method', '')})"[:60])
    ax.set_ylabel("test queries")
    fig.tight_layout()
    return fig


def plot_ood(result: Any, ax: Any = None) -> Any:
    """Scatter of OOD score vs. interpolation and extrapolation score, one panel per collection (Fig. 2)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    pts = result.tables["points"]
    colls = sorted(pts["collection"].unique())
    if ax is None:
        fig, axes = plt.subplots(1, max(1, len(colls)), figsize=(3.2 * max(1, len(colls)), 3.0), squeeze=False)
        axes = axes[0]
    else:
        fig, axes = ax.figure, [ax] * max(1, len(colls))
    for a, coll in zip(axes, colls):
        g = pts.loc[pts["collection"] == coll]
        a.scatter(g[INTERPOLATION], g["value"], label="interpolation", marker="o", alpha=0.8)
        a.scatter(g[EXTRAPOLATION], g["value"], label="extrapolation", marker="^", alpha=0.8)
        a.set_title(str(coll))
        a.set_xlabel("in-domain score")
    if len(axes):
        axes[0].set_ylabel("OOD score")
        axes[0].legend(fontsize="small")
    fig.tight_layout()
    return fig

def plot_regimes(result: Any, *, measure: str | None = None, ax: Any = None) -> Any:
    """Grouped bars: interpolation vs. extrapolation per (model, setting) for one measure.

    Args:
        result: a ``"regimes-table"`` Result (:func:`evaluate_regimes`).
        measure: the measure to show; default ``nDCG@10`` when evaluated, else the first one
            asked for.
        ax: draw into this Axes (default: a new Figure).

    Returns:
        The matplotlib Figure.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    t = result.tables["regime_table"]
    present = list(dict.fromkeys(str(m) for m in t["measure"]))
    prov = getattr(result, "provenance", None)
    asked = [str(m) for m in (getattr(prov, "params", None) or {}).get("measures", [])]
    present = [m for m in asked if m in present] + [m for m in present if m not in asked]
    if measure is None:
        measure = "nDCG@10" if "nDCG@10" in present or not present else present[0]
    elif present and measure not in present:
        raise ValidationError(f"measure {measure!r} is not in the regime table; it has {present}")
    t = t.loc[t["measure"].astype(str) == measure]
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(t) + 2), 3.2))
    else:
        fig = ax.figure
    x = np.arange(len(t))
    ax.bar(x - 0.2, t["interpolation"], width=0.4, label="interpolation")
    ax.bar(x + 0.2, t["extrapolation"], width=0.4, label="extrapolation")
    ax.set_xticks(x, [f"{m}\n{s}" for m, s in zip(t["model"], t["setting"])], fontsize="small")
    ax.set_ylabel(measure)
    ax.legend(fontsize=9, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)  # above the bars
    fig.tight_layout()
    return fig
