"""Seeds as an option: the declaration repeats the protocol per seed and the regime table gives
mean +- sd over seeds, checked against separate single-seed runs combined in plain Python."""

from __future__ import annotations

import statistics

import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.io.collection import Collection, DocStore
from ranklens.regimes.declaration import Params
from ranklens.regimes.driver import run

from ._synth import synthetic


@pytest.fixture(scope="module")
def coll():
    tr, te, qr, corpus = synthetic(n_topics=5, docs_per_topic=4, per_doc=2)
    queries = pd.concat([tr, te], ignore_index=True)
    return Collection(name="synth", docs=DocStore(corpus), queries=queries, qrels=qr)


def _params(**kw):
    base = {"similarity": "tfidf", "methods": ("resttest",), "buckets": 3, "trainers": ("bm25", "memorizing"),
            "measures": ("nDCG@10",), "depth": 20}
    return Params(**{**base, **kw})


def test_seeds_mean_and_sd_match_single_seed_runs(coll):
    eng = ScoringEngine(cache=False)
    seeds = (3, 11)
    multi = run(coll, {}, _params(seeds=seeds), engine=eng)
    reg = multi[-1]
    assert reg.kind == "regimes-table"
    singles = {s: run(coll, {}, _params(), engine=eng, seed=s)[-1].tables["regime_table"] for s in seeds}
    long = reg.tables["regime_table"].set_index(["model", "setting", "measure"])
    assert set(reg.table["seed"]) == set(seeds)
    for key in long.index:
        for col in ("interpolation", "extrapolation", "gap"):
            per = [float(singles[s].set_index(["model", "setting", "measure"]).loc[key, col]) for s in seeds]
            assert long.loc[key, col] == pytest.approx(statistics.fmean(per))
            assert long.loc[key, f"{col}_sd"] == pytest.approx(statistics.stdev(per))
        assert long.loc[key, "n_seeds"] == 2
    # the seeds draw different pools, so the values are not all equal across seeds
    assert (long["interpolation_sd"] > 0).any()
    assert "gap sd" in " ".join(reg.tables["paper"].columns)
    assert reg.provenance.params["seeds"] == list(seeds)
    assert list(reg.tables["regime_table_by_seed"]["seed"].unique()) == list(seeds)
    from ranklens.regimes.evaluation import REGIME_COLUMNS

    assert set(REGIME_COLUMNS) <= set(reg.tables["regime_table"].columns)  # readers of one-seed tables work
    by = reg.tables["regime_table_by_seed"].groupby(["model", "setting", "measure"])["n_paired"].mean()
    assert long["n_paired"].to_dict() == pytest.approx(by.to_dict())


def test_no_seeds_is_one_run(coll):
    eng = ScoringEngine(cache=False)
    a = run(coll, {}, _params(), engine=eng, seed=7)[-1]
    b = run(coll, {}, _params(seeds=(7,)), engine=eng, seed=0)[-1]
    pd.testing.assert_frame_equal(a.tables["regime_table"], b.tables["regime_table"])
    assert "seed" not in a.table.columns and "gap_sd" not in a.tables["regime_table"].columns
