"""A track is ranked once and handed on ranked: every analysis takes the ranked runs of
``Conventions.rank`` / ``rank_runs`` and gives the numbers it gives for the runs themselves; a run
ranked under other conventions is refused; nothing is cached between calls."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.asl import ranking
from ranklens.asl.analyses import asl_distribution, rrie
from ranklens.asl.chain import map_coverage, map_to_asl_chain
from ranklens.asl.conventions import COVERAGE, Conventions
from ranklens.asl.evaluation import evaluate
from ranklens.errors import ValidationError


def _track(seed: int = 0, n_runs: int = 3):
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame([(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(8) for d in range(0, 40, 3)],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for r in range(n_runs):
        rows = [(f"q{q}", f"d{d}", float(np.round(rng.normal(), 1))) for q in range(8) for d in range(40)]
        runs[f"r{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


@pytest.mark.parametrize("conv", [Conventions(), Conventions(ties="float64", depth=25, grades=("1=0",), rel=2,
                                                               unretrieved="lower_bound", missing="zero")])
def test_ranked_runs_give_the_same_numbers(conv):
    qrels, runs = _track()
    ranked = conv.rank(qrels, runs)
    assert list(ranked) == list(runs)
    kw = conv.kwargs()
    a = evaluate(qrels, runs, ["ASL", "AP", "nDCG@10", "ASL@g1-1"], **kw)
    b = evaluate(qrels, ranked, ["ASL", "AP", "nDCG@10", "ASL@g1-1"], **kw)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert a.provenance.inputs == b.provenance.inputs  # the runs' own hashes, ranked or not
    pd.testing.assert_frame_equal(map_to_asl_chain(qrels, runs, **kw).table, map_to_asl_chain(qrels, ranked, **kw).table)
    pd.testing.assert_frame_equal(map_coverage(qrels, runs, **conv.kwargs(*COVERAGE)).table,
                                  map_coverage(qrels, ranked, **conv.kwargs(*COVERAGE)).table)
    pd.testing.assert_frame_equal(rrie(qrels, runs["r0"], runs["r1"], **kw).table,
                                  rrie(qrels, ranked["r0"], ranked["r1"], **kw).table)
    pd.testing.assert_frame_equal(asl_distribution(qrels, runs["r0"], runs["r1"], **kw).table,
                                  asl_distribution(qrels, ranked["r0"], ranked["r1"], **kw).table)


def test_ranked_runs_are_not_ranked_again(monkeypatch):
    qrels, runs = _track()
    conv = Conventions()
    ranked = conv.rank(qrels, runs)
    calls = []
    real = ranking._rank_coded
    monkeypatch.setattr(ranking, "_rank_coded", lambda *a, **k: calls.append(1) or real(*a, **k))
    kw = conv.kwargs()
    evaluate(qrels, ranked, ["ASL", "AP"], **kw)
    map_to_asl_chain(qrels, ranked, **kw)
    map_coverage(qrels, ranked, **conv.kwargs(*COVERAGE))
    assert calls == []
    evaluate(qrels, runs, ["ASL"], **kw)  # runs themselves: ranked in the call, each once, no cache
    evaluate(qrels, runs, ["ASL"], **kw)
    assert len(calls) == 2 * len(runs)


def test_runs_ranked_under_other_conventions_are_refused():
    qrels, runs = _track()
    ranked = Conventions(ties="float64").rank(qrels, runs)
    with pytest.raises(ValidationError, match="ranked under"):
        evaluate(qrels, ranked, ["ASL"])
    with pytest.raises(ValidationError, match="ranked under"):
        map_coverage(qrels, Conventions(depth=10).rank(qrels, runs), depth=20)
    bare = {"r0": ranking.rank_coded(runs["r0"], qrels)}  # conventions not recorded
    with pytest.raises(ValidationError, match="not recorded"):
        evaluate(qrels, bare, ["ASL"])
