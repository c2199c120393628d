"""The probes CLI: its errors, its options at the experiment door, and the tools under ``ranklens
probes`` reading a saved result (the doors' identity is checked for every analysis by
tests/core/test_doors.py)."""

from __future__ import annotations

import pytest

from ranklens.cli import main
from ranklens.results import Result


def _tables(root):
    return {Result.load(d.parent).kind: Result.load(d.parent) for d in sorted(root.rglob("result.json"))}


@pytest.mark.slow
def test_the_tools_read_what_the_cli_saved(tmp_path, monkeypatch, capsys):
    # the same data folder at both doors: an empty one (probes needing data skip, asked for by name)
    monkeypatch.setenv("RANKLENS_DATA", str(tmp_path / "no-data"))
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["-q", "probes", "--collection", "demo", "--model", "bm25", "--model", "tfidf",
                 "--missing-data", "skip", "--out", str(tmp_path / "cli"), "--no-plots"]) == 0
    cli = _tables(tmp_path / "cli")
    assert set(cli) == {"probes-table", "probes-delta-sweep"}
    t = cli["probes-table"]
    assert t.provenance.analysis_params["misspellings"] == "auto" and t.provenance.analysis_params["cap"] == 0
    assert any("ds-paraphrase-mrpc skipped" in w for w in t.warnings)
    capsys.readouterr()
    # the tools: samples with their texts, the paper's tables
    assert main(["probes", "show", str(tmp_path / "cli"), "tr-shuffle-words", "-n", "2"]) == 0
    shown = capsys.readouterr().out
    assert shown.count("## tr-shuffle-words sample") == 2 and "bm25: R(q,d1)=" in shown
    assert main(["probes", "table", str(tmp_path / "cli" / "probes-table"), "--format", "markdown"]) == 0
    assert "Table 1: measure-and-match probes" in capsys.readouterr().out


def test_probes_cli_errors(tmp_path, capsys):
    assert main(["probes", "--collection", "demo", "--model", "bm25", "--probes", "nosuch*",
                 "--out", str(tmp_path)]) == 1
    assert "no probe matches 'nosuch*'" in capsys.readouterr().err
    assert main(["probes", "--collection", "demo", "--model", "bm25", "--cap", "abc", "--out", str(tmp_path)]) == 1
    assert "--cap: expected an integer" in capsys.readouterr().err
    assert main(["probes", "--collection", "demo", "--model", "bm25", "--cap", "-5", "--out", str(tmp_path)]) == 1
    assert "--cap: -5 is below the minimum 0" in capsys.readouterr().err
    assert main(["probes", "--collection", "demo", "--model", "bm25"]) == 1
    assert "--out DIR is required" in capsys.readouterr().err


def test_experiment_params_accept_every_probe_option(tmp_path):
    from ranklens.drive import step_params
    from ranklens.errors import ValidationError

    got = step_params("probes", {"data_dir": str(tmp_path), "misspellings": "char", "nonrel_source": "other-query",
                                 "mm_len_tolerance": 0.1, "delta": ["p25", "bm25=0.5"]})
    assert got["data_dir"] == str(tmp_path) and got["delta"] == ("p25", "bm25=0.5")
    with pytest.raises(ValidationError, match="params.nonrel_source"):
        step_params("probes", {"nonrel_source": "elsewhere"})
    with pytest.raises(ValidationError, match="cannot read delta"):
        step_params("probes", {"delta": ["often"]})


