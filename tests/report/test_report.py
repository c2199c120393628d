from __future__ import annotations

import io
import re

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.report import Report
from ranklens.results import Result, make_provenance
from ranklens.store import ResultsStore, summary_rows

from .plotting import use_plots

EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def _res(kind="asl-evaluate", text=EVIL):
    table = pd.DataFrame({"model": ["bm25", "minilm", "bm25"], "doc": [text, "plain", "b"], "value": [0.5, 0.7, 0.1]})
    return Result(kind=kind, summary={"rows": [
        {"item": "all", "model": "bm25", "dataset": "demo", "metric": "ASL", "value": 3.5, "n": 10},
        {"item": "all", "model": "minilm", "dataset": "demo", "metric": "ASL", "value": 2.5, "n": 10}],
        "note": text}, table=table, provenance=make_provenance(params={"q": text}))


def test_html_escapes_every_text_and_is_self_contained(tmp_path):
    _res().save(tmp_path / "r1")
    html = Report.from_dirs([tmp_path], title="T <b>").render_html()
    assert "<script>alert(1)</script>" not in html and 'onerror="alert(2)"' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "T &lt;b&gt;" in html
    assert not re.search(r'(src|href)="https?://', html)  # no CDN
    assert html.count("<script>") == 1  # only the report's own inline script


def test_plots_are_inline_svg_and_failures_are_reported(tmp_path, monkeypatch):
    _res().save(tmp_path / "r1")

    use_plots(monkeypatch, {"asl-evaluate": ["tests.report.plotting:good", "tests.report.plotting:bad"]})
    html = Report.from_dirs([tmp_path]).render_html()
    assert "<svg" in html and "plot tests.report.plotting:bad failed" in html


def test_store_indexes_lists_compares_and_reindexes(tmp_path):
    _res().save(tmp_path / "a")
    _res(kind="probes-table").save(tmp_path / "b")
    store = ResultsStore(tmp_path)
    store.add(tmp_path / "a", dataset="demo")
    store.add(tmp_path / "b", dataset="demo")
    assert set(store.list()["kind"]) == {"asl-evaluate", "probes-table"}
    assert list(store.list(kind="asl*")["name"]) == ["a"]
    comp = store.compare("ASL")
    assert comp.loc[("asl-evaluate", "demo", "all", "ASL"), "minilm"] == 2.5
    assert (tmp_path / "summary_rows.tsv").read_text().count("ASL") == 4
    (tmp_path / "index.sqlite").unlink()
    assert ResultsStore(tmp_path).reindex() == 2
    assert store.get("a")["kind"] == "asl-evaluate"
    # labels given to add() survive a rebuild of the index
    assert set(store.list(dataset="demo")["name"]) == {"a", "b"}
    assert not list(tmp_path.glob(".summary_rows*"))
    assert (tmp_path / "summary_rows.tsv").stat().st_mode & 0o044 == 0o044  # readable by others


def test_summary_rows_flatten_when_no_rows_given():
    r = Result(kind="x", summary={"mean": 1.5, "by": {"bm25": 2.0}, "label": "s"}, table=pd.DataFrame(),
               provenance=make_provenance())
    rows = summary_rows(r)
    assert sorted(zip(rows["item"], rows["metric"], rows["value"])) == [("", "mean", 1.5), ("by", "bm25", 2.0)]


def test_markdown_and_latex(tmp_path):
    r = Result(kind="x-table", summary={}, provenance=make_provenance(),
               table=pd.DataFrame({"probe": ["shuf_words"], "bm25": [0.12], "bm25_sig": [True], "n_%": [3]}))
    r.save(tmp_path / "p")
    rep = Report.from_dirs([tmp_path])
    md = rep.render_markdown()
    assert "| probe | bm25 | n_% |" in md and "| shuf_words | 0.120 | 3 |" in md  # X_sig marks X
    tex = rep.render_latex()
    assert r"0.120$^{*}$" in tex and r"n\_\%" in tex


def test_probe_tables_in_the_papers_shape(tmp_path):
    """Rows = probes, columns = models, significance marks: parentheses (HTML, Markdown) or a
    superscript * (LaTeX)."""
    table = pd.DataFrame({"probe": ["tr-shuffle-words"] * 2 + ["mm-tf-ctrl-len"] * 2, "dataset": ["cran"] * 4,
                          "symmetric": [False] * 4, "model": ["bm25", "minilm"] * 2, "n": [40, 40, 0, 0],
                          "score": [0.0, -0.25, float("nan"), float("nan")], "significant": [False, True, False, False]})
    Result(kind="probes-table", summary={}, provenance=make_provenance(), table=table).save(tmp_path / "p")
    rep = Report.from_dirs([tmp_path])
    md = rep.render_markdown()
    assert "| probe (dataset) | bm25 | minilm | n |" in md
    assert "| tr-shuffle-words (cran) | (0) | -0.250 | 40 |" in md and "| mm-tf-ctrl-len (cran) | - | - | 0 |" in md
    tex = rep.render_latex()
    assert r"-0.250$^{*}$" in tex and "bm25\\_sig" not in tex
    html = rep.render_html()
    assert "paper table" in html and "(0)" in html


