"""``ranklens evaluate`` / ``ranklens asl``: runs with the same name, CI columns, duplicates,
``asl tracks --unretrieved expected``."""

from __future__ import annotations

import pandas as pd
import pytest

from ranklens.cli import main

QRELS = "1 0 b 1\n1 0 d 1\n2 0 x 1\n"
CUT = "1 Q0 a 1 5 t\n1 Q0 b 2 4 t\n2 Q0 x 1 3 t\n"  # cut to the top 2/1
FULL = "1 Q0 b 1 5 t\n1 Q0 a 2 4 t\n1 Q0 d 3 3 t\n2 Q0 y 1 3 t\n2 Q0 x 2 2 t\n"


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    for top, text in (("official", CUT), ("official_full_depth", FULL)):
        d = tmp_path / top / "dl20"
        d.mkdir(parents=True)
        (d / "p_bm25.run").write_text(text)
    (tmp_path / "official" / "dl20" / "other.run").write_text(FULL)
    return tmp_path


def _table(out: str) -> pd.DataFrame:
    lines = [ln for ln in out.strip().splitlines() if not ln.startswith("#")]
    header = lines[0].split()
    return pd.DataFrame([ln.split() for ln in lines[1:]], columns=header)


def _tsv(out: str) -> pd.DataFrame:
    lines = [ln for ln in out.strip().splitlines() if not ln.startswith("#")]
    return pd.DataFrame([ln.split("\t") for ln in lines[1:]], columns=lines[0].split("\t"))


def test_same_run_name_in_two_folders_keeps_both(tree, capsys):
    rc = main(["evaluate", str(tree / "qrels.txt"), str(tree / "official" / "dl20"),
               str(tree / "official_full_depth" / "dl20"), "-m", "ASL", "--format", "table",
               "--unretrieved", "lower_bound"])
    assert rc == 0
    t = _table(capsys.readouterr().out)
    assert set(t["model"]) == {"official/dl20/p_bm25", "official_full_depth/dl20/p_bm25", "other"}
    asl = dict(zip(t["model"], t["value"].astype(float)))
    # cut: q1 a b -> SL(b)=2, d unretrieved: 1 + 1 = 2; q2 x -> 1 => (2 + 1) / 2
    assert asl["official/dl20/p_bm25"] == pytest.approx(1.5)
    # full: q1 b a d -> 1, 2; q2 y x -> 2 => (1.5 + 2) / 2
    assert asl["official_full_depth/dl20/p_bm25"] == pytest.approx(1.75)


def test_baseline_by_short_name_must_be_unambiguous(tree, capsys):
    args = ["evaluate", str(tree / "qrels.txt"), str(tree / "official" / "dl20"),
            str(tree / "official_full_depth" / "dl20"), "-m", "AP"]
    assert main([*args, "--baseline", "p_bm25"]) == 1
    err = capsys.readouterr().err
    assert "'p_bm25' is ambiguous" in err
    assert "official/dl20/p_bm25" in err and "official_full_depth/dl20/p_bm25" in err
    assert main([*args, "--baseline", "official_full_depth/dl20/p_bm25", "--resamples",
                 "200"]) == 0
    assert main([*args, "--baseline", "nosuch"]) == 1
    assert "no run is named 'nosuch'" in capsys.readouterr().err


def test_same_file_twice_is_an_error(tree, capsys):
    f = str(tree / "official" / "dl20" / "p_bm25.run")
    assert main(["evaluate", str(tree / "qrels.txt"), f, f]) == 1
    assert "is given twice" in capsys.readouterr().err


def test_asl_rrie_and_chain_tell_same_named_runs_apart(tree, capsys):
    a = str(tree / "official" / "dl20" / "p_bm25.run")
    b = str(tree / "official_full_depth" / "dl20" / "p_bm25.run")
    assert main(["asl", "--out", str(tree / "rrie"), "rrie", str(tree / "qrels.txt"), a, b,
                 "--format", "table"]) == 0
    out = capsys.readouterr().out
    assert "value_a" in out
    assert (tree / "rrie" / "asl-rrie" / "rrie.png").is_file()
    assert main(["asl", "--out", str(tree / "d"), "distribution", str(tree / "qrels.txt"), a, b,
                 "--format", "tsv"]) == 0
    t = _tsv(capsys.readouterr().out)
    assert set(t["model"]) == {"official/dl20/p_bm25", "official_full_depth/dl20/p_bm25"}
    assert main(["asl", "--out", str(tree / "c"), "chain", str(tree / "qrels.txt"),
                 str(tree / "official" / "dl20"), str(tree / "official_full_depth" / "dl20")]) == 0


