"""The report calls every plot function as ``fn(result)`` with a Result alone (often one loaded
from disk): each must return a matplotlib Figure, and ``ax=`` must keep drawing into a given Axes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.embedders.base import FunctionEmbedder
from ranklens.engine import ScoringEngine
from ranklens.neighbors import (
    build_corpus,
    n2o_matrix,
    n2o_robustness,
    needle_in_haystack,
    plot_n2o_distribution,
    plot_n2o_matrix,
    plot_needle,
    plot_ranker_overlap,
    plot_robustness,
    plot_token_overlap,
    ranker_overlap,
    token_overlap,
)
from ranklens.results import Result
from ranklens.testing import HashEmbedder

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

WORDS = "cat dog bird fish lion tiger snake horse cow sheep goat mouse rat bee ant owl".split()


def _vecs(seed_offset):
    def fn(texts):
        out = []
        for t in texts:
            rng = np.random.default_rng(abs(hash((t, seed_offset))) % 2**32)
            out.append(rng.normal(size=8))
        return np.array(out, np.float32)

    fn.__qualname__ = f"vecs{seed_offset}"
    return FunctionEmbedder(fn=fn, name_=f"v{seed_offset}")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    rng = np.random.default_rng(0)
    corpus = build_corpus({f"d{i}": " ".join(rng.choice(WORDS, size=5)) + "." for i in range(60)})
    eng = ScoringEngine(cache=False)
    embs = {"a": HashEmbedder(dim=32), "b": HashEmbedder(dim=64), "c": _vecs(1)}
    pairs = pd.DataFrame({"text_a": ["cat dog bird.", "owl bee ant."], "text_b": ["lion cow fish.", "rat goat sheep."],
                          "score": [4.5, 4.2]})
    runs = {
        "x": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}),
        "y": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "c", "c"], "score": [2.0, 1.0, 1.0]}),
    }
    made = [
        (n2o_matrix(embs, corpus, k=5, n_queries=10, n_samples=2, engine=eng), [plot_n2o_matrix, plot_n2o_distribution]),
        (n2o_robustness(embs, corpus, ks=(3, 5), n_queries=10, n_samples=2, engine=eng), [plot_robustness]),
        (token_overlap(embs, corpus, k=3, n_queries=10, engine=eng), [plot_token_overlap]),
        (needle_in_haystack(embs, corpus, pairs, engine=eng), [plot_needle]),
        (ranker_overlap(runs, k=2), [plot_ranker_overlap]),
    ]
    root = tmp_path_factory.mktemp("plots")
    out = []
    for i, (res, fns) in enumerate(made):
        loaded = Result.load(res.save(root / str(i)))
        out += [(res, fn) for fn in fns] + [(loaded, fn) for fn in fns]
    return out


def test_every_plot_returns_a_figure_from_a_result_alone(results):
    for res, fn in results:
        fig = fn(res)
        assert isinstance(fig, Figure), (fn.__name__, type(fig))
        assert fig.axes and fig.axes[0].has_data() or fig.axes[0].images, fn.__name__
        plt.close(fig)


def test_every_plot_draws_into_a_given_axes(results):
    for res, fn in results[:: 2]:
        fig, ax = plt.subplots()
        assert fn(res, ax=ax) is fig, fn.__name__
        assert ax.has_data() or ax.images, fn.__name__
        plt.close(fig)


def test_matrix_plots_tolerate_undefined_pairs(results):
    # a pair whose queries were all zero vectors has N2O NaN: the plot must still be drawn
    res = next(r for r, fn in results if fn is plot_n2o_matrix)
    m = res.tables["matrix"].copy()
    m.loc[0, "b"] = np.nan
    m.loc[1, "a"] = np.nan
    import dataclasses

    broken = dataclasses.replace(res, tables={**res.tables, "matrix": m})
    for fn in (plot_n2o_matrix, plot_n2o_distribution):
        fig = fn(broken)
        assert isinstance(fig, Figure)
        plt.close(fig)