def test_cli_report_and_results(tmp_path, capsys):
    _res().save(tmp_path / "res" / "a")
    assert main(["report", str(tmp_path / "res"), "-o", str(tmp_path / "out.html")]) == 0
    assert (tmp_path / "out.html").read_text().startswith("<!DOCTYPE html>")
    assert main(["results", "reindex", str(tmp_path / "res")]) == 0
    assert main(["results", "list", str(tmp_path / "res")]) == 0
    assert "asl-evaluate" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "nope"), "-o", str(tmp_path / "x.html")]) == 1


def test_model_rows_from_built_in_tables_fill_the_overview(tmp_path):
    from ranklens.store import model_rows

    prov = make_provenance()
    ev = Result(kind="asl-evaluate", summary={"n_runs": 2}, provenance=prov, table=pd.DataFrame(
        {"model": ["bm25", "minilm"], "ASL": [6.0, 3.0], "AP": [0.3, 0.5], "n_queries": [40, 40]}))
    # per-query table: averaged over queries, n = number of queries
    ex = Result(kind="explain-consistency", summary={}, provenance=prov, table=pd.DataFrame(
        {"model": ["bm25"] * 3 + ["minilm"] * 3, "granularity": ["sentence"] * 6,
         "query_id": ["1", "2", "3"] * 2, "MRC@10": [1.0, 0.5, 0.0, 0.9, 0.9, 0.6]}))
    # long table: (measure, value) pairs averaged per (setting, regime)
    rg = Result(kind="regimes-table", summary={}, provenance=prov, table=pd.DataFrame(
        {"model": ["m"] * 4, "setting": ["s"] * 4, "split": ["f0"] * 4, "regime": ["interpolation"] * 2 + ["extrapolation"] * 2,
         "query_id": ["1", "2", "1", "2"], "measure": ["nDCG@10"] * 4, "value": [1.0, 0.5, 0.25, 0.25]}))

    r = model_rows(ev, dataset="demo").set_index(["model", "metric"])
    assert r.loc[("minilm", "ASL"), "value"] == 3.0 and r.loc[("bm25", "AP"), "n"] == 40
    assert set(r["dataset"]) == {"demo"} and set(r["item"]) == {""}
    r = model_rows(ex).set_index(["model", "item"])
    assert r.loc[("bm25", "sentence"), "value"] == pytest.approx(0.5) and r.loc[("minilm", "sentence"), "n"] == 3
    r = model_rows(rg).set_index("item")
    assert r.loc["s/interpolation", "value"] == 0.75 and r.loc["s/extrapolation", "value"] == 0.25
    # kinds without a spec and tables without the model column give no rows
    assert model_rows(Result(kind="x", summary={}, provenance=prov, table=ev.table)).empty
    assert model_rows(Result(kind="asl-evaluate", summary={}, provenance=prov, table=ex.table)).empty

    for name, res in (("ev", ev), ("ex", ex), ("rg", rg)):
        res.save(tmp_path / name)
    html = Report.from_dirs([tmp_path]).render_html()
    headline = _headline(html)
    assert all(m in headline for m in ("bm25", "minilm", "MRC@10", "nDCG@10", "s/interpolation"))
    store = ResultsStore(tmp_path)
    store.add(tmp_path / "ev", dataset="demo")
    assert store.compare("ASL").loc[("asl-evaluate", "demo", "", "ASL"), "minilm"] == 3.0


def _headline(html: str) -> str:
    return html.split('id="headline"', 1)[1].split("All results", 1)[0]