def test_ci_columns(tree, capsys):
    args = ["evaluate", str(tree / "qrels.txt"), str(tree / "official_full_depth" / "dl20"),
            str(tree / "official" / "dl20" / "other.run"), "-m", "ASL", "-m", "AP",
            "--format", "table"]
    assert main(args) == 0
    assert "ci_low" not in capsys.readouterr().out
    args += ["--resamples", "300"]  # read by --ci and --baseline only (alone: an ignored option, exit 2)
    assert main(args) == 2
    assert "--n-resamples: ignored unless --ci or --baseline" in capsys.readouterr().err
    assert main([*args, "--ci", "--confidence", "0.9"]) == 0
    t = _table(capsys.readouterr().out)
    assert list(t.columns) == ["model", "measure", "value", "ci_low", "ci_high"]
    v, lo, hi = (t[c].astype(float) for c in ("value", "ci_low", "ci_high"))
    assert ((lo <= v) & (v <= hi)).all()
    assert main([*args, "--baseline", "other"]) == 0  # a baseline shows the CIs too
    t = _table(capsys.readouterr().out)
    assert {"ci_low", "ci_high", "ttest_p_adj"} <= set(t.columns)
    assert main([*args, "--ci", "--confidence", "95"]) == 1
    assert "--confidence must be between 0 and 1" in capsys.readouterr().err


def test_duplicates_flag(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text("q 0 a 1\nq 0 c 1\n")
    (tmp_path / "dup.run").write_text("q Q0 a 1 4 t\nq Q0 b 2 3 t\nq Q0 a 3 2 t\nq Q0 c 4 1 t\n")
    args = ["evaluate", str(tmp_path / "qrels.txt"), str(tmp_path / "dup.run"), "-m", "ASL",
            "-m", "RR", "--format", "tsv"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "dup.run: duplicate (query_id, doc_id) = ('q', 'a') at ranks 1 and 3" in err
    assert "--duplicates best" in err
    assert main([*args, "--duplicates", "best"]) == 0
    t = _tsv(capsys.readouterr().out)
    got = dict(zip(t["measure"], t["value"].astype(float)))
    assert got == {"ASL": 1.5, "RR": 1.0}  # a b c: SL(a) 1, SL(c) 2


def test_asl_tracks_expected_unretrieved(tmp_path, capsys):
    for name in ("t1", "t2"):
        d = tmp_path / name / "runs"
        d.mkdir(parents=True)
        (tmp_path / name / "qrels.txt").write_text(QRELS)
        (d / "a.run").write_text(CUT)
        (d / "b.run").write_text(FULL)
    base = ["asl", "--out", str(tmp_path / "out"), "--unretrieved", "expected"]
    assert main([*base, "tracks", str(tmp_path), "--format", "tsv"]) == 1
    assert "needs collection_size" in capsys.readouterr().err
    assert main([*base, "--collection-size", "50", "tracks", str(tmp_path), "--format", "tsv"]) == 0
    cap = capsys.readouterr()
    out = cap.out
    block = out.split("\n\n")[0]  # several results' tables are separated by a blank line
    t = _tsv(block)
    asl = t[t["measure"] == "ASL"]
    # run a misses d for q1: 47 non-relevant unretrieved docs, d expected after half of them:
    # SL(d) = 1 + 1 + 47/2 = 25.5 -> ASL_q1 = (2 + 25.5) / 2, q2: 1 -> 7.375
    assert dict(zip(asl["track"], asl["max"].astype(float))) == {"t1": 7.375, "t2": 7.375}
    assert dict(zip(asl["track"], asl["best_model"])) == {"t1": "b", "t2": "b"}
    assert dict(zip(asl["track"], asl["best_value"].astype(float))) == {"t1": 1.75, "t2": 1.75}
    assert "ranklens: asl-table2:" in cap.err and (tmp_path / "out" / "asl-table2" / "result.json").is_file()
