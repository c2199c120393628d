from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.probes import (
    delta_sweep,
    format_table,
    generate_samples,
    get_probe,
    plot_delta_sweep,
    plot_diff_distributions,
    run_probes,
    seed_variance,
)
from ranklens.probes.delta import DeltaSpec, calibrate_delta, parse_delta
from ranklens.rankers.base import FunctionRanker
from ranklens.testing import OverlapRanker


def _len_ranker(qs, ts):
    return np.array([len(t.split()) for t in ts], dtype=np.float64)


def _rev_ranker(qs, ts):
    return -np.array([len(t.split()) for t in ts], dtype=np.float64)


PROBES = ["mm-rel-ctrl-len", "tr-shuffle-words", "tr-del-stops-punct", "tr-add-nonrel-sent"]


def test_engine_scores_each_distinct_pair_once(tiny):
    e = ScoringEngine(cache=False)
    r = OverlapRanker()
    res = run_probes(PROBES, [r], tiny, delta=0.0, engine=e)
    samples = generate_samples([get_probe(n) for n in PROBES], tiny, seed=0)
    distinct = {(s.query, t) for ps in samples.values() for s in ps.samples for t in (s.text_1, s.text_2)}
    assert e.stats.by_fingerprint[r.fingerprint] == len(distinct)
    assert set(res.table.probe) == set(PROBES)
    # with calibration: calls = distinct pairs of the probes and of δ's re-ranking together
    from ranklens.probes.delta import _bm25_topk

    e = ScoringEngine(cache=False)
    res = run_probes(PROBES, {"o": r}, tiny, engine=e)
    qs = tiny.queries_dict()
    calib = {(qs[q], tiny.docs[d]) for q, ds in _bm25_topk(tiny, sorted(qs), 20).items() for d in ds}
    assert res.summary["probe_pairs_distinct"] == len(distinct)
    assert res.summary["model_calls"]["o"] == e.stats.by_fingerprint[r.fingerprint] == len(distinct | calib)
    assert res.summary["model_calls_probes"]["o"] == len(distinct - calib)


def test_delta_applied_and_stored(tiny, tmp_path):
    lr = FunctionRanker(fn=_len_ranker, name_="len")
    res = run_probes(["tr-del-stops-punct"], {"len": lr}, tiny, delta=0.0, engine=ScoringEngine(cache=False))
    row = res.table.iloc[0]
    # removing stopwords always shortens these docs: every diff < 0 -> score -1
    assert row["score"] == -1.0 and row["neg"] == row["n"] > 0
    big = run_probes(["tr-del-stops-punct"], {"len": lr}, tiny, delta=100.0, engine=ScoringEngine(cache=False))
    assert big.table.iloc[0]["score"] == 0 and big.table.iloc[0]["delta"] == 100.0
    assert big.summary["deltas"] == {"len": 100.0}
    # per-sample table is consistent with the row
    s = res.tables["samples"]
    assert np.allclose(s["diff"], s["score_1"] - s["score_2"])
    assert s["effect"].mean() == row["score"]


def test_directional_swap_negates_score(tiny):
    lr = FunctionRanker(fn=_len_ranker, name_="len")
    rv = FunctionRanker(fn=_rev_ranker, name_="rev")
    res = run_probes(["tr-add-nonrel-sent"], {"len": lr, "rev": rv}, tiny, delta=0.0,
                     engine=ScoringEngine(cache=False))
    sc = dict(zip(res.table.model, res.table.score))
    assert sc["len"] == 1.0 and sc["rev"] == -1.0
    assert res.table.samples_hash.nunique() == 1  # identical inputs for both models


def test_rerun_from_the_engine_cache_makes_no_model_call(tiny, tmp_path):
    a = OverlapRanker()
    first = run_probes(PROBES, {"overlap": a}, tiny, delta=0.0, engine=ScoringEngine(cache=tmp_path / "c"))
    assert first.summary["model_calls"]["overlap"] == first.summary["probe_pairs_distinct"] > 0
    e = ScoringEngine(cache=tmp_path / "c")
    again = run_probes(PROBES, {"overlap": a}, tiny, delta=0.0, engine=e)
    assert e.stats.pairs_scored == 0 and again.summary["model_calls"]["overlap"] == 0
    pd.testing.assert_frame_equal(first.table, again.table)
    texts = again.tables["texts"]  # the scored texts are kept with the result
    assert len(texts) == sum(len(g) for _, g in again.tables["samples"].groupby("model"))