def test_cli_compare_filters_model_and_dataset(tmp_path, capsys):
    prov = make_provenance()
    Result(kind="asl-evaluate", summary={}, provenance=prov, table=pd.DataFrame(
        {"model": ["bm25", "minilm"], "ASL": [6.0, 3.0], "n_queries": [4, 4]})).save(tmp_path / "r" / "ev")
    ResultsStore(tmp_path / "r").add(tmp_path / "r" / "ev", dataset="demo")
    capsys.readouterr()
    assert main(["results", "compare", str(tmp_path / "r"), "--metric", "ASL", "--model", "minilm"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split("\t") == ["analysis", "dataset", "item", "metric", "minilm"] and "\t3.0" in out
    assert main(["results", "compare", str(tmp_path / "r"), "--dataset", "other"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1  # header only
    assert main(["results", "compare", str(tmp_path / "r"), "--model", "nope"]) == 1


def test_latex_marks_go_on_the_score_column():
    from ranklens.report import _latex_marks

    frame = pd.DataFrame({"probe": ["a", "b"], "score": [0.5, 0.1], "p_adjusted": [0.001, 0.5],
                          "significant": [True, False], "bm25": [1.0, 2.0], "bm25_sig": [False, True]})
    out = _latex_marks(frame)
    assert list(out["score"]) == ["0.500$^{*}$", "0.100"]
    assert "$" not in "".join(out["p\\_adjusted"])
    assert list(out["bm25"]) == ["1.00", "2.00$^{*}$"]
    assert list(_latex_marks(frame, places=1)["score"]) == ["0.5$^{*}$", "0.1"]
    assert "significant" not in out.columns and "bm25\\_sig" not in out.columns


def test_headline_keeps_datasets_apart(tmp_path):
    """The same model on two datasets: two headline tables, never one value hiding the other."""
    prov = make_provenance()
    for ds, v in (("cran", 3.0), ("npl", 7.0)):
        Result(kind="asl-evaluate", summary={}, provenance=prov, table=pd.DataFrame(
            {"model": ["bm25"], "ASL": [v], "n_queries": [5]})).save(tmp_path / ds)
        ResultsStore(tmp_path).add(tmp_path / ds, dataset=ds)
    headline = _headline(Report.from_dirs([tmp_path]).render_html())
    cards = headline.split('class="hcard"')[1:]
    assert len(cards) == 2
    assert "cran" in cards[0] and ">3.00<" in cards[0] and "npl" in cards[1] and ">7.00<" in cards[1]


def test_headline_links_to_each_result(tmp_path):
    """Every headline table links to the result it comes from (its provenance is there); results
    with the same directory name get distinct labels."""
    prov = make_provenance()
    for ds in ("dl19", "dl20"):
        Result(kind="asl-evaluate", summary={}, provenance=prov, table=pd.DataFrame(
            {"model": ["bm25"], "ASL": [2.0], "n_queries": [5]})).save(tmp_path / ds / "asl-evaluate")
    html = Report.from_dirs([tmp_path]).render_html()
    links = re.findall(r'<h3><a href="#(res\d+)">[^<]+</a> <span class="note">([^<]+)</span>', _headline(html))
    assert sorted(label for _, label in links) == ["dl19/asl-evaluate", "dl20/asl-evaluate"]
    for anchor, _ in links:
        assert f'id="{anchor}"' in html


def test_markdown_escapes_html(tmp_path):
    _res(text="<script>alert(1)</script> & <b>").save(tmp_path / "r<1>")
    md = Report.from_dirs([tmp_path], title="T <i>&").render_markdown()
    assert "<script>" not in md and "<b>" not in md and "<i>" not in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;" in md
    assert "# T &lt;i&gt;&amp;" in md and "r&lt;1&gt;" in md


def test_concurrent_report_saves_do_not_clash(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    _res().save(tmp_path / "r1")
    report = Report.from_dirs([tmp_path / "r1"])
    out = tmp_path / "out" / "report.md"
    with ThreadPoolExecutor(4) as pool:
        paths = list(pool.map(lambda _: report.save(out, format="md"), range(8)))
    assert paths == [out] * 8 and out.read_text() == report.render_markdown()
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.md"]  # no temp file left


def test_cli_compare_takes_the_metric_as_a_positional(tmp_path, capsys):
    """`ranklens results compare DIR METRIC` selects METRIC (it used to be ignored: the output was
    every metric's, whatever was given); a second, different --metric is an error."""
    prov = make_provenance()
    Result(kind="asl-evaluate", summary={}, provenance=prov, table=pd.DataFrame(
        {"model": ["bm25", "minilm"], "ASL": [6.0, 3.0], "AP": [0.25, 0.5], "n_queries": [4, 4]})).save(tmp_path / "r" / "ev")
    ResultsStore(tmp_path / "r").add(tmp_path / "r" / "ev", dataset="demo")
    capsys.readouterr()
    outs = {}
    for metric in ("ASL", "AP"):
        assert main(["results", "compare", str(tmp_path / "r"), metric]) == 0
        outs[metric] = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t")
    assert set(outs["ASL"]["metric"]) == {"ASL"} and set(outs["AP"]["metric"]) == {"AP"}
    assert outs["AP"]["minilm"].tolist() == [0.5]
    assert main(["results", "compare", str(tmp_path / "r"), "AP", "--metric", "ASL"]) == 1
    assert "given twice" in capsys.readouterr().err


def test_analysis_command_prints_each_warning_once_on_stderr(tmp_path, capsys):
    """Warnings go to stderr once; stdout carries the summary only."""
    assert main(["asl", "--collection", "demo", "--model", "bm25", "--model", "tfidf", "--k", "5",
                 "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    cap = capsys.readouterr()
    assert "warning" not in cap.out.lower()
    lines = [x for x in cap.err.splitlines() if x.startswith("ranklens: warning:")]
    assert lines and len(lines) == len(set(lines))  # this run warns (eq. 3 cases at depth 5), each once
