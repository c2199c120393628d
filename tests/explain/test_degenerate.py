"""The document mode chosen by length (``long_document`` never|auto|always) and the degenerate
inputs of explain that must be warned: a pool smaller than the MRC cut-off, MER left out for want
of sub-document relevance, sub-document relevance that judges none of the explained documents."""

from __future__ import annotations

import pandas as pd
import pytest

from ranklens.drive import run_analysis
from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.explain import OcclusionExplainer, explanation_consistency
from ranklens.explain.declaration import Params
from ranklens.io import Collection, DocStore
from ranklens.rankers.passages import maxp
from ranklens.results import Result

from ._helpers import X_RANKER

X = {"x": {"spec": "callable:tests.explain._helpers:count_x"}}


def _engine():
    return ScoringEngine(cache=False)


def _doc(n: int) -> str:
    """``n`` sentences holding 0 to 3 x's (so chunks and sentences score differently)."""
    return " ".join(f"Sentence {i} {' '.join(['x'] * (i * 7 % 4)) or 'y'} here." for i in range(n))


def _same(a, b) -> bool:
    """Two explanations equal, nan weights (sentences never chosen) included."""
    import numpy as np

    return (a.mode, a.score, a.order, a.units) == (b.mode, b.score, b.order, b.units) and np.allclose(
        a.weights, b.weights, equal_nan=True)


def _collection(docs: dict[str, str], name: str = "mini") -> Collection:
    queries = pd.DataFrame({"query_id": ["q1", "q2"], "text": ["x", "x here"]})
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": [next(iter(docs))], "relevance": [1]})
    return Collection(name, DocStore(docs, name=name), queries, qrels)


# ---------------------------------------------------------------- long_document never | auto | always
def test_the_default_is_auto_with_the_documented_threshold():
    p = Params()
    assert (p.long_document, p.long_document_sentences, p.chunk_sentences) == ("auto", 20, 3)
    ex = OcclusionExplainer()
    assert [ex.is_long(n) for n in (0, 1, 19, 20, 21, 56)] == [False, False, False, False, True, True]
    assert not OcclusionExplainer(long_document="never").is_long(500)
    assert OcclusionExplainer(long_document="always").is_long(1)
    assert not OcclusionExplainer(long_document="always").is_long(0)  # nothing to chunk


def test_auto_explains_each_document_as_never_or_always_would():
    """auto = the document mode (eq. 5) for the long documents, the passage protocol (eq. 4) for the
    others: each explanation is identical to the one of the explicit mode."""
    docs = [_doc(4), _doc(7), _doc(3)]
    auto = OcclusionExplainer(long_document_sentences=4, greedy_steps=2)
    never = OcclusionExplainer(long_document="never", long_document_sentences=4, greedy_steps=2)
    always = OcclusionExplainer(long_document="always", long_document_sentences=4, greedy_steps=2)
    got = auto.explain(X_RANKER, ["x"] * 3, docs, engine=_engine())
    ref_never = never.explain(X_RANKER, ["x"] * 3, docs, engine=_engine())
    ref_always = always.explain(X_RANKER, ["x"] * 3, docs, engine=_engine())
    assert [e.mode for e in got] == ["passage", "document", "passage"]
    assert [e.mode for e in ref_never] == ["passage"] * 3 and [e.mode for e in ref_always] == ["document"] * 3
    assert _same(got[0], ref_never[0]) and _same(got[2], ref_never[2])
    assert _same(got[1], ref_always[1])
    assert got[1].order[:2] != got[1].order[-2:] and max(w for w in got[1].weights if w == w) > 0


def test_a_maxp_ranker_is_explained_by_its_own_score_in_both_modes():
    """A maxp:SPEC:3 ranker: the document mode scores chunks with SPEC (theta = the MaxP score),
    the passage mode scores the whole text with the MaxP ranker itself."""
    ranker = maxp(X_RANKER, 3)
    docs = [_doc(8), _doc(5)]  # 8 > 6: document mode; 5: passage mode, but already two chunks
    ex = OcclusionExplainer(long_document_sentences=6)
    long_, short = ex.explain(ranker, ["x", "x"], docs, engine=_engine())
    assert (long_.mode, short.mode) == ("document", "passage")
    want = ranker.score(["x", "x"], docs)
    assert (long_.score, short.score) == pytest.approx(tuple(want))


def test_an_old_integer_long_document_is_refused_naming_the_threshold():
    with pytest.raises(ValidationError, match="long_document_sentences"):
        OcclusionExplainer(long_document=3)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="auto"):
        run_analysis("explain", _collection({"d": _doc(3)}), X, {"long_document": 3})


def _run(docs, **params):
    base = {"pool": 10, "k": [2], "sweep_m": [], "granularities": ["sentence"], "display_queries": 0}
    return next(r for r in run_analysis("explain", _collection(docs), X, {**base, **params})
                if r.kind == "explain-consistency")


def test_auto_on_a_document_collection_is_warned_and_recorded():
    docs = {"long": _doc(24), "short": _doc(4), "mid": _doc(20)}
    one = {"max_queries": 1, "k": [3]}  # every document explained once
    res = _run(docs, **one)
    auto = [w for w in res.warnings if "long_document=auto" in w]
    assert len(auto) == 1 and "1 of 3 explained documents have more than 20 sentences" in auto[0]
    assert any("maxp:SPEC:3" in w for w in res.warnings)  # the model does not rank by the explained max
    prov = res.provenance.params
    assert prov["long_document"] == "auto" and "more than 20 sentences" in prov["long_document_rule"]
    assert prov["document_mode"] == {"x/sentence": 1}
    assert res.provenance.analysis_params["long_document"] == "auto"
    never = _run(docs, long_document="never", **one)
    assert not [w for w in never.warnings if "document mode" in w]
    assert never.provenance.params["document_mode"] == {"x/sentence": 0}
    # a passage collection (no document over the threshold): nothing to say
    assert not [w for w in _run({"a": _doc(3), "b": _doc(5)}).warnings if "document mode" in w]


