"""`ranklens check`: the documented example (docs/check.md) passes and fails as stated, from the CLI
and from Python; the JUnit file parses; a broken file names its key path; the bounds and the
non-inferiority test against references written here."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from ranklens.check import Expectation, _non_inferior_verdict, _within, check
from ranklens.cli import main

GATE = Path(__file__).with_name("gate.toml")
BOW = "callable-pair:tests.check.helpers:bag_of_words"
DEGRADED = "callable:tests.check.helpers:first_words"


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("gate")
    shutil.copy(GATE, d / "gate.toml")
    return d / "gate.toml"


def test_the_example_passes_for_an_order_sensitive_model_and_a_sound_first_stage(gate):
    report = check(gate)
    assert [v.passed for v in report.verdicts] == [True, True], report.text()
    order, asl = report.verdicts
    assert order.value <= -0.2 and order.detail == "significant"
    assert asl.type == "non_inferior" and asl.p_value < 0.05
    with pytest.raises(dataclasses.FrozenInstanceError):
        order.passed = False  # type: ignore[misc]


def test_a_bag_of_words_candidate_and_a_degraded_first_stage_fail(gate):
    report = check(gate, models={"candidate": BOW, "first_stage": DEGRADED})
    assert not report.passed
    order, asl = report.verdicts
    assert not order.passed and order.value == 0.0  # shuffled text scores exactly the same
    assert not asl.passed and asl.value > 0  # ASL@g1-10: higher is worse
    assert "FAIL" in report.text()


def test_cli_exit_codes_junit_and_markdown(gate, tmp_path):
    junit, md = tmp_path / "out.xml", tmp_path / "out.md"
    assert main(["-q", "check", str(gate), "--junit", str(junit), "--markdown", str(md)]) == 0
    suite = ET.parse(junit).getroot().find("testsuite")
    assert len(suite.findall("testcase")) == 2 and not suite.findall("testcase/failure")
    assert main(["-q", "check", str(gate), "--model", f"candidate={BOW}", "--junit", str(junit),
                 "--markdown", str(md)]) == 1
    root = ET.parse(junit).getroot()
    cases = root.findall("testsuite/testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(cases) == 2 and len(failed) == 1 and "word order" in failed[0].get("name")
    assert root.find("testsuite").get("failures") == "1"
    assert "**FAIL**" in md.read_text() and "1 of 2 expectations fail" in md.read_text()


def test_update_baseline_records_numbers_with_provenance_and_max_change_reads_them(gate, tmp_path):
    text = gate.read_text() + ('\n[[expect]]\nname = "order score stable"\nanalysis = "probes"\nmodel = "candidate"\n'
                               'probe = "tr-shuffle-words"\nmetric = "score"\nmax_change = 0.01\n')
    f = gate.with_name("gate-ref.toml")
    f.write_text(text)
    first = check(f)
    assert not first.verdicts[2].passed and "--update-baseline" in first.verdicts[2].detail
    check(f, update_baseline=True)
    ref = json.loads(gate.with_name("check-reference.json").read_text())
    (key, entry), = [(k, v) for k, v in ref["values"].items() if "stable" in k]
    assert entry["value"] == first.verdicts[0].value
    assert entry["provenance"]["analysis_params"]["cap"] == 30 and entry["provenance"]["components"]
    assert check(f).verdicts[2].passed


@pytest.mark.parametrize("broken, path", [
    ('probe = "tr-shuffle-words"\nscore = "about -0.2"', "expect[0].score"),
    ('probe = "tr-shuffle-words"\nscore = "<= -0.2"\nmodel = "nobody"', "expect[0].model"),
    ('metric = "nope"\nbound = "<= 1"', "expect[0].metric"),
])
def test_a_broken_file_names_its_key_path_and_exits_2(tmp_path, capsys, broken, path):
    f = tmp_path / "bad.toml"
    f.write_text('[models.candidate]\nspec = "bm25"\n[datasets.demo]\nspec = "demo"\n'
                 f'[[expect]]\nanalysis = "probes"\n{broken}\n')
    assert main(["check", str(f)]) == 2
    assert path in capsys.readouterr().err


def test_unknown_analysis_and_missing_expect_are_reported_together(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text('[models.candidate]\nspec = "nope:x"\n[datasets.demo]\nspec = "demo"\n[[expect]]\nanalysis = "zzz"\n')
    assert main(["check", str(f)]) == 2
    err = capsys.readouterr().err
    assert "expect[0].analysis" in err and "models.candidate.spec" in err


def test_bounds():
    assert _within(-0.3, "<= -0.2") and not _within(-0.1, "<= -0.2")
    assert _within(0.5, "0.2..0.8") and not _within(0.9, "0.2..0.8")
    assert _within(1.0, "> 0.5") and not _within(0.5, "> 0.5") and not _within(float("nan"), ">= 0")


def _fake(values_a, values_b, measure="ASL@g1-10"):
    rows = [{"model": m, "query_id": f"q{i}", "measure": measure, "value": v}
            for m, vals in (("cand", values_a), ("base", values_b)) for i, v in enumerate(vals)]

    class R:
        kind = "asl-evaluate"
        table = pd.DataFrame({"model": ["cand", "base"]})
        tables = {"per_query": pd.DataFrame(rows)}
    return R()


@pytest.mark.parametrize("shift", [-0.5, 0.0, 0.3, 1.0])
def test_non_inferiority_is_the_one_sided_paired_test_shifted_by_the_margin(shift):
    from scipy import stats

    from ranklens.registry import kind_info

    rng = np.random.default_rng(0)
    base = rng.uniform(2, 6, 30)
    cand = base + shift + rng.normal(0, 0.4, 30)  # ASL: lower is better, so shift > 0 is worse
    e = Expectation("expect[0]", "ni", "asl", "asl-evaluate", "cand", "ASL@g1-10", baseline="base",
                    non_inferior=0.1, alpha=0.05)
    v = _non_inferior_verdict(e, _fake(cand, base), kind_info("asl-evaluate"), "d", "")
    margin = 0.1 * base.mean()
    ref = stats.ttest_rel(-cand + margin, -base, alternative="greater").pvalue
    assert v.p_value == pytest.approx(ref, rel=1e-9)
    assert v.passed == (ref < 0.05)
    assert v.value == pytest.approx(cand.mean() - base.mean())


CRANFIELD = Path(__file__).with_name("cranfield.toml")


@pytest.fixture
def cranfield_gate(tmp_path, shared_data, monkeypatch) -> Path:
    monkeypatch.setenv("RANKLENS_DATA", str(shared_data))  # the named collection, found by the registry
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "cache"))
    shutil.copy(CRANFIELD, tmp_path / "cranfield.toml")
    return tmp_path / "cranfield.toml"


@pytest.mark.realdata
@pytest.mark.slow
def test_cranfield_example_minilm_and_a_sound_first_stage_pass(cranfield_gate, capsys):
    """docs/check.md's Cranfield gate: MiniLM is sensitive to word order (whole-document shuffle,
    120 samples) and BM25 (k1 1.2, b 0.75) is not worse than BM25 (k1 0.9, b 0.4) on ASL."""
    assert main(["-q", "check", str(cranfield_gate)]) == 0
    out = capsys.readouterr().out
    assert out.count("PASS") == 2 and "2 passed, 0 failed" in out
    report = check(cranfield_gate)  # Python: the same verdicts, from the stored results
    order, asl = report.verdicts
    assert order.passed and order.value <= -0.2 and order.detail == "significant"
    assert asl.passed and asl.type == "non_inferior" and asl.value < 0 and asl.p_value < 0.05


@pytest.mark.realdata
def test_cranfield_example_bag_of_words_and_a_degraded_first_stage_fail(cranfield_gate, capsys, tmp_path):
    """The same gate with a bag-of-words candidate (shuffling changes its words only where re-joined
    tokens split one: a score near 0, not significant)
    and a first stage that reads four words of each document fails both rows, exit 1, from the
    CLI and from Python."""
    junit = tmp_path / "gate.xml"
    assert main(["-q", "check", str(cranfield_gate), "--model", f"candidate={BOW}",
                 "--model", f"first_stage={DEGRADED}", "--junit", str(junit)]) == 1
    assert capsys.readouterr().out.count("FAIL") == 2
    assert len(ET.parse(junit).getroot().findall("testsuite/testcase/failure")) == 2
    report = check(cranfield_gate, models={"candidate": BOW, "first_stage": DEGRADED})
    order, asl = report.verdicts
    assert not order.passed and abs(order.value) < 0.05 and order.detail == "not significant"
    assert not asl.passed and asl.value > 1.972 and asl.p_value > 0.05  # ASL grows by more than the margin
