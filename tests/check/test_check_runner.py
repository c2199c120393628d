"""`ranklens check` runs its steps through the experiment runner: a re-check reuses the stored
results, a changed model re-runs only its own steps, a Python object gives the numbers its spec
gives; the JUnit file has the JUnit structure; every broken input is a located exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

import ranklens.drive
from ranklens.check import check
from ranklens.cli import main
from tests.check.helpers import first_words

GATE = Path(__file__).with_name("gate.toml")
BOW = "callable-pair:tests.check.helpers:bag_of_words"
DEGRADED = "callable:tests.check.helpers:first_words"


@pytest.fixture
def gate(tmp_path: Path) -> Path:
    shutil.copy(GATE, tmp_path / "gate.toml")
    return tmp_path / "gate.toml"


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The analyses that really ran (the experiment runner calls drive.run_analysis per step)."""
    seen: list[str] = []
    real = ranklens.drive.run_analysis

    def counting(analysis, *args, **kw):
        seen.append(str(analysis))
        return real(analysis, *args, **kw)

    monkeypatch.setattr(ranklens.drive, "run_analysis", counting)
    return seen


def test_a_recheck_reuses_the_results_and_a_changed_model_reruns_only_its_step(gate, calls):
    first = check(gate)
    assert sorted(calls) == ["asl", "probes"]
    steps = sorted(p.name for p in (gate.parent / "check-results").iterdir() if (p / ".done").is_file())
    assert [s.rsplit("-", 1)[0] for s in steps] == ["asl-demo", "probes-demo"]  # the runner's step ids
    again = check(gate)
    assert sorted(calls) == ["asl", "probes"]  # nothing ran
    assert again.verdicts == first.verdicts
    swapped = check(gate, models={"candidate": BOW})
    assert sorted(calls) == ["asl", "probes", "probes"]  # only the candidate's step
    assert [v.passed for v in swapped.verdicts] == [False, True]


def test_a_python_object_gives_the_numbers_of_its_spec(gate):
    by_spec = check(gate, models={"first_stage": DEGRADED})
    by_object = check(gate, models={"first_stage": first_words})
    assert not by_spec.verdicts[1].passed and not by_object.verdicts[1].passed
    assert by_object.verdicts[1].value == pytest.approx(by_spec.verdicts[1].value, rel=1e-12)
    assert by_object.verdicts[1].p_value == pytest.approx(by_spec.verdicts[1].p_value, rel=1e-9)
    assert by_object.verdicts[1].result_dir != by_spec.verdicts[1].result_dir  # its own step (the object spec)


def test_the_junit_file_has_the_junit_structure(gate, tmp_path):
    junit = tmp_path / "check.xml"
    assert main(["-q", "check", str(gate), "--model", f"first_stage={DEGRADED}", "--junit", str(junit)]) == 1
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites" and (root.get("tests"), root.get("failures")) == ("2", "1")
    (suite,) = root.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["candidate is sensitive to word order [demo]",
                                              "first stage not worse than BM25 on ASL@g1-10 [demo]"]
    assert [c.get("classname") for c in cases] == ["ranklens.check.bound", "ranklens.check.non_inferior"]
    assert cases[0].find("failure") is None and cases[0].find("system-out").text.startswith("PASS")
    failure = cases[1].find("failure")
    assert failure.get("type") == "non_inferior" and failure.get("message").startswith("FAIL")
    assert "not worse than bm25 by > 0.05" in failure.text


@pytest.mark.parametrize("text, path", [
    ('[[analyses]]\ntype = "probes"\nparams = { cap = "many" }\n', "analyses[0].params.cap"),
    ('[[analyses]]\ntype = "probes"\nparams = { capp = 3 }\n', "analyses[0].params.capp"),
    ('[[expect]]\nanalysis = "asl"\nmodel = "candidate"\nmeasure = "ASL"\nnon_inferior = 0.05\n',
     "expect[1].baseline"),
    ('[[expect]]\nanalysis = "probes"\nprobe = "tr-shuffle-words"\nscore = "<= -0.2"\ndataset = "dl19"\n',
     "expect[1].dataset"),
    ('[[expect]]\nanalysis = "asl"\nbaseline = "bm25"\nmeasure = "ASL"\nnon_inferior = -1\n',
     "expect[1].non_inferior"),
])
def test_a_broken_file_names_its_key_path_and_runs_nothing(tmp_path, capsys, calls, text, path):
    f = tmp_path / "bad.toml"
    f.write_text('[models.candidate]\nspec = "bm25"\n[models.bm25]\nspec = "bm25"\n[datasets.demo]\nspec = "demo"\n'
                 '[[expect]]\nanalysis = "probes"\nprobe = "tr-shuffle-words"\nscore = "<= -0.2"\n' + text)
    assert main(["check", str(f)]) == 2
    err = capsys.readouterr().err
    assert path in err and str(f) in err and calls == []


def test_invalid_toml_is_located_exit_2(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text('[models.candidate]\nspec = "bm25"\n[[expect]\n')
    assert main(["check", str(f)]) == 2
    err = capsys.readouterr().err
    assert str(f) in err and "line 3" in err
