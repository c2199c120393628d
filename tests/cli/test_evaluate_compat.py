"""``ranklens evaluate`` as an ir_measures/trec_eval drop-in: positional measures, ir_measures'
output formats and options, the order given, --provider, CIs only when asked, PyTerrier columns."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ranklens.cli import main

RUN = """1 Q0 a 1 5 A
1 Q0 b 2 4 A
1 Q0 c 3 3 A
2 Q0 x 1 3 A
2 Q0 y 2 2 A
"""
QRELS = """1 0 b 1
1 0 c 2
2 0 x 1
2 0 z 1
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "A.run").write_text(RUN)
    (tmp_path / "B.run").write_text(RUN.replace(" 5 A", " 1 A"))
    return tmp_path


def _ir_measures(qrels, run, measures, per_query):
    import ir_measures

    q = list(ir_measures.read_trec_qrels(str(qrels)))
    r = list(ir_measures.read_trec_run(str(run)))
    ms = [ir_measures.parse_measure(m) for m in measures]
    if per_query:
        return {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(ms, q, r)}
    return {str(k): v for k, v in ir_measures.calc_aggregate(ms, q, r).items()}


def test_positional_measures_ir_measures_tsv(files, capsys):
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"), "nDCG@10 P@2", "AP",
                 "-o", "tsv", "-p", "6"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [ln.split("\t")[0] for ln in lines] == ["nDCG@10", "P@2", "AP"]  # order given
    ref = _ir_measures(files / "qrels.txt", files / "A.run", ["nDCG@10", "P@2", "AP"], False)
    for ln in lines:
        m, v = ln.split("\t")
        assert len(v.split(".")[1]) == 6
        assert float(v) == pytest.approx(ref[m], abs=1e-6)


def test_by_query_three_columns_and_summary(files, capsys):
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"), "AP", "RR", "--per-query",
                 "-o", "tsv"]) == 0
    rows = [ln.split("\t") for ln in capsys.readouterr().out.strip().splitlines()]
    assert all(len(r) == 3 for r in rows)
    ref = _ir_measures(files / "qrels.txt", files / "A.run", ["AP", "RR"], True)
    body = {(q, m): float(v) for q, m, v in rows if q != "all"}
    assert body == pytest.approx(ref, abs=1e-4)
    assert [r[1] for r in rows if r[0] == "all"] == ["AP", "RR"]
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"), "AP", "--by_query", "-n",
                 "-o", "jsonl"]) == 0
    recs = [json.loads(ln) for ln in capsys.readouterr().out.strip().splitlines()]
    assert {r["query_id"] for r in recs} == {"1", "2"} and set(recs[0]) == {"query_id", "measure", "value"}


def test_runs_in_given_order_provider_and_no_ci_by_default(files, capsys):
    args = ["evaluate", str(files / "qrels.txt"), str(files / "B.run"), str(files / "A.run"), "AP", "ASL"]
    assert main(args) == 0
    out = capsys.readouterr().out
    lines = [ln.split("\t") for ln in out.splitlines()]
    assert [r[:2] for r in lines] == [["B", "AP"], ["B", "ASL"], ["A", "AP"], ["A", "ASL"]]  # a run column first
    assert main([*args, "--format", "tsv"]) == 0
    lines = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()]
    assert lines[0] == ["model", "measure", "value"]  # no ci columns unless --ci
    assert [r[0] for r in lines[1:]] == ["B", "B", "A", "A"]
    assert main([*args, "--provider", "pytrec_eval"]) == 0
    other = capsys.readouterr()
    assert other.out == out
    assert "ranklens: conventions: provider=pytrec_eval" in other.err


def test_q_after_evaluate_is_refused_not_guessed(files, capsys):
    # -q is --quiet before the command: after `evaluate` it is refused with the two spellings
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"), "AP", "-q"]) == 1
    err = capsys.readouterr().err
    assert "--per-query" in err and "--quiet" in err and "Traceback" not in err
    assert main(["-q", "evaluate", str(files / "qrels.txt"), str(files / "A.run"), "AP"]) == 0
    assert capsys.readouterr().out.startswith("AP\t")


def test_not_a_run_nor_a_measure(files, capsys):
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"), "NoSuchMeasure@3"]) == 1
    assert "neither a run file nor a measure" in capsys.readouterr().err


def test_resamples_default_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = capsys.readouterr().out  # the option derived from the asl Params shows its declared default
    assert "--n-resamples" in out and "(default: 5000)" in out


def test_pyterrier_columns():
    from ranklens.asl import evaluate

    run = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "x"], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["b", "x"], "label": [1, 1]})
    res = evaluate(qrels, run, ["AP", "RR"])
    assert res.table["AP"].iloc[0] == pytest.approx((0.5 + 1.0) / 2)
