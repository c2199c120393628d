"""`ranklens results diff A B`: two runs of one experiment with one parameter changed name that
parameter as the cause of every changed number; changes are tested on the per-query values."""

from __future__ import annotations

import pytest

from ranklens.cli import main
from ranklens.diff import diff_results
from ranklens.experiment import load_experiment, run_experiment
from ranklens.results import Result

EXP = """
results = "{out}"
[models.bm25]
spec = "bm25"
[models.tfidf]
spec = "tfidf"
[datasets.demo]
spec = "demo"
[[analyses]]
type = "asl"
params = {{ k = {k}, n_resamples = 100, measures = ["ASL", "nDCG@10"] }}
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("diff")
    out = {}
    for name, k in (("a", 20), ("b", 10), ("c", 20)):
        f = d / f"{name}.toml"
        f.write_text(EXP.format(out=name, k=k))
        run_experiment(load_experiment(f), report=False, show_progress=False)
        out[name] = d / name
    return out


def test_one_changed_parameter_is_named_as_the_cause_of_every_changed_number(runs):
    d = diff_results(runs["a"], runs["b"])
    assert not d.only_a and not d.only_b  # step directories differ by hash, yet pair
    assert d.changed and len(d.numbers) > len(d.changed)
    for n in d.changed:
        assert "analysis_params.k: 20 -> 10" in n.causes, (n, n.causes)
        assert not any(c.startswith("analysis_params.") and not c.startswith("analysis_params.k:") for c in n.causes)


def test_the_same_experiment_twice_changes_nothing(runs):
    d = diff_results(runs["a"], runs["c"])
    assert d.numbers and not d.changed


def test_a_change_is_tested_on_the_per_query_values(runs):
    from scipy import stats

    d = diff_results(runs["a"], runs["b"])
    (n,) = [n for n in d.numbers if n.kind == "asl-evaluate" and n.model == "bm25" and n.metric == "ASL"]
    pq = {k: Result.load(next(runs[k].glob("asl-demo-*/asl-evaluate"))).tables["per_query"] for k in "ab"}
    a, b = ((f[(f.model == "bm25") & (f.measure == "ASL")].set_index("query_id")["value"]) for f in pq.values())
    common = a.index.intersection(b.index)
    assert n.p_value == pytest.approx(stats.ttest_rel(b[common], a[common]).pvalue)
    assert n.n == len(common) and n.changed


def test_cli_text_and_markdown(runs, capsys):
    assert main(["results", "diff", str(runs["a"]), str(runs["b"]), "--changed"]) == 0
    out = capsys.readouterr().out
    assert "analysis_params.k: 20 -> 10" in out and "changed" in out.splitlines()[2]
    assert main(["results", "diff", str(runs["a"]), str(runs["b"]), "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.count("\n| asl-") > 0 and "| provenance that differs |" in md


def test_a_directory_without_results_is_a_located_error(tmp_path, runs, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["results", "diff", str(runs["a"]), str(tmp_path / "empty")]) == 1
    assert "no result directory" in capsys.readouterr().err


def _between(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text[i:text.index(end, i)]


def test_report_diff_section_names_the_cause_of_every_changed_number(runs, tmp_path):
    import html
    import re
    import shutil

    d = diff_results(runs["a"], runs["b"])
    b = tmp_path / "k<10>"  # a results folder whose name needs escaping
    shutil.copytree(runs["b"], b)
    out = tmp_path / "report.html"
    assert main(["report", str(b), "--diff", str(runs["a"]), "-o", str(out)]) == 0
    page = out.read_text()
    section = _between(page, '<section class="analysis diff" id="diff"', "</section>")
    assert '<a href="#diff">Results diff</a>' in page and "k<10>" not in page and "k&lt;10&gt;" in section
    n = len(d.changed)
    assert f"{len(d.numbers)} shared numbers, {n} changed" in section
    assert f"<code>{html.escape('analysis_params.k: 20 -> 10')}</code>: behind {n} of the {n} changed" in section
    changed = _between(section, "<h3>Changed numbers</h3>", "</table>")
    assert len(re.findall(r"<tr><td", changed)) == n  # one row per changed number, none unchanged
    assert changed.count('data-v="' + html.escape("analysis_params.k: 20 -> 10")) == n  # its cause cell
    every = _between(section, "all shared numbers", "</table>")
    assert len(re.findall(r"<tr><td", every)) == len(d.numbers)
    md = tmp_path / "report.md"
    assert main(["report", str(runs["b"]), "--diff", str(runs["a"]), "-o", str(md)]) == 0
    text = md.read_text()
    assert "## Results diff" in text and text.count("analysis_params.k: 20 -> 10") == n


def test_report_diff_needs_one_directory_and_an_existing_other(runs, tmp_path, capsys):
    out = str(tmp_path / "r.html")
    assert main(["report", str(runs["a"]), str(runs["b"]), "--diff", str(runs["c"]), "-o", out]) == 1
    assert "--diff" in capsys.readouterr().err
    assert main(["report", str(runs["b"]), "--diff", str(tmp_path / "nowhere"), "-o", out]) == 1
    assert "nowhere: not a directory" in capsys.readouterr().err


def test_the_html_section_alone_is_the_report_section(runs):
    d = diff_results(runs["a"], runs["c"])  # nothing changed
    section = d.to_html()
    assert section.startswith('<section class="analysis diff"') and "No shared number changed." in section
    assert "0 changed" in section and "all shared numbers" in section
    assert "all shared numbers" not in d.to_html(changed_only=True)
