"""PyTerrier both ways, against plain-Python references: a ranklens ranker as a ``pt.Transformer``
re-ranking a PyTerrier frame, ASL inside ``pt.Experiment`` (through ir_measures), and the readers
taking PyTerrier's column names. python-terrier 1.x needs no Java for these pure-Python parts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.rankers.pyterrier import as_transformer, pyterrier_to_run, run_to_pyterrier

pt = pytest.importorskip("pyterrier")

DOCS = {
    "d1": "cats purr and cats sleep",
    "d2": "dogs bark at cats",
    "d3": "felines such as cats",
    "d4": "python programming language",
    "d5": "snakes and pythons",
    "d6": "programming in python with cats",
}
TOPICS = pd.DataFrame({"qid": ["1", "2"], "query": ["cats", "python programming"]})
QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2", "2"], "docno": ["d1", "d3", "d2", "d4", "d6", "d5"],
                      "label": [2, 1, 0, 2, 1, 0]})


def count_score(query: str, text: str) -> float:
    """The reference ranker: occurrences of query words in the text."""
    words = set(query.split())
    return float(sum(w in words for w in text.split()))


def count_ranker(queries, texts):
    return [count_score(q, t) for q, t in zip(queries, texts)]


def candidates() -> pd.DataFrame:
    """A first-stage result: every document for every topic, with a meaningless score."""
    rows = [(qid, q, d, DOCS[d], 0.0) for qid, q in zip(TOPICS["qid"], TOPICS["query"]) for d in DOCS]
    return pd.DataFrame(rows, columns=["qid", "query", "docno", "text", "score"])


def reference_rerank(frame: pd.DataFrame) -> list[tuple[str, str, float, int]]:
    """Plain Python: score each row, order by score descending then docno descending (trec_eval)."""
    out = []
    for qid in sorted(set(frame["qid"])):
        rows = [(d, count_score(q, t)) for q2, q, d, t in zip(frame["qid"], frame["query"], frame["docno"],
                                                                frame["text"]) if q2 == qid]
        rows.sort(key=lambda r: r[0], reverse=True)
        rows.sort(key=lambda r: r[1], reverse=True)  # stable: ties keep docno descending
        out += [(qid, d, s, i) for i, (d, s) in enumerate(rows)]
    return out


def _ranker():
    from ranklens.rankers import FunctionRanker

    return FunctionRanker(fn=count_ranker, name_="count")


def test_transformer_reranks_a_pyterrier_frame_like_the_reference():
    t = as_transformer(_ranker(), engine=ScoringEngine(cache=False))
    assert isinstance(t, pt.Transformer)
    frame = candidates()
    out = t.transform(frame)
    got = list(zip(out["qid"], out["docno"], out["score"], out["rank"]))
    assert got == reference_rerank(frame)
    assert set(frame.columns) <= set(out.columns)  # the other columns travel on
    assert (out["text"] == out["docno"].map(DOCS)).all()
    pd.testing.assert_frame_equal(frame, candidates())  # input not mutated


def test_transformer_composes_in_a_pipeline_and_looks_texts_up_in_docs():
    first = pt.apply.generic(lambda topics: candidates().drop(columns="text").merge(topics[["qid"]], on="qid"))
    pipeline = first >> as_transformer(_ranker(), docs=DOCS, engine=ScoringEngine(cache=False))
    out = pipeline.transform(TOPICS)
    assert list(zip(out["qid"], out["docno"], out["score"], out["rank"])) == reference_rerank(candidates())
    with pytest.raises(ValidationError, match="no 'text' column"):
        as_transformer(_ranker()).transform(candidates().drop(columns="text"))
    with pytest.raises(ValidationError, match="lacks column"):
        as_transformer(_ranker()).transform(candidates().drop(columns="query"))


def test_transformer_from_a_spec_fits_on_docs():
    from ranklens.rankers import BM25Ranker

    out = as_transformer("bm25", docs=DOCS).transform(candidates())
    fitted = BM25Ranker().fit(list(DOCS.values()))
    expected = fitted.score(out["query"].tolist(), out["text"].tolist())
    np.testing.assert_allclose(out["score"], expected, rtol=1e-12)
    with pytest.raises(ValidationError, match="spec string"):
        as_transformer(_ranker(), k1=1.0)
    with pytest.raises(ValidationError, match="ties"):
        as_transformer(_ranker(), ties="random")


def test_empty_frame_gives_an_empty_frame():
    out = as_transformer(_ranker()).transform(candidates().iloc[:0])
    assert out.empty and {"score", "rank"} <= set(out.columns)


def reference_asl(frame: pd.DataFrame, qrels: pd.DataFrame) -> float:
    """ASL by hand: per relevant retrieved doc, 1 + non-relevant docs above it; mean per query,
    then over queries (every relevant doc is retrieved here)."""
    rel = {(q, d) for q, d, g in zip(qrels["qid"], qrels["docno"], qrels["label"]) if g >= 1}
    per_query = []
    for qid in sorted(set(frame["qid"])):
        ranked = [d for _, d, _, _ in sorted((r for r in reference_rerank(frame) if r[0] == qid),
                                             key=lambda r: r[3])]
        sls, nonrel = [], 0
        for d in ranked:
            if (qid, d) in rel:
                sls.append(1 + nonrel)
            else:
                nonrel += 1
        per_query.append(sum(sls) / len(sls))
    return sum(per_query) / len(per_query)


def test_asl_inside_pt_experiment_matches_a_hand_computed_asl():
    import ir_measures

    from ranklens.asl.ir_measures_ext import as_ir_measure

    first = pt.apply.generic(lambda topics: candidates().merge(topics[["qid"]], on="qid"))
    system = first >> as_transformer(_ranker(), engine=ScoringEngine(cache=False))
    res = pt.Experiment([system], TOPICS, QRELS, eval_metrics=[as_ir_measure("ASL"), ir_measures.nDCG @ 10],
                        names=["count"])
    asl = float(res["ASL"].iloc[0])
    assert asl == pytest.approx(reference_asl(candidates(), QRELS), abs=1e-12)

    run = pyterrier_to_run(system.transform(TOPICS))
    ndcg = ir_measures.calc_aggregate([ir_measures.nDCG @ 10],
                                      QRELS.rename(columns={"qid": "query_id", "docno": "doc_id",
                                                            "label": "relevance"}), run)
    assert float(res["nDCG@10"].iloc[0]) == pytest.approx(ndcg[ir_measures.nDCG @ 10], abs=1e-12)

    from ranklens.asl import evaluate

    result = evaluate(QRELS.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}),
                      {"count": run}, ["ASL"])
    assert float(result.summary["ASL"]) == pytest.approx(asl, abs=1e-12)


def test_frames_between_the_two_conventions():
    run = pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["a", "b", "c", "a"],
                        "score": [1.0, 2.0, 1.0, 5.0]})
    pt_frame = run_to_pyterrier(run, TOPICS)
    assert list(pt_frame.columns) == ["qid", "query", "docno", "score", "rank"]
    # score descending, equal scores by docno descending (trec_eval), ranks 0-based
    assert list(zip(pt_frame["qid"], pt_frame["docno"], pt_frame["rank"])) == [
        ("1", "b", 0), ("1", "c", 1), ("1", "a", 2), ("2", "a", 0)]
    assert pt_frame["query"].tolist() == ["cats"] * 3 + ["python programming"]
    back = pyterrier_to_run(pt_frame)
    assert list(back.columns) == ["query_id", "doc_id", "score"]
    assert sorted(zip(back["query_id"], back["doc_id"], back["score"])) == sorted(
        zip(run["query_id"], run["doc_id"], run["score"]))


def test_readers_take_pyterrier_column_names():
    from ranklens.io import read_docs, read_qrels, read_queries, read_run

    q = read_qrels(QRELS)
    assert list(q.columns) == ["query_id", "doc_id", "relevance"]
    assert list(zip(q["query_id"], q["doc_id"], q["relevance"])) == list(zip(QRELS["qid"], QRELS["docno"],
                                                                           QRELS["label"]))
    topics = read_queries(TOPICS)
    assert list(zip(topics["query_id"], topics["text"])) == list(zip(TOPICS["qid"], TOPICS["query"]))
    r = read_run(candidates().assign(score=[float(i) for i in range(12)]))
    assert {"query_id", "doc_id", "score"} <= set(r.columns)
    docs = read_docs(pd.DataFrame({"docno": list(DOCS), "text": list(DOCS.values())}))
    assert dict(docs.iter_docs()) == DOCS


def test_transformer_pickles_for_parallel_pipelines():
    import pickle

    from ranklens.rankers import BM25Ranker

    t = as_transformer(BM25Ranker().fit(list(DOCS.values())), engine=None)
    back = pickle.loads(pickle.dumps(t))
    assert type(back) is type(t) and back.ranker.fingerprint == t.ranker.fingerprint
    pd.testing.assert_frame_equal(back.transform(candidates()), t.transform(candidates()))
