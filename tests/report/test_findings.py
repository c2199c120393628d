"""The report's findings, headline table, number format, TSV downloads and Markdown, each checked
against a small obviously-correct reference written here."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.report import Report
from ranklens.asl.findings import asl_evaluate
from ranklens.probes.findings import probes_table as probe_table
from ranklens.report.findings import p_text, paired_vs_baseline
from ranklens.report.headline import frame_of, headline_block, marks
from ranklens.report.tables import Ids, number, table_html
from ranklens.results import Result, make_provenance

from .._references import paired_t_p


def test_number_is_three_significant_digits_or_fixed_places():
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.uniform(-999, 999, 300), rng.uniform(-1, 1, 300), [0.31, 0.5455, -0.1216, 9.996]])
    for v in values:
        if abs(v) < 1e-3:
            continue
        text = number(v)
        # reference: Python's 3-significant-digit rounding, then the digits counted by hand
        assert float(text) == pytest.approx(float(f"{v:.3g}"), abs=1e-12), (v, text)
        digits = text.lstrip("-").replace(".", "").lstrip("0")
        assert len(digits) == 3 or (abs(v) >= 100 and "." not in text), (v, text)
        assert number(v, 2) == f"{v:.2f}".replace("-0.00", "0.00")
    assert [number(x) for x in (0.31, -0.1216, 0.0, 1116.0, float("nan"))] == ["0.310", "-0.122", "0", "1116", ""]


def _holm(p):
    """Plain-Python Holm step-down (reference)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


def _evaluate_result():
    rng = np.random.default_rng(7)
    q = [f"q{i}" for i in range(12)]
    base = rng.uniform(2, 10, 12)
    per_query = {"bm25": base, "good": base - 2 + rng.normal(0, 0.3, 12), "same": base + rng.normal(0, 2, 12)}
    long = pd.DataFrame([{"model": m, "query_id": qi, "measure": "ASL", "value": v}
                         for m, vals in per_query.items() for qi, v in zip(q, vals)])
    table = pd.DataFrame({"model": list(per_query), "ASL": [float(np.mean(v)) for v in per_query.values()],
                          "n_queries": 12})
    return Result(kind="asl-evaluate", summary={"baseline": "bm25", "measures": ["ASL"]}, table=table,
                  tables={"per_query": long}, provenance=make_provenance()), per_query


def test_headline_significance_matches_a_brute_force_paired_t_test():
    res, per_query = _evaluate_result()
    sig = paired_vs_baseline(pd.DataFrame({"item": "", "metric": "ASL", "model": res.tables["per_query"]["model"],
                                           "unit": res.tables["per_query"]["query_id"],
                                           "value": res.tables["per_query"]["value"]}), "bm25")
    raw = [paired_t_p(per_query[m], per_query["bm25"]) for m in ("good", "same")]
    assert list(sig["model"]) == ["good", "same"]
    assert list(sig["p"]) == pytest.approx(_holm(raw))
    block = headline_block(res, section="ASL", label="x", anchor="a1")
    rows = frame_of([block]).set_index("model")
    assert block.baseline == "bm25" and block.models[0] == "bm25"
    assert rows.loc["good", "p_vs_baseline"] == pytest.approx(_holm(raw)[0])
    assert rows.loc["good", "value"] == pytest.approx(np.mean(per_query["good"]))
    # the best (lowest ASL) is bold and the significant one marked; the baseline carries no mark
    html = Report([(Path("ev"), res)]).render_html()
    card = html.split('class="hcard"', 1)[1]
    best = min(per_query, key=lambda m: np.mean(per_query[m]))
    assert re.search(rf'<td class="num best" data-model="{best}">', card)
    assert f"<sup>{marks(_holm(raw)[0])}</sup>" in card if marks(_holm(raw)[0]) else True
    assert marks(0.0009) == "***" and marks(0.009) == "**" and marks(0.04) == "*" and marks(0.2) == ""


def test_headline_baseline_can_be_chosen():
    res, per_query = _evaluate_result()
    block = headline_block(res, section="ASL", label="x", anchor="a1", baseline="good")
    assert block.baseline == "good" and block.models[0] == "good"
    p = frame_of([block]).set_index("model").loc["bm25", "p_vs_baseline"]
    raw = [paired_t_p(per_query[m], per_query["good"]) for m in ("bm25", "same")]
    assert p == pytest.approx(_holm(raw)[0])


def test_asl_findings_state_the_analysis_own_tests():
    sig = pd.DataFrame({"model": ["minilm", "minilm"], "measure": ["ASL", "AP"], "baseline": "bm25",
                        "mean": [3.29, 0.866], "baseline_mean": [6.84, 0.743], "better": [True, True],
                        "rand_p_adj": [0.0004, 0.02]})
    table = pd.DataFrame({"model": ["minilm", "bm25"], "ASL": [3.29, 6.84], "AP": [0.866, 0.743], "n_queries": 40})
    res = Result(kind="asl-evaluate", summary={"baseline": "bm25"}, table=table, tables={"significance": sig},
                 provenance=make_provenance())
    out = asl_evaluate(res)
    assert out[0] == "Best of 2 systems: ASL minilm 3.29 (lower is better); AP minilm 0.866; n = 40 queries."
    assert out[1] == ("minilm vs bm25: ASL 3.29 vs 6.84 (better, p < 0.001); AP 0.866 vs 0.743 (better, p = 0.02) "
                      "(randomization test, adjusted).")
    assert p_text(0.0049) == "p = 0.005" and p_text(float("nan")) == "p n/a"


