"""The shipped demo collection: counts, id integrity, judgement shape, sentence indices, pairs,
the generator being in sync with the files, and a consistency check with a term-overlap ranker."""

from __future__ import annotations

import json

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import nDCG

from ranklens.datasets.demo import (
    DEMO_PAIR_KINDS,
    DEMO_TRAIN_KINDS,
    demo_path,
    load_demo,
    load_demo_pairs,
    load_demo_subdoc_qrels,
    load_demo_train,
)
from ranklens.engine import ScoringEngine, score_pairs
from ranklens.errors import ValidationError
from ranklens.io.collection import Collection
from ranklens.testing import OverlapRanker
from ranklens.text import sentence_spans, split_sentences, tokenize


@pytest.fixture(scope="module")
def demo() -> Collection:
    return load_demo()


@pytest.fixture(scope="module")
def train() -> tuple[pd.DataFrame, pd.DataFrame]:
    return load_demo_train()


def _relevant_sets(qrels: pd.DataFrame, min_grade: int) -> dict[str, set[str]]:
    good = qrels[qrels["relevance"] >= min_grade]
    return {q: set(g["doc_id"]) for q, g in good.groupby("query_id")}


# --- counts and shapes ------------------------------------------------------------------------

def test_collection_counts(demo):
    assert 360 <= len(demo.docs) <= 450
    assert len(demo.queries) == 40
    topics = demo.docs.metadata["topic"].value_counts()
    assert 10 <= len(topics) <= 12
    assert topics.between(30, 40).all(), topics.to_dict()


def test_passages_are_several_sentences_of_50_to_120_words(demo):
    for doc_id, text in demo.docs.iter_docs():
        n_sent = len(split_sentences(text))
        n_words = len(tokenize(text))
        assert 3 <= n_sent <= 6, (doc_id, n_sent)
        assert 50 <= n_words <= 120, (doc_id, n_words)
        assert "\t" not in text and "\n" not in text


def test_frames_use_string_ids_and_int_relevance(demo):
    assert demo.queries.columns.tolist() == ["query_id", "text"]
    assert demo.qrels.columns.tolist() == ["query_id", "doc_id", "relevance"]
    assert demo.qrels["relevance"].dtype == np.int64
    assert all(isinstance(x, str) for x in demo.qrels["doc_id"])
    assert demo.queries["query_id"].is_unique
    assert set(demo.qrels["relevance"]) == {0, 1, 2, 3}


def test_docs_jsonl_fields_and_titles(demo):
    path = demo_path() / "docs.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["doc_id"] for r in rows] == list(demo.docs)
    assert all(set(r) == {"doc_id", "title", "text", "topic"} and r["title"] for r in rows)


# --- qrels -----------------------------------------------------------------------------------

def test_every_judged_id_exists(demo, train):
    doc_ids = set(demo.docs)
    assert set(demo.qrels["doc_id"]) <= doc_ids
    assert set(demo.qrels["query_id"]) == set(demo.queries["query_id"])
    tq, tqr = train
    assert set(tqr["doc_id"]) <= doc_ids
    assert set(tqr["query_id"]) == set(tq["query_id"])
    assert not demo.qrels.duplicated(["query_id", "doc_id"]).any()
    assert not tqr.duplicated(["query_id", "doc_id"]).any()


def test_each_test_query_has_graded_relevant_and_judged_nonrelevant(demo):
    per_query = demo.qrels.groupby("query_id")["relevance"]
    n_rel = per_query.apply(lambda s: int((s > 0).sum()))
    n_non = per_query.apply(lambda s: int((s == 0).sum()))
    n_top = per_query.apply(lambda s: int((s == 3).sum()))
    assert n_rel.between(4, 10).all(), n_rel[~n_rel.between(4, 10)].to_dict()
    assert (n_rel >= 3).all()
    assert (n_non >= 2).all(), n_non[n_non < 2].to_dict()
    assert (n_top >= 1).all()
    assert n_top.sum() >= 80  # "several at grade 3"


