"""The same probe command run from three working directories (temporary folders, no ``../shared``)
gives the same table, or the same located error; character typos only when asked for, under their
own name."""

from __future__ import annotations

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.results import Result

CMD = ["-q", "probes", "--collection", "demo", "--model", "bm25", "--probes", "tr-typo,tr-shuffle-words",
       "--cap", "8", "--delta", "0.5", "--sweep", "none", "--n-boot", "10", "--no-plots"]


def _dirs(tmp_path):
    out = []
    for i, rel in enumerate(["a", "a/b/c", "x"]):
        d = tmp_path / "cwd" / rel
        d.mkdir(parents=True, exist_ok=True)
        out.append((i, d))
    return out


def _table(out) -> pd.DataFrame:
    t = Result.load(out / "probes-table").table
    return t[["probe", "model", "n", "score"]].reset_index(drop=True)


def test_missing_data_is_the_same_located_error_everywhere(tmp_path, monkeypatch, capsys):
    errors = set()
    for i, d in _dirs(tmp_path):
        monkeypatch.chdir(d)
        assert main([*CMD, "--out", str(tmp_path / f"out{i}")]) == 1
        err = capsys.readouterr().err
        assert "'misspellings'" in err and "ranklens data fetch misspellings" in err and "Looked in" in err
        errors.add(err)
    assert len(errors) == 1


def test_same_table_from_every_working_directory(tmp_path, monkeypatch):
    root = tmp_path / "data"
    (root / "misspellings").mkdir(parents=True)
    (root / "misspellings" / "list.tab").write_text(
        "".join(f"{w[:-1]}{w[-1] * 2}\t{w}\n" for w in ("search", "engine", "document", "query", "results",
                                                       "information", "retrieval", "ranking", "model", "system")))
    monkeypatch.setenv("RANKLENS_DATA", str(root))
    tables = []
    for i, d in _dirs(tmp_path):
        monkeypatch.chdir(d)
        assert main([*CMD, "--out", str(tmp_path / f"out{i}")]) == 0
        tables.append(_table(tmp_path / f"out{i}"))
    assert set(tables[0].probe) == {"tr-typo", "tr-shuffle-words"}
    for t in tables[1:]:
        pd.testing.assert_frame_equal(t, tables[0])


def test_character_typos_only_by_name_and_under_their_own_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([*CMD, "--misspellings", "char", "--out", str(tmp_path / "char")]) == 0
    t = Result.load(tmp_path / "char" / "probes-table")
    assert set(t.table.probe) == {"tr-typo-char", "tr-shuffle-words"}
    assert t.provenance.analysis_params["misspellings"] == "char"
    # skipping is asked for by name too, and then said
    assert main([*CMD, "--missing-data", "skip", "--out", str(tmp_path / "skip")]) == 0
    s = Result.load(tmp_path / "skip" / "probes-table")
    assert any("tr-typo skipped" in w and "misspellings" in w for w in s.warnings)
    assert s.provenance.analysis_params["missing_data"] == "skip"


@pytest.mark.parametrize("bad", ["maybe"])
def test_missing_data_choice_is_checked(tmp_path, bad, capsys):
    assert main([*CMD, "--missing-data", bad, "--out", str(tmp_path / "o")]) == 1
    assert "missing" in capsys.readouterr().err
