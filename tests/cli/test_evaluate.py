"""``ranklens evaluate`` and ``ranklens asl`` end to end (in-process ``main``)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ranklens.cli import main

RUN_A = """1 Q0 a 1 5 A
1 Q0 b 2 4 A
1 Q0 c 3 3 A
1 Q0 d 4 2 A
2 Q0 x 1 3 A
2 Q0 y 2 3 A
"""
RUN_B = """1\tQ0\td\t1\t9\tB
1\tQ0\tb\t2\t8\tB
1\tQ0\ta\t3\t1\tB
2\tQ0\tx\t1\t3\tB
2\tQ0\ty\t2\t1\tB
"""
QRELS = """1 0 b 1
1 0 d 2
1 0 f 1
2 0 x 1
2 0 y 0
"""


@pytest.fixture
def files(tmp_path):
    import gzip

    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "A.run").write_text(RUN_A)
    with gzip.open(tmp_path / "B.run.gz", "wt") as f:
        f.write(RUN_B)
    return tmp_path


def tsv(out: str) -> pd.DataFrame:
    """The TSV the CLI prints with --format tsv: a header, then rows (the asl file tools print a
    '# kind: conventions' line first)."""
    lines = [ln for ln in out.strip().splitlines() if not ln.startswith("#")]
    return pd.DataFrame([ln.split("\t") for ln in lines[1:]], columns=lines[0].split("\t"))


def test_evaluate_tsv_rows(files, capsys):
    rc = main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"),
               str(files / "B.run.gz"), "-m", "ASL", "-m", "ASL@g1-1", "-m", "AP",
               "--unretrieved", "lower_bound", "--format", "tsv"])
    assert rc == 0
    cap = capsys.readouterr()
    out = cap.out
    assert out.startswith("model\tmeasure\tvalue\n")  # pandas.read_csv reads it as it is
    assert "ranklens: conventions: unretrieved=lower_bound" in cap.err  # the non-default choice, on stderr
    assert pd.read_csv(__import__("io").StringIO(out), sep="\t").shape == (6, 3)
    t = tsv(out)
    assert list(t.columns) == ["model", "measure", "value"]
    got = {(m, x): float(v) for m, x, v in t.itertuples(index=False)}
    assert len(t) == 6
    # A: q1 a b c d -> SL(b)=2, SL(d)=3, f: 2 non-rel + 1 = 3 -> 8/3; q2: y first -> SL(x)=2
    assert got[("A", "ASL")] == pytest.approx((8 / 3 + 2) / 2, abs=1e-4)
    # B: q1 d b a -> SL 1, 1, f: 1 + 1 = 2 -> 4/3 ; q2: x first -> 1
    assert got[("B", "ASL")] == pytest.approx((4 / 3 + 1) / 2, abs=1e-4)
    assert got[("B", "ASL@g1-1")] == pytest.approx(1.0)
    assert t["model"].tolist() == ["A"] * 3 + ["B"] * 3  # runs in the order given
    assert t["measure"].tolist()[:3] == ["ASL", "ASL@g1-1", "AP"]  # measures in the order given
    # the default is the paper's eq. 3: f gets the non-relevant count (2 for A, 1 for B)
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"), "-m", "ASL"]) == 0
    cap = capsys.readouterr()
    name, value = cap.out.strip().split("\t")  # one run: ir_measures' measure<TAB>value
    assert name == "ASL" and float(value) == pytest.approx(((2 + 3 + 2) / 3 + 2) / 2, abs=1e-4)
    assert "conventions" not in cap.err  # every convention at its default: nothing to name


def test_evaluate_by_query_jsonl_and_per_document(files, capsys, tmp_path):
    out = tmp_path / "pd.tsv"
    rc = main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"), "-m",
               "ASL(rel=2)", "--by-query", "--format", "jsonl", "--per-document", str(out),
               "--unretrieved", "lower_bound"])
    assert rc == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert recs == [{"model": "A", "query_id": "1", "measure": "ASL(rel=2)", "value": 4.0}]  # a b c above d
    pdoc = pd.read_csv(out, sep="\t", dtype={"query_id": str})
    assert list(pdoc.columns) == ["model", "query_id", "doc_id", "relevance", "rank", "asl",
                                  "retrieved"]
    f = pdoc.set_index("doc_id")
    assert f.loc["f", "asl"] == 3 and pd.isna(f.loc["f", "rank"])


def test_evaluate_baseline_and_errors(files, capsys):
    rc = main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"),
               str(files / "B.run.gz"), "-m", "AP", "--baseline", "A", "--format", "table"])
    assert rc == 0
    assert "ttest_p_adj" in capsys.readouterr().out
    rc = main(["evaluate", str(files / "qrels.txt"), str(files / "A.run"), "-m", "ASL(x=1)"])
    assert rc == 1
    assert "ASL" in capsys.readouterr().err
    rc = main(["evaluate", str(files / "qrels.txt"), str(files / "nope.run")])
    assert rc == 1


def test_asl_tools_write_results(files, capsys, tmp_path):
    q, a, b = str(files / "qrels.txt"), str(files / "A.run"), str(files / "B.run.gz")
    assert main(["asl", "--out", str(tmp_path / "d"), "distribution", q, a, b]) == 0
    assert (tmp_path / "d" / "asl-distribution" / "distribution.png").is_file()
    assert (tmp_path / "d" / "asl-distribution" / "deltas.png").is_file()
    capsys.readouterr()
    assert main(["asl", "--out", str(tmp_path / "r"), "--unretrieved", "lower_bound", "rrie", q, a, b,
                 "--format", "tsv"]) == 0
    cap = capsys.readouterr()
    out = cap.out
    assert "ranklens: asl-rrie: unretrieved=lower_bound" in cap.err  # the policies on stderr
    assert not out.startswith("#")  # stdout is the table as it is: pandas.read_csv reads it
    import io

    import pandas as pd

    assert pd.read_csv(io.StringIO(out), sep="\t").columns.tolist()[:3] == ["model", "other_model", "measure"]
    assert tsv(out).columns.tolist()[:3] == ["model", "other_model", "measure"]
    assert main(["asl", "--out", str(tmp_path / "c"), "chain", q, a, b]) == 0
    assert (tmp_path / "c" / "asl-chain" / "result.json").is_file()
    assert main(["asl", "--out", str(tmp_path / "v"), "coverage", q, a, b]) == 0
    assert main(["asl", "--out", str(tmp_path / "t"), "ties", q, a, b]) == 0
    out = capsys.readouterr().out
    assert "tied_rows_float32" in out


def test_zero_resamples_is_a_located_error_not_a_traceback(tmp_path, capsys):
    from ranklens.cli import main

    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 x\n")
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "AP", "--n-resamples", "0"]) == 1
    assert "--n-resamples: 0 is below the minimum 1" in capsys.readouterr().err