def test_calibration_median_of_adjacent_diffs(tiny):
    lr = FunctionRanker(fn=_len_ranker, name_="len")
    spec = DeltaSpec(k=10, depth=20, max_queries=None)
    info = calibrate_delta(lr, tiny, spec=spec, engine=ScoringEngine(cache=False))
    # slow reference: BM25 candidates (score > 0) per query, sorted len scores, adjacent diffs
    from ranklens.probes.delta import _bm25_topk

    top = _bm25_topk(tiny, sorted(tiny.queries_dict()), 20)
    ref = []
    for docs in top.values():
        s = sorted((len(tiny.docs[d].split()) for d in docs), reverse=True)[:10]
        ref += [s[i] - s[i + 1] for i in range(len(s) - 1)]
    assert sorted(info.diffs.tolist()) == sorted(ref)
    assert info.delta == pytest.approx(np.median(ref))
    p = calibrate_delta(lr, tiny, spec=parse_delta("p100"), engine=ScoringEngine(cache=False))
    assert p.delta == max(ref)


def test_parse_delta():
    assert parse_delta("calibrate").mode == "calibrate"
    assert parse_delta("p25").percentile == 25
    assert parse_delta("0.5").value == 0.5
    with pytest.raises(Exception, match="cannot read delta"):
        parse_delta("often")


def test_table_sweep_seed_variance_plots(tiny):
    rankers = {"s1": OverlapRanker(length_weight=1e-3), "s2": OverlapRanker(length_weight=2e-2)}
    res = run_probes(PROBES, rankers, tiny, delta="calibrate", engine=ScoringEngine(cache=False))
    txt = format_table(res)
    assert "tr-shuffle-words (tiny)" in txt and "s1" in txt.splitlines()[0]
    md = format_table(res, fmt="markdown")
    assert md.startswith("| probe (dataset) | s1 | s2 | n |")
    # the paper's convention: non-significant cells carry a '*'
    for r in res.table.itertuples():
        cell = f"{r.score:+.2f}" + ("*" if r.significant else "")
        assert cell in txt
    sw = delta_sweep(res, percentiles=[0, 50, 100])
    assert sw.kind == "probes-delta-sweep" and set(sw.table.percentile) == {0, 50, 100}
    # δ at percentile 100 = largest calibration diff -> |score| can only shrink as δ grows
    for _, g in sw.table.groupby(["probe", "model"]):
        assert abs(g.score.iloc[-1]) <= abs(g.score.iloc[0]) + 1e-12
    per_probe, per_family = seed_variance(res, ["s1", "s2"])
    sc = res.table.pivot_table(index="probe", columns="model", values="score")
    exp = sc.std(axis=1, ddof=1)
    got = per_probe.set_index("probe")["std"]
    assert np.allclose(got.loc[exp.index].to_numpy(), exp.to_numpy(), equal_nan=True)
    # the paper's Table 4: square root of the mean variance per family (not the mean std)
    for fam, g in res.table.groupby("family"):
        v = g.pivot_table(index="probe", columns="model", values="score").var(axis=1, ddof=1)
        want = float(np.sqrt(v.mean()))
        assert per_family.set_index("family").loc[fam, "std"] == pytest.approx(want)
    import matplotlib.figure

    assert isinstance(plot_delta_sweep(sw), matplotlib.figure.Figure)
    assert isinstance(plot_diff_distributions(res, names=["tr-shuffle-words"]), matplotlib.figure.Figure)


def test_legend_of_results_sharing_a_calibration_names_it_once(tiny):
    """Two results on one collection with one δ (the paper's tables join parts run apart): the
    δ line appears once, each distinct line still appears."""
    from ranklens.probes.paper import _legend

    r = OverlapRanker()
    a = run_probes(["tr-shuffle-words"], {"o": r}, tiny, delta=0.5, engine=ScoringEngine(cache=False))
    typo = get_probe("tr-typo", misspellings="char")  # no data resource: character typos, asked for by name
    b = run_probes([typo], {"o": r}, tiny, delta=0.5, engine=ScoringEngine(cache=False))
    lines = _legend([a, b]).splitlines()
    assert sum(ln.startswith("delta [") for ln in lines) == 1
    assert len(lines) == len(set(lines))
    c = run_probes([typo], {"o": r}, tiny, delta=0.7, engine=ScoringEngine(cache=False))
    assert sum(ln.startswith("delta [") for ln in _legend([a, b, c]).splitlines()) == 2  # distinct: both kept