# ---------------------------------------------------------------- a pool smaller than k
def test_a_pool_smaller_than_k_is_warned_in_the_output_and_the_saved_result(tmp_path):
    docs = {f"d{i}": _doc(2 + i % 3) for i in range(8)}
    res = _run(docs, pool=5, k=[10])
    pool_w = [w for w in res.warnings if w.startswith("pool 5 is smaller")]
    assert len(pool_w) == 1 and "MRC@10" in pool_w[0]
    short = [w for w in res.warnings if "rank fewer than 10 documents" in w]
    assert short == ["x: 2 of 2 queries rank fewer than 10 documents (at most 5); their MRC@10 is computed over "
                     "the documents they rank, not 10 (raise the pool or lower k)"]
    res.save(tmp_path / "r")
    assert set(pool_w + short) <= set(Result.load(tmp_path / "r").warnings)
    deep = _run(docs, pool=8, k=[5])
    assert not [w for w in deep.warnings if "pool" in w or "rank fewer" in w]


def test_the_mrc_short_list_warning_counts_queries_by_hand():
    docs = {"a": "x.", "b": "x x.", "c": "y."}
    q = {"q1": "x", "q2": "x"}
    pairs = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "a", "b"]})
    res = explanation_consistency({"x": X_RANKER}, q, docs, pairs=pairs, ks=(2, 3), granularities=("sentence",),
                                  engine=_engine())
    assert [w for w in res.warnings if "rank fewer" in w] == [
        "x: 1 of 2 queries rank fewer than 3 documents (at most 2); their MRC@3 is computed over the documents "
        "they rank, not 3 (raise the pool or lower k)"]


# ---------------------------------------------------------------- MER without sub-document relevance
def test_mer_left_out_without_subdoc_is_stated(tmp_path):
    docs = {"d1": _doc(3), "d2": _doc(4)}
    res = _run(docs)
    mer = [w for w in res.warnings if w.startswith("MER")]
    assert len(mer) == 1 and "no sub-document relevance was given for mini" in mer[0] and "--subdoc" in mer[0]
    assert not [c for c in res.table.columns if c.startswith("MER@")]
    sub = tmp_path / "sub.tsv"
    sub.write_text("query_id\tdoc_id\tunit\trelevant\nq1\td1\t0\t1\n")
    with_sub = _run(docs, subdoc=str(sub), embedder="tfidf", mer_k=[2])
    assert not [w for w in with_sub.warnings if w.startswith("MER")]
    assert "MER@2" in with_sub.table.columns


def test_subdoc_that_judges_no_explained_document_is_warned(tmp_path):
    docs = {"d1": _doc(3), "d2": _doc(4)}
    sub = tmp_path / "sub.tsv"
    sub.write_text("query_id\tdoc_id\tunit\trelevant\nq1\tother-doc\t0\t1\n")
    res = _run(docs, subdoc=str(sub), embedder="tfidf", mer_k=[2])
    warned = [w for w in res.warnings if "marks no relevant unit" in w]
    assert len(warned) == 1 and warned[0].startswith("x: ")
    assert (res.table["MER@2"] == 0).all()  # what the warning explains


# ---------------------------------------------------------------- options the run would not read
@pytest.mark.parametrize("option,value,why", [
    ("mer_k", [5], "subdoc is set"), ("embedder", "tfidf", "subdoc is set"), ("mer_missing", "skip", "subdoc is set"),
    ("rbo_p", 0.5, "method is 'rbo'"), ("pool_model", "tfidf", "candidates is 'pool'"),
    ("chunk_sentences", 4, "long_document is 'auto' or 'always'"),
    ("long_document_sentences", 5, "long_document is 'auto'")])
def test_an_option_explain_would_not_read_is_an_error(option, value, why):
    """MER's options without sub-document relevance (MER then silently disappeared), RBO's p with
    Kendall, a pool model with candidates all, document-mode options with long_document never:
    each refused, naming the condition it is read under."""
    from ranklens.errors import IgnoredOptionError

    extra = {"candidates": "all"} if option == "pool_model" else {}
    extra |= {"long_document": "never"} if option in ("chunk_sentences", "long_document_sentences") else {}
    with pytest.raises(IgnoredOptionError, match=f"params.{option}: ignored unless params.{why}"):
        _run({"d1": _doc(3)}, **{option: value}, **extra)


def test_a_run_file_beside_a_pool_model_or_other_candidates_is_refused(tmp_path):
    """With run given the run file is the first stage: a pool model was silently ignored, and
    candidates 'all'/'qrels' silently replaced by the run's documents."""
    from ranklens.errors import IgnoredOptionError, ValidationError

    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 d1 1 1.0 x\n")
    with pytest.raises(IgnoredOptionError, match="pool_model: ignored when run is given"):
        _run({"d1": _doc(3)}, run=str(run), pool_model="tfidf")
    with pytest.raises(ValidationError, match="candidates = 'all' would be replaced by the run file"):
        _run({"d1": _doc(3)}, run=str(run), candidates="all")