def test_near_misses_are_mostly_on_topic(demo):
    """Judged non-relevant passages are chosen, not random: most come from the query's own topic."""
    topic = dict(zip(demo.docs.metadata["doc_id"], demo.docs.metadata["topic"]))
    q_topic = {q: pd.Series([topic[d] for d in g.loc[g.relevance == 3, "doc_id"]]).mode()[0]
               for q, g in demo.qrels.groupby("query_id")}
    zeros = demo.qrels[demo.qrels["relevance"] == 0]
    same = np.mean([topic[d] == q_topic[q] for q, d in zip(zeros["query_id"], zeros["doc_id"])])
    assert 0.5 < same < 1.0  # mostly topical near misses, plus some cross-topic hard negatives


# --- training queries ------------------------------------------------------------------------

def test_train_queries_disjoint_and_kinds(demo, train):
    tq, tqr = train
    assert tq.columns.tolist()[:3] == ["query_id", "text", "kind"]
    assert 60 <= len(tq) <= 100
    assert not set(tq["query_id"]) & set(demo.queries["query_id"])
    assert not set(tq["text"].str.lower()) & set(demo.queries["text"].str.lower())
    counts = tq["kind"].value_counts()
    assert set(counts.index) == set(DEMO_TRAIN_KINDS)
    assert (counts >= len(tq) // 5).all(), counts.to_dict()  # roughly a third each
    has_rel = tqr[tqr["relevance"] > 0].groupby("query_id").size()
    assert set(has_rel.index) == set(tq["query_id"])


def test_train_kinds_match_their_relevant_sets(demo, train):
    """Paraphrases share most of their (grade >= 2) relevant passages with some test query;
    related and unlike queries do not."""
    tq, tqr = train
    test_sets = _relevant_sets(demo.qrels, 2)
    train_sets = _relevant_sets(tqr, 2)

    def best_jaccard(qid: str) -> float:
        r = train_sets.get(qid, set())
        return max(len(r & t) / len(r | t) for t in test_sets.values())

    kind = dict(zip(tq["query_id"], tq["kind"]))
    scores = {q: best_jaccard(q) for q in tq["query_id"]}
    para = [s for q, s in scores.items() if kind[q] == "paraphrase"]
    other = [s for q, s in scores.items() if kind[q] != "paraphrase"]
    assert min(para) >= 0.35
    assert max(other) < 0.35
    unlike = [s for q, s in scores.items() if kind[q] == "unlike"]
    assert np.mean([s == 0 for s in unlike]) > 0.8


# --- sentence-level qrels --------------------------------------------------------------------

def test_subdoc_qrels_cover_every_sentence_of_grade2_pairs(demo):
    sub = load_demo_subdoc_qrels()
    assert sub.columns.tolist() == ["query_id", "doc_id", "sentence_index", "relevant"]
    assert set(sub["relevant"]) == {0, 1}
    graded = demo.qrels[demo.qrels["relevance"] >= 2]
    assert set(zip(sub["query_id"], sub["doc_id"])) == set(zip(graded["query_id"], graded["doc_id"]))
    for (qid, doc_id), g in sub.groupby(["query_id", "doc_id"]):
        text = demo.docs[doc_id]
        n = len(split_sentences(text))
        assert len(sentence_spans(text)) == n
        assert sorted(g["sentence_index"]) == list(range(n)), (qid, doc_id)
        assert g["relevant"].sum() >= 1, (qid, doc_id)


def test_subdoc_relevant_sentences_match_query_terms_more_often(demo):
    """Consistency: answer-bearing sentences share query content terms more often than the rest."""
    from ranklens.text import content_terms

    sub = load_demo_subdoc_qrels()
    qtext = demo.queries_dict()
    overlap = []
    for qid, doc_id, idx, rel in sub.itertuples(index=False):
        sent = split_sentences(demo.docs[doc_id])[idx]
        overlap.append((rel, len(set(content_terms(qtext[qid])) & set(content_terms(sent))) > 0))
    arr = np.array(overlap, dtype=float)
    assert arr[arr[:, 0] == 1, 1].mean() > arr[arr[:, 0] == 0, 1].mean()


# --- pairs -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", DEMO_PAIR_KINDS)
def test_pairs_files(kind):
    pairs = load_demo_pairs(kind)
    assert pairs.columns.tolist() == ["pair_id", "text_a", "text_b", "query"]
    assert 30 <= len(pairs) <= 40
    assert pairs["pair_id"].is_unique
    assert (pairs["text_a"] != pairs["text_b"]).all()
    for col in ("text_a", "text_b"):
        assert (pairs[col].str.len() > 10).all()
        assert not pairs[col].duplicated().any()
    raw = (demo_path() / "pairs" / f"{kind}.tsv").read_text(encoding="utf-8").splitlines()
    assert all(line.count("\t") == 3 for line in raw)


def test_succinctness_pairs_are_summary_then_passage(demo):
    pairs = load_demo_pairs("succinctness")
    titles = dict(zip(demo.docs.metadata["doc_id"], demo.docs.metadata["title"]))
    by_text = {text: doc_id for doc_id, text in demo.docs.iter_docs()}
    for a, b, q in zip(pairs["text_a"], pairs["text_b"], pairs["query"]):
        assert len(split_sentences(a)) == 1
        assert b in by_text and titles[by_text[b]] == q
        assert len(tokenize(a)) < len(tokenize(b)) / 2


def test_factuality_pairs_differ_in_a_small_span():
    pairs = load_demo_pairs("factuality")
    assert (pairs["query"].str.endswith("?")).all()
    for a, b in zip(pairs["text_a"], pairs["text_b"]):
        ta, tb = tokenize(a), tokenize(b)
        changed = len(set(ta) ^ set(tb))
        assert 1 <= changed <= 6, (a, b)


def test_unknown_pair_kind_names_valid_kinds():
    with pytest.raises(ValidationError) as err:
        load_demo_pairs("sarcasm")
    assert "sarcasm" in str(err.value)
    assert all(k in str(err.value) for k in DEMO_PAIR_KINDS)


# --- generator in sync -----------------------------------------------------------------------

def test_shipped_files_match_the_sources(tmp_path):
    from tools.demo_source.build import build

    counts = build(tmp_path)
    assert counts["docs"] == len(load_demo().docs)
    shipped = demo_path()
    for rel in ["docs.jsonl", "queries.tsv", "qrels.trec", "train_queries.tsv", "train_qrels.trec",
                "subdoc_qrels.tsv", *[f"pairs/{k}.tsv" for k in DEMO_PAIR_KINDS]]:
        assert (tmp_path / rel).read_bytes() == (shipped / rel).read_bytes(), rel


# --- consistency with a simple ranker --------------------------------------------------------

def _full_run(coll: Collection, ranker) -> pd.DataFrame:
    doc_ids = list(coll.docs)
    texts = coll.docs.get_many(doc_ids)
    qids = coll.queries["query_id"].tolist()
    qtexts = coll.queries["text"].tolist()
    scores = score_pairs(ranker, [t for t in qtexts for _ in doc_ids], texts * len(qids),
                         engine=ScoringEngine(cache=False))
    return pd.DataFrame({"query_id": np.repeat(qids, len(doc_ids)), "doc_id": doc_ids * len(qids),
                         "score": scores})


def test_overlap_ranker_is_reasonable_but_not_perfect(demo):
    run = _full_run(demo, OverlapRanker())
    value = ir_measures.calc_aggregate([nDCG @ 10], demo.qrels, run)[nDCG @ 10]
    assert 0.5 < value < 0.98, value
    # a ranker that scores the qrels themselves is perfect: the measure setup can tell the two apart
    oracle = run.merge(demo.qrels, how="left", on=["query_id", "doc_id"]).fillna({"relevance": 0})
    oracle = oracle.assign(score=oracle["relevance"].astype(float))[["query_id", "doc_id", "score"]]
    assert ir_measures.calc_aggregate([nDCG @ 10], demo.qrels, oracle)[nDCG @ 10] == pytest.approx(1.0)
