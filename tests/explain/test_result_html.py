"""display.result_html: rationales highlighted inside their documents, from a saved Result alone."""

from __future__ import annotations

import html
from html.parser import HTMLParser

import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.explain import OcclusionExplainer, explain_run, explanation_consistency, rank_candidates, result_html
from ranklens.explain.display import _HTML_SHADES
from ranklens.results import Result

from ._helpers import X_RANKER

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=q onerror=alert(2)>"
DOCS = {
    # sentence 2 holds the x tokens -> heaviest rationale; it contains the script tag
    "d1": f"Plain start here. X {SCRIPT} x x and more.\nA second line\twith a tab and \"quotes\".",
    "d2": f"Nothing to see. {IMG} X here.",
    "d3": "Z only.",
}
QUERIES = pd.DataFrame({"query_id": ["q1"], "text": ["x <b>bold</b>"]})


class _Tags(HTMLParser):
    """Collects start tags, their attributes and the text inside <mark> elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.marks: list[str] = []
        self._in_mark = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        if tag == "mark":
            self._in_mark = True
            self.marks.append("")

    def handle_endtag(self, tag):
        if tag == "mark":
            self._in_mark = False

    def handle_data(self, data):
        if self._in_mark:
            self.marks[-1] += data


def _saved(tmp_path, **kw) -> Result:
    res = explanation_consistency(
        {"x<i>ranker</i>": X_RANKER}, QUERIES, DOCS, granularities=("sentence",), m=2, ks=(3,),
        explainer=OcclusionExplainer(n=1), engine=ScoringEngine(cache=False), **kw,
    )
    return Result.load(res.save(tmp_path / "res"))


def test_result_html_from_loaded_result_escapes_everything(tmp_path):
    back = _saved(tmp_path)
    out = result_html(back)
    # hostile markup from documents, query and ranker name appears only as text
    assert SCRIPT not in out and "<img" not in out and "<i>ranker" not in out and "<b>bold" not in out
    assert html.escape(SCRIPT) in out
    assert html.escape(IMG[1:]) in out  # (spaCy's senter cuts a sentence after "<" here)
    assert "x &lt;b&gt;bold&lt;/b&gt;" in out and "x&lt;i&gt;ranker&lt;/i&gt; / sentence" in out
    p = _Tags()
    p.feed(out)
    assert {t for t, _ in p.tags} <= {"div", "p", "b", "h4", "mark", "span", "ul", "li", "a"}
    assert not [a for _, attrs in p.tags for a, _ in attrs if a.lower().startswith("on")]
    # the highlighted spans are exactly the stored rationales, cut from the stored document texts
    rats = back.tables["rationales"]
    expected = []
    for d in ["d1", "d2", "d3"]:
        rs = rats[rats["doc_id"] == d].sort_values("start")
        expected += [DOCS[d][s:e] for s, e in zip(rs["start"], rs["end"])]
    assert p.marks == expected
    assert any(SCRIPT in m for m in p.marks) and any(IMG[1:] in m for m in p.marks)


def test_documents_table_roundtrips_texts_and_shades_follow_weights(tmp_path):
    back = _saved(tmp_path)
    docs = back.tables["documents"]
    assert list(docs.columns) == ["model", "granularity", "query_id", "query", "doc_id", "rank", "score", "text"]
    assert docs["doc_id"].tolist() == ["d1", "d2", "d3"] and docs["rank"].tolist() == [1, 2, 3]
    # newlines, tabs and quotes survive the TSV round trip byte for byte (offsets stay valid)
    assert dict(zip(docs["doc_id"], docs["text"])) == DOCS
    out = result_html(back)
    rats = back.tables["rationales"]
    d1 = rats[rats["doc_id"] == "d1"].sort_values("weight", ascending=False)
    heavy, light = d1["text"].tolist()
    assert d1["weight"].iloc[0] > d1["weight"].iloc[1]
    assert f'background:{_HTML_SHADES[-1]}" title="weight {d1["weight"].iloc[0]:.4g}">{html.escape(heavy)}' in out
    assert html.escape(light) + "</mark>" in out and f'background:{_HTML_SHADES[-1]}" title="weight {d1["weight"].iloc[1]:.4g}"' not in out


def test_documents_are_capped_to_first_queries_and_top_documents(tmp_path):
    docs = {f"d{i}": " ".join(["X"] * (i + 1)) + ". Filler." for i in range(6)}
    qids = [f"q{i:02d}" for i in range(12)][::-1]  # given in descending id order
    queries = pd.DataFrame({"query_id": qids, "text": ["x"] * 12})
    res = explanation_consistency({"x": X_RANKER}, queries, docs, granularities=("sentence", "window:2"), m=1,
                                  ks=(5,), explainer=OcclusionExplainer(n=1), engine=ScoringEngine(cache=False))
    t = res.tables["documents"]
    for _, g in t.groupby("granularity"):
        assert list(dict.fromkeys(g["query_id"])) == qids[:10]  # the first 10 queries, as given
        assert g.groupby("query_id")["rank"].apply(list).map(lambda r: r == [1, 2, 3]).all()
        assert g.groupby("query_id")["doc_id"].apply(list).map(lambda r: r == ["d5", "d4", "d3"]).all()
    assert len(t) == 2 * 10 * 3
    assert res.provenance.params["display_queries"] == 10 and res.provenance.params["display_docs"] == 3
    html_out = result_html(Result.load(res.save(tmp_path / "r")), max_queries=2, max_docs=1)
    assert html_out.count('class="rl-explain-doc"') == 2 * 2 * 1
    # one section per query with previous / next / index links; every link lands on an anchor
    import re

    ids = set(re.findall(r'id="([^"]+)"', html_out))
    links = re.findall(r'href="#([^"]+)"', html_out)
    assert links and set(links) <= ids and "rl-explain-index" in ids
    assert html_out.count("query 1 of 2") == 2 and html_out.count('next &rarr;</a>') == 2
    none = explanation_consistency({"x": X_RANKER}, queries, docs, granularities=("sentence",), m=1, ks=(5,),
                                   explainer=OcclusionExplainer(n=1), display_docs=0, engine=ScoringEngine(cache=False))
    assert none.tables["documents"].empty
    assert "stores no document texts" in result_html(Result.load(none.save(tmp_path / "n")))
    with pytest.raises(ValidationError, match="display_queries"):
        explanation_consistency({"x": X_RANKER}, queries, docs, display_queries=-1)


def test_result_html_explain_run_kind_and_bad_inputs(tmp_path):
    eng = ScoringEngine(cache=False)
    run = rank_candidates(X_RANKER, QUERIES, DOCS, engine=eng)
    res = explain_run(X_RANKER, run, QUERIES, DOCS, k=2, m=1, engine=eng)
    out = result_html(Result.load(res.save(tmp_path / "er")))
    assert out.count("<mark") == 2 and html.escape(SCRIPT) in out and SCRIPT not in out
    sweep_like = Result(kind="explain-sweep", summary={}, table=pd.DataFrame(), provenance=res.provenance)
    with pytest.raises(ValidationError, match="explain-consistency"):
        result_html(sweep_like)
    with pytest.raises(ValidationError, match=">= 1"):
        result_html(res, max_docs=0)


def test_rationales_that_do_not_match_their_document_are_not_highlighted(tmp_path):
    back = _saved(tmp_path)
    rats = back.tables["rationales"].copy()
    rats.loc[rats["doc_id"] == "d3", "end"] = 999  # past the end of "Z only."
    bad = Result(kind=back.kind, summary=back.summary, table=back.table, provenance=back.provenance,
                 tables={**back.tables, "rationales": rats})
    out = result_html(bad)
    assert "1 rationale(s) did not match" in out
    assert ">Z only.</p>" in out  # shown as plain text
