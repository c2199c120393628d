from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.embedders.base import FunctionEmbedder
from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.rankers import (
    BiEncoderRanker,
    BM25Ranker,
    CrossEncoderRanker,
    FunctionRanker,
    PassageRanker,
    PyTerrierRanker,
    TfidfRanker,
    load_callable,
    split_passages,
)
from ranklens.rankers.pyterrier import pairs_to_frame
from ranklens.rankers.retrieval import dense_topk, rerank, retrieve
from ranklens.specs import make_ranker
from ranklens.testing import OverlapRanker


def overlap_fn(queries, texts):  # used through "callable:" specs
    return [float(len(set(q.split()) & set(t.split()))) for q, t in zip(queries, texts)]


# ----------------------------------------------------------------- tfidf
def test_tfidf_cosine_matches_sklearn_by_hand(tiny):
    from sklearn.feature_extraction.text import TfidfVectorizer

    corpus = list(tiny.docs.values())
    r = TfidfRanker(stem=False, stopwords=False).fit(corpus)
    vec = TfidfVectorizer(token_pattern=r"(?u)\b\w+\b").fit(corpus)
    q, t = "cats felines", corpus[0]
    a, b = vec.transform([q]).toarray()[0], vec.transform([t]).toarray()[0]
    assert r.score([q], [t])[0] == pytest.approx(float(a @ b), rel=1e-9)
    assert r.score(["zzz"], [t])[0] == 0.0
    assert r.score([t], [t])[0] == pytest.approx(1.0)
    assert r.fingerprint != TfidfRanker(stem=False, stopwords=False).fit(corpus[:3]).fingerprint
    with pytest.raises(ValidationError, match="fit"):
        TfidfRanker().score(["a"], ["b"])


# ----------------------------------------------------------------- passages
def test_split_passages_windows_and_tail():
    text = "One cat. Two dogs. Three owls. Four fish. Five bees."
    assert split_passages(text, size=2, stride=2) == ["One cat. Two dogs.", "Three owls. Four fish.", "Five bees."]
    assert split_passages(text, size=3, stride=2) == ["One cat. Two dogs. Three owls.",
                                                      "Three owls. Four fish. Five bees."]
    assert split_passages("w1 w2 w3 w4 w5", split="tokens", size=2, stride=3) == ["w1 w2", "w4 w5"]
    assert split_passages("", size=3, stride=2) == [""]
    with pytest.raises(ValidationError):
        split_passages(text, size=0)


@pytest.mark.parametrize("aggregate", ["max", "first", "mean"])
def test_passage_ranker_aggregates_base_scores(aggregate):
    base = OverlapRanker(length_weight=0.0)
    text = "Cats purr. Dogs bark. Cats and cats. Birds."
    r = PassageRanker(base=base, size=1, stride=1, aggregate=aggregate)
    per = base.score(["cats"] * 4, ["Cats purr.", "Dogs bark.", "Cats and cats.", "Birds."])
    expected = {"max": per.max(), "first": per[0], "mean": per.mean()}[aggregate]
    assert r.score(["cats"], [text])[0] == pytest.approx(expected)


def test_passage_scores_go_through_engine_and_fingerprint_includes_base():
    eng = ScoringEngine(cache=False)
    base = OverlapRanker()
    r = PassageRanker(base=base, size=1, stride=1, engine=eng)
    r.score(["cats", "cats"], ["Cats purr. Dogs bark.", "Dogs bark. Cats purr."])
    # 4 passages requested, only 2 distinct (query, passage) pairs reach the base ranker
    assert eng.stats.pairs_requested == 4 and eng.stats.pairs_scored == 2
    assert r.fingerprint != PassageRanker(base=OverlapRanker(length_weight=0.5), size=1, stride=1).fingerprint
    assert r.fingerprint != PassageRanker(base=base, size=2, stride=1).fingerprint


# ----------------------------------------------------------------- callables, specs
def test_load_callable_and_callable_spec():
    loaded = load_callable("tests.rankers.test_rankers_misc:overlap_fn")
    assert loaded.__wrapped__ is overlap_fn and loaded.fingerprint.startswith("#code=")
    assert loaded("a b", "a b c") == overlap_fn("a b", "a b c")
    r = make_ranker("callable:tests.rankers.test_rankers_misc:overlap_fn")
    assert isinstance(r, FunctionRanker)
    np.testing.assert_array_equal(r.score(["a b", "c"], ["a b c", "d"]), [2.0, 0.0])
    for bad in ["nocolon", "tests.rankers.test_rankers_misc:missing", "no_such_module_x:f",
                "tests.rankers.test_rankers_misc:pytest.__name__"]:
        with pytest.raises(ValidationError):
            load_callable(bad)


def test_make_ranker_specs(tiny, tiny_ce_dir):
    bm25 = make_ranker("bm25", corpus=tiny.docs, k1=1.2)
    assert isinstance(bm25, BM25Ranker) and bm25.fitted and bm25.k1 == 1.2
    assert not make_ranker("bm25").fitted
    assert make_ranker("tfidf", corpus=list(tiny.docs.values())).fitted
    assert isinstance(make_ranker("minilm"), BiEncoderRanker)
    assert make_ranker("st:some/model", similarity="dot").model == "some/model"
    ce = make_ranker(f"cross-encoder:{tiny_ce_dir}")
    assert isinstance(ce, CrossEncoderRanker) and ce.model == str(tiny_ce_dir)
    with pytest.raises(ValidationError, match="Did you mean 'tfidf'"):
        make_ranker("tfdif")
    with pytest.raises(ValidationError, match="needs an argument"):
        make_ranker("monot5")


