"""Plots of splits: 2-D PCA of training and test queries per regime (Fig. 1), similarity histograms."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from .similarity import _check_queries
from .splits import Split, _ordered

__all__ = ["plot_nn_similarity", "plot_split_pca", "project_2d"]


def project_2d(texts: list[str], *, vectors: Any = "tfidf", engine: Any = None, seed: int = 0) -> np.ndarray:
    """2-D coordinates of ``texts``: PCA of embedder vectors, or TruncatedSVD (PCA without
    centring, for sparse input) of TF-IDF vectors when ``vectors="tfidf"``."""
    if isinstance(vectors, str):
        if vectors != "tfidf":
            raise ValidationError(f"vectors must be 'tfidf' or an embedder, got {vectors!r}")
        from sklearn.decomposition import TruncatedSVD

        from .similarity import tfidf_vectors

        x, _ = tfidf_vectors(texts)
        if x.shape[1] < 3:
            return np.pad(x.toarray(), ((0, 0), (0, max(0, 2 - x.shape[1]))))[:, :2]
        return TruncatedSVD(n_components=2, random_state=seed).fit_transform(x)
    from sklearn.decomposition import PCA

    from .similarity import embed_queries

    return PCA(n_components=2, random_state=seed).fit_transform(embed_queries(vectors, texts, engine=engine))


def plot_split_pca(split: Split, queries: pd.DataFrame, *, vectors: Any = "tfidf", engine: Any = None,
                   seed: int = 0, ax: Any = None) -> Any:
    """One panel per regime: training queries (grey) and test queries (colour) in a shared 2-D
    projection of all the split's queries. Returns the matplotlib Figure."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    q = _check_queries(queries, "queries")
    text = dict(zip(q["query_id"], q["text"]))
    ids = [x for x in split.pool_ids() if x in text]
    if len(ids) < len(split.pool_ids()):
        raise ValidationError(f"queries lack text for {len(split.pool_ids()) - len(ids)} ids of split {split.name!r}")
    xy = project_2d([text[x] for x in ids], vectors=vectors, engine=engine, seed=seed)
    pos = {x: i for i, x in enumerate(ids)}
    regimes = _ordered(split.regimes)
    if ax is None:
        fig, axes = plt.subplots(1, len(regimes), figsize=(3.6 * len(regimes), 3.4), squeeze=False,
                                 sharex=True, sharey=True)
        axes = axes[0]
    else:
        fig, axes = ax.figure, [ax] * len(regimes)
    for a, regime in zip(axes, regimes):
        tr, te = split.regimes[regime]
        p_tr = xy[[pos[x] for x in tr]] if tr else np.zeros((0, 2))
        p_te = xy[[pos[x] for x in te]] if te else np.zeros((0, 2))
        a.scatter(p_tr[:, 0], p_tr[:, 1], s=6, c="0.6", alpha=0.5, label=f"train ({len(tr)})")
        a.scatter(p_te[:, 0], p_te[:, 1], s=8, c="C3", alpha=0.7, label=f"test ({len(te)})")
        a.set_title(f"{split.name}: {regime}", fontsize="small")
        a.legend(fontsize="x-small")
    fig.tight_layout()
    return fig


def plot_nn_similarity(similarity: Any, ax: Any = None, *, bins: int = 40) -> Any:
    """Histogram of each test query's nearest-training-query similarity (a query-similarity Result)."""
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