def test_pairwise_callable_ranker(tmp_path, monkeypatch, capsys):
    """A ``fn(query, text) -> float`` is a ``callable-pair:`` spec; given as ``callable:`` (which
    takes lists) the CLI says which signature it expects instead of an AttributeError."""
    (tmp_path / "pairfn.py").write_text(
        "def score(q, t):\n    return float(len(set(q.lower().split()) & set(t.lower().split())))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "cache"))
    base = ["probes", "--collection", "demo", "--probes", "tr-shuffle-words", "--delta", "0", "--sweep", "none",
            "--no-plots"]
    assert main([*base, "--model", "callable:pairfn:score", "--out", str(tmp_path / "a")]) == 1
    err = capsys.readouterr().err
    assert "must take (queries: list[str], texts: list[str])" in err and "callable-pair:" in err
    assert "Traceback" not in err
    assert main([*base, "--model", "f=callable-pair:pairfn:score", "--out", str(tmp_path / "b")]) == 0
    res = Result.load(tmp_path / "b" / "probes-table")
    texts = res.tables["texts"].set_index("sample_id")
    smp = res.tables["samples"].set_index("sample_id")

    def ref(q, t):  # the function itself, one pair at a time
        return float(len(set(q.lower().split()) & set(t.lower().split())))

    for sid, row in texts.iterrows():
        assert smp.loc[sid, "score_1"] == ref(row["query"], row["text_1"])
        assert smp.loc[sid, "score_2"] == ref(row["query"], row["text_2"])


def test_an_option_only_an_unselected_probe_reads_is_an_error(tmp_path, capsys):
    """--pairs-file (the 'pairs' probe's) and --expander (tr-doc2query's) with neither probe
    selected were silently ignored; now a located error, while a selection that has the probe
    (a glob or a -rel/-nonrel variant) accepts them."""
    from ranklens.declare import make_params
    from ranklens.probes.declaration import Params

    pairs = tmp_path / "p.tsv"
    pairs.write_text("text_a\ttext_b\tquery\na b\tb a\ta\n")
    assert main(["probes", "--collection", "demo", "--model", "bm25", "--probes", "tr-typo", "--cap", "5",
                 "--misspellings", "char", "--pairs-file", str(pairs), "--out", str(tmp_path / "o")]) == 2
    assert "--pairs-file: only the 'pairs' probe reads it" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    assert Params(probes=("tr-typo",), expander="x").check() != []
    for probes in (("pairs",), ("p*",), ("tr-typo", "pairs")):
        assert Params(probes=probes, pairs_file=str(pairs)).check() == []
    assert Params(probes=("tr-doc2query-rel",), expander="x").check() == []
    assert make_params(Params, {}).check() == []  # the defaults (no pairs file, no expander)


def test_a_probe_name_that_matches_nothing_fails_the_check_before_anything_runs(tmp_path):
    """``run --check`` validated every parameter but the probe names: 'tr-nosuch' passed and the
    run failed later. Now Params.check names it (probes and sweep alike); globs that match pass."""
    from ranklens.probes.declaration import Params

    (problem,) = Params(probes=("tr-nosuch",)).check()
    assert problem.startswith("probes: no probe matches 'tr-nosuch'.") and "ranklens ls probes" in problem
    assert Params(probes=("tr-typo",), sweep=("nope-*",)).check()[0].startswith("sweep: no probe matches 'nope-*'")
    assert Params(probes=("tr-*", "mm-rel-*"), sweep=("tr-typo",)).check() == []
    exp = tmp_path / "e.toml"
    exp.write_text('[models.b]\nspec = "bm25"\n[datasets.d]\nspec = "demo"\n[[analyses]]\ntype = "probes"\n'
                   'datasets = ["d"]\nparams = { probes = ["tr-nosuch"] }\n')
    assert main(["run", str(exp), "--check"]) == 1


def test_typo_max_edit_with_character_typos_is_an_ignored_option(tmp_path):
    from ranklens.probes.declaration import Params

    (problem,) = Params(misspellings="char", typo_max_edit=1).check()
    assert problem.startswith("typo_max_edit: ignored with misspellings = 'char'")
    assert Params(misspellings="char").check() == [] and Params(typo_max_edit=1).check() == []
    assert main(["probes", "--collection", "demo", "--model", "bm25", "--probes", "tr-typo", "--cap", "5",
                 "--misspellings", "char", "--typo-max-edit", "1", "--out", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()