def test_import_rankers_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, ranklens.rankers, ranklens.embedders; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------- pyterrier
class FakeTransformer:
    """PyTerrier-like re-ranker: score = number of query words in text; returns rows shuffled."""

    def transform(self, df):
        out = df.copy()
        out["score"] = [float(sum(w in t.split() for w in q.split())) for q, t in zip(df["query"], df["text"])]
        return out.iloc[::-1].reset_index(drop=True)


def test_pyterrier_frame_conversion_and_alignment():
    frame = pairs_to_frame(["q a", "q b", "q a"], ["x", "y", "z"])
    assert list(frame.columns) == ["qid", "query", "docno", "text"]
    assert frame["qid"].tolist() == ["q0", "q1", "q0"]
    assert frame["docno"].nunique() == 3
    r = PyTerrierRanker(transformer=FakeTransformer(), name_="fake")
    np.testing.assert_array_equal(r.score(["a b", "c", "a"], ["a b b", "a", "a a"]), [2.0, 0.0, 1.0])

    class Dropping:
        def transform(self, df):
            return df.iloc[:1].assign(score=1.0)

    with pytest.raises(ValidationError, match="dropped"):
        PyTerrierRanker(transformer=Dropping()).score(["a", "b"], ["a", "b"])


def test_pyterrier_real_transformer_scores_pairs_like_a_plain_python_reference():
    import pyterrier as pt

    def overlap(row):
        return float(len(set(row["query"].split()) & set(row["text"].split())))

    ranker = PyTerrierRanker(transformer=pt.apply.doc_score(overlap), name_="overlap")
    queries = ["a b", "a b", "c", "a b"]
    texts = ["a b c", "z", "c c", "b"]
    expected = [len(set(q.split()) & set(t.split())) for q, t in zip(queries, texts)]
    np.testing.assert_array_equal(ranker.score(queries, texts), expected)


# ----------------------------------------------------------------- retrieval
def test_dense_topk_equals_full_sort():
    rng = np.random.default_rng(0)
    q = rng.normal(size=(5, 8)).astype(np.float32)
    d = rng.normal(size=(103, 8)).astype(np.float32)
    idx, sc = dense_topk(q, d, 7, block_size=10)
    full = q @ d.T
    np.testing.assert_array_equal(idx, np.argsort(-full, axis=1, kind="stable")[:, :7])
    np.testing.assert_allclose(sc, np.take_along_axis(full, idx, axis=1), rtol=1e-6)


def test_retrieve_bm25_and_dense_and_rerank(tiny):
    run = retrieve(BM25Ranker(), tiny.queries, tiny.docs, k=3)
    assert list(run.columns) == ["query_id", "doc_id", "score"] and run["score"].dtype == np.float64
    assert run.groupby("query_id").size().max() == 3
    fitted = BM25Ranker().fit(list(tiny.docs.values()))
    top = run[run["query_id"] == "q1"]
    texts = tiny.docs.get_many(top["doc_id"].tolist())
    np.testing.assert_allclose(top["score"], fitted.score(["cats felines"] * len(texts), texts), rtol=1e-12)
    assert top["doc_id"].iloc[0] in {"d1", "d3"}
    with pytest.raises(ValidationError, match="different corpus"):
        retrieve(BM25Ranker().fit(["other text"]), tiny.queries, tiny.docs)

    from ranklens.testing import HashEmbedder

    emb = HashEmbedder(dim=32)
    dense = retrieve(emb, tiny.queries, tiny.docs, k=2, engine=ScoringEngine(cache=False))
    assert len(dense) == 6
    q1 = dense[dense["query_id"] == "q1"]
    vec = emb.encode(["cats felines", tiny.docs[q1["doc_id"].iloc[0]]])
    assert q1["score"].iloc[0] == pytest.approx(float(vec[0] @ vec[1]), rel=1e-5)

    with pytest.raises(ValidationError, match="rerank"):
        retrieve(OverlapRanker(), tiny.queries, tiny.docs)

    rr = rerank(OverlapRanker(), run, tiny.queries, tiny.docs, k=2, engine=ScoringEngine(cache=False))
    assert rr.groupby("query_id").size().max() == 2
    assert (rr.groupby("query_id")["score"].apply(lambda s: s.is_monotonic_decreasing)).all()
    bad = pd.DataFrame({"query_id": ["nope"], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(ValidationError, match="nope"):
        rerank(OverlapRanker(), bad, tiny.queries, tiny.docs)


def test_function_embedder_retrieval_uses_engine_cache(tiny):
    calls = []

    def enc(texts):
        calls.append(len(texts))
        return np.ones((len(texts), 2), dtype=np.float32)

    eng = ScoringEngine(cache=False)
    e = FunctionEmbedder(fn=enc, name_="ones")
    retrieve(e, tiny.queries, tiny.docs, k=1, engine=eng)
    n = sum(calls)
    retrieve(e, tiny.queries, tiny.docs, k=1, engine=eng)
    assert sum(calls) == n  # second run fully cached