def test_probe_findings_count_significant_probes():
    rng = np.random.default_rng(3)
    rows = []
    for model in ("bm25", "minilm"):
        for i in range(9):
            score = float(rng.uniform(-1, 1))
            rows.append({"probe": f"p{i}", "model": model, "n": 30, "score": score,
                         "p_adjusted": float(rng.uniform(0, 0.03)), "significant": bool(rng.random() < 0.5)})
    t = pd.DataFrame(rows)
    res = Result(kind="probes-table", summary={"alpha": 0.01, "correction": "bonferroni"}, table=t,
                 provenance=make_provenance())
    out = probe_table(res)
    for line, (model, g) in zip(out, t.groupby("model", sort=False)):
        sig = g[g["significant"]]
        assert line.startswith(f"{model}: {len(sig)} of 9 probes significant (bonferroni, α = 0.01)")
        strongest = sig.loc[sig["score"].abs().idxmax()]
        assert f"strongest: {strongest['probe']} " in line


def test_tsv_download_holds_the_whole_table_and_is_inert():
    frame = pd.DataFrame({"model": ["a", "b"] * 30, "text": ["</script><b>x & y</b>"] * 60, "v": range(60)})
    html = table_html(frame, Ids(), max_rows=10, download="t.tsv")
    assert html.count("<tr>") == 11  # header + 10 rows in the page
    data = re.search(r'<script type="application/json" class="tsvdata" id="(\w+)">(.*?)</script>', html, re.S)
    assert "<" not in data.group(2)
    back = pd.read_csv(io.StringIO(json.loads(data.group(2))), sep="\t")
    pd.testing.assert_frame_equal(back, frame)
    assert 'download TSV (60 rows)' in html and "first 10 of 60 rows" in html


def test_markdown_is_headline_findings_and_paper_tables_only(tmp_path):
    res, _ = _evaluate_result()
    per_doc = pd.DataFrame({"model": ["bm25"] * 50, "doc_id": [f"DOCUMENT-{i}" for i in range(50)]})
    res = Result(kind=res.kind, summary=res.summary, table=res.table, tables={**res.tables, "per_document": per_doc},
                 provenance=res.provenance)
    res.save(tmp_path / "ev")
    md = Report.from_dirs([tmp_path]).render_markdown()
    assert "## Headline" in md and "| ASL ↓ |" in md
    assert "- Best of 3 systems: ASL" in md
    assert "DOCUMENT-" not in md and "q11" not in md  # no per-item rows
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "r.md"), "--places", "2"]) == 0
    text = (tmp_path / "r.md").read_text()
    assert text.startswith("# ranklens report") and re.search(r"\| \*\*\d+\.\d{2}\*\*", text)


def test_a_degenerate_chart_is_left_out_with_a_note(tmp_path):
    t = pd.DataFrame({"chain": ["MAP->ASL"] * 2, "step": ["a", "b"], "from": ["x", "y"], "to": ["y", "z"],
                      "dsort": [0.0, 0.0], "dsort_model": ["s1", "s1"], "kendall_tau": [1.0, 1.0],
                      "dvalue_mean": [0.1, 0.2], "dvalue_min": [0.1, 0.2], "dvalue_max": [0.1, 0.2], "n_systems": 2})
    Result(kind="asl-chain", summary={}, table=t, provenance=make_provenance()).save(tmp_path / "c")
    html = Report.from_dirs([tmp_path]).render_html()
    assert "Chart left out: Kendall τ between the orderings of 2 systems is 1 at every step" in html
    assert "<svg" not in html.split('id="res1"', 1)[1].split("</article>", 1)[0]


def test_cli_baseline_and_places(tmp_path, capsys):
    res, _ = _evaluate_result()
    res.save(tmp_path / "ev")
    assert main(["report", str(tmp_path / "ev"), "-o", str(tmp_path / "r.md"), "--baseline", "good"]) == 0
    md = (tmp_path / "r.md").read_text()
    assert "| metric | good (base) | bm25 | same |" in md
    assert main(["report", str(tmp_path / "ev"), "-o", str(tmp_path / "r.md"), "--places", "11"]) == 1
    assert "--places" in capsys.readouterr().err


def test_headline_shows_rows_without_a_direction_and_never_bolds_them():
    """Probe effect scores and N2O similarities are headline rows (the probes were missing) but have
    no better direction: no arrow, no bold, while ASL rows keep both."""
    probes = Result(kind="probes-table", summary={}, provenance=make_provenance(), table=pd.DataFrame(
        {"probe": ["tr-shuffle-words", "tr-shuffle-words"], "dataset": ["demo", "demo"], "model": ["bm25", "minilm"],
         "score": [0.0, -0.4], "ci_low": [0.0, -0.5], "ci_high": [0.0, -0.3], "n": [20, 20],
         "significant": [False, True]}))
    block = headline_block(probes, section="Probes", label="", anchor="p1")
    assert block is not None and [r["metric"] for r in block.rows] == ["score"]
    assert block.rows[0]["higher"] is None and block.rows[0]["values"] == {"bm25": 0.0, "minilm": -0.4}
    res, _ = _evaluate_result()
    html = Report([(Path("pr"), probes), (Path("ev"), res)]).render_html()
    cards = html.split('class="hcard"')[1:]
    card = next(c for c in cards if "tr-shuffle-words" in c)
    assert "num best" not in card and "score ↑" not in card and "score ↓" not in card
    assert "<th scope=\"row\">score · tr-shuffle-words/demo</th>" in card
    asl_card = next(c for c in cards if "ASL ↓" in c)
    assert "num best" in asl_card
