"""rl.evaluate and rl.asl on qrels + runs, against a hand computation."""

from __future__ import annotations

import pytest

import ranklens as rl
from ranklens.errors import ValidationError


@pytest.fixture
def track(tmp_path):
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n2 Q0 d3 1 1.0 a\n")
    (tmp_path / "b.run").write_text("1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n2 Q0 d4 1 1.0 b\n2 Q0 d3 2 0.5 b\n")
    return tmp_path


def test_evaluate_one_run_equals_hand_values(track):
    res = rl.evaluate(str(track / "qrels.txt"), str(track / "b.run"), ["AP", "RR"])
    row = res.table.set_index("model").loc["run"]
    assert row["AP"] == pytest.approx((0.5 + 1.0) / 2)  # q1: rel at 2 -> 1/2; q2: both relevant -> 1
    assert row["RR"] == pytest.approx((0.5 + 1.0) / 2)


def test_asl_takes_a_qrels_and_runs_mapping(track):
    res = rl.asl({}, {"qrels": str(track / "qrels.txt"), "runs": [str(track / "a.run"), str(track / "b.run")]},
                 measures=["AP"])
    assert res["asl-evaluate"].summary["run_order"] == ["a", "b"]
    with pytest.raises(ValidationError, match="collection must be"):
        rl.asl({}, 42)
