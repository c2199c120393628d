"""Every ASL plot takes only the Result (as the HTML report calls it) and returns a Figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from ranklens.errors import ValidationError
from ranklens.asl import (
    asl_distribution,
    evaluate,
    map_to_asl_chain,
    plot_chain,
    plot_deltas,
    plot_distribution,
    plot_evaluation,
    plot_rrie,
    plot_tracks,
    rrie,
    track_summary,
)

QRELS = pd.DataFrame([("1", "r1", 1), ("1", "r2", 1), ("2", "s1", 1), ("3", "t1", 1)],
                     columns=["query_id", "doc_id", "relevance"])


def _run(order, noise=0.0):
    rows = [(q, d, float(len(ds) - i)) for q, ds in order.items() for i, d in enumerate(ds)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


A = _run({"1": ["n1", "r1", "n2", "r2"], "2": ["n1", "s1"], "3": ["t1", "n1"]})
B = _run({"1": ["r1", "r2", "n1"], "2": ["n1", "n2", "n3"], "3": ["n1", "n2", "t1"]})
C = _run({"1": ["r2", "n1", "r1"], "2": ["s1"], "3": ["n1", "t1"]})


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_distribution_plots_with_one_and_two_runs():
    two = asl_distribution(QRELS, A, B, name="A", other_name="B")
    one = asl_distribution(QRELS, A, name="A")
    assert isinstance(plot_distribution(two), Figure)
    assert isinstance(plot_deltas(two), Figure)
    assert isinstance(plot_distribution(one), Figure)
    fig = plot_deltas(one)  # no second run: a Figure that says so, not an exception
    assert isinstance(fig, Figure)
    assert any("no per-document deltas" in t for t in _texts(fig))


def test_chain_and_tracks_plots(tmp_path):
    res = map_to_asl_chain(QRELS, {"A": A, "B": B, "C": C})
    fig = plot_chain(res)
    assert isinstance(fig, Figure)
    assert fig.axes[0].get_xlim()[0] <= min(0.0, res.table["kendall_tau"].min())
    for name in ("t1", "t2"):
        d = tmp_path / name / "runs"
        d.mkdir(parents=True)
        QRELS.assign(it=0)[["query_id", "it", "doc_id", "relevance"]].to_csv(
            tmp_path / name / "qrels.txt", sep=" ", header=False, index=False)
        for s, f in {"A": A, "B": B}.items():
            f.assign(q0="Q0", rank=1, tag=s)[["query_id", "q0", "doc_id", "rank", "score",
                                              "tag"]].to_csv(d / f"{s}.run", sep=" ",
                                                             header=False, index=False)
    assert isinstance(plot_tracks(track_summary(tmp_path)), Figure)


def test_plot_rrie_one_bar_per_measure_coloured_by_sign():
    res = rrie(QRELS, A, B, name_a="A", name_b="B", table_measures=("ASL", "AP", "RR"))
    fig = plot_rrie(res)
    assert isinstance(fig, Figure)
    bars = fig.axes[0].patches
    assert len(bars) == 3
    vals = res.table["rrie"].to_numpy()
    widths = np.array([b.get_width() for b in bars])
    np.testing.assert_allclose(widths, np.nan_to_num(vals))
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["ASL", "AP", "RR"]
    green = (0.17254901960784313, 0.6274509803921569, 0.17254901960784313, 1.0)
    for b, v in zip(bars, vals):
        assert (b.get_facecolor() == green) == (v > 0)


def test_plot_evaluation_two_panels_with_ci_whiskers():
    res = evaluate(QRELS, {"A": A, "B": B, "C": C}, ["ASL", "ASL@g1-1", "AP", "RR"],
                   n_resamples=200)
    fig = plot_evaluation(res)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2  # higher-is-better measures | ASL measures
    left, right = fig.axes
    assert [t.get_text() for t in left.get_legend().get_texts()] == ["AP", "RR"]
    assert [t.get_text() for t in right.get_legend().get_texts()] == ["ASL", "ASL@g1-1"]
    assert len(right.patches) == 2 * 3  # 2 measures x 3 systems
    widths = sorted(round(b.get_width(), 9) for b in right.patches[:3])
    assert widths == sorted(round(v, 9) for v in res.table["ASL"])
    only_asl = evaluate(QRELS, {"A": A}, ["ASL"], n_resamples=50)
    assert len(plot_evaluation(only_asl).axes) == 1


def test_plots_reject_the_wrong_result_kind():
    res = rrie(QRELS, A, B, name_a="A", name_b="B", table_measures=("ASL",))
    with pytest.raises(ValidationError, match="expected a 'asl-evaluate' result, got 'asl-rrie'"):
        plot_evaluation(res)
