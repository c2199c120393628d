"""Each plot returns a matplotlib Figure from a (saved) Result alone; ``ax=`` draws on a given Axes."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.explain import explanation_consistency, explanation_sweep, plot_consistency, plot_relevance_scatter, plot_sweep
from ranklens.results import Result
from ranklens.testing import OverlapRanker


@pytest.fixture
def saved(tiny, tmp_path):
    eng = ScoringEngine(cache=False)
    cons = explanation_consistency({"ov": OverlapRanker()}, tiny.queries, tiny.docs, qrels=tiny.qrels,
                                   granularities=("sentence", "window:2"), m=1, ks=(5,), engine=eng)
    sweep = explanation_sweep({"ov": OverlapRanker()}, tiny.queries, tiny.docs, qrels=tiny.qrels, ms=(1, 2),
                              windows=(2, 3), granularities=("sentence",), ks=(5,), engine=eng)
    wsweep = explanation_sweep({"ov": OverlapRanker()}, tiny.queries, tiny.docs, ms=(1,), windows=(1, 2, 3),
                               granularities=(), ks=(5,), engine=eng)
    return (Result.load(cons.save(tmp_path / "c")), Result.load(sweep.save(tmp_path / "s")),
            Result.load(wsweep.save(tmp_path / "w")))


def test_plots_return_figures_from_loaded_results_only(saved):
    import matplotlib.pyplot as plt

    cons, sweep, wsweep = saved
    before = plt.get_fignums()
    fig = plot_consistency(cons)
    assert isinstance(fig, Figure) and len(fig.axes[0].patches) == 2  # one MRC bar per granularity
    fig = plot_sweep(sweep)  # default measure: the sweep's first MRC column (MRC@5)
    assert isinstance(fig, Figure) and len(fig.axes[0].lines) == 3 and fig.axes[0].get_ylabel() == "MRC@5"
    fig = plot_relevance_scatter(cons)
    assert isinstance(fig, Figure) and len(fig.axes[0].collections) == 2
    fig = plot_relevance_scatter(sweep)
    assert isinstance(fig, Figure)
    # a sweep over w only (one m): plotted against the window width, one line per (ranker, m)
    fig = plot_sweep(wsweep)
    line = fig.axes[0].lines[0]
    assert list(line.get_xdata()) == [1, 2, 3] and fig.axes[0].get_xlabel().startswith("w")
    assert plt.get_fignums() == before  # no pyplot figures left open by the library


def test_plots_draw_on_given_axes_and_reject_wrong_results(saved):
    cons, sweep, wsweep = saved
    fig = Figure()
    ax = fig.subplots()
    assert plot_sweep(sweep, "MRC@5", x="m", ax=ax) is fig and len(ax.lines) == 3
    assert plot_consistency(cons, ax=fig.subplots(1, 1)) is fig
    with pytest.raises(ValidationError, match="explain-sweep"):
        plot_sweep(cons)
    with pytest.raises(ValidationError, match="explain-consistency"):
        plot_consistency(sweep)
    with pytest.raises(ValidationError, match="not in the sweep"):
        plot_sweep(sweep, "MRC@10")
    with pytest.raises(ValidationError, match="x must be"):
        plot_sweep(sweep, x="k")


def test_scatter_without_qrels_is_an_empty_figure(tiny):
    res = explanation_consistency({"ov": OverlapRanker()}, tiny.queries, tiny.docs, granularities=("sentence",), m=1,
                                  ks=(3,), engine=ScoringEngine(cache=False))
    fig = plot_relevance_scatter(res)
    assert isinstance(fig, Figure) and len(fig.axes[0].collections) == 0
