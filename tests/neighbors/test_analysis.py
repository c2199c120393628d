from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from ranklens.embedders.base import FunctionEmbedder
from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.neighbors import (
    NeighborSearch,
    build_corpus,
    n2o_matrix,
    n2o_robustness,
    needle_in_haystack,
    plot_n2o_distribution,
    plot_n2o_matrix,
    plot_needle,
    plot_ranker_overlap,
    plot_robustness,
    plot_token_overlap,
    popular_outliers,
    ranker_overlap,
    run_from_ranker,
    sample_queries,
    token_overlap,
)
from ranklens.search.rows import l2_normalize
from ranklens.results import Result
from ranklens.testing import HashEmbedder, OverlapRanker

WORDS = "cat dog bird fish lion tiger snake horse cow sheep goat mouse rat bee ant owl".split()


def _random_vecs(texts, dim=12):
    out = []
    for t in texts:
        seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
        out.append(np.random.default_rng(seed).normal(size=dim))
    return np.array(out, np.float32)


def random_embedder():
    return FunctionEmbedder(fn=_random_vecs, name_="random")


def _noisy(scale):
    def fn(texts):
        # the random vectors plus text-seeded noise: correlated with "random", no exact ties
        return _random_vecs(texts) + scale * _random_vecs([t + "#noise" for t in texts])

    fn.__qualname__ = f"noisy{scale}"
    return FunctionEmbedder(fn=fn, name_=f"noisy{scale}")


@pytest.fixture
def corpus():
    rng = np.random.default_rng(0)
    docs = {f"d{i}": " ".join(rng.choice(WORDS, size=5)) + "." for i in range(120)}
    return build_corpus(docs)


def slow_n2o(va, vb, qidx, k):
    """Reference: full cosine matrices, sets of the k best (ties by index), query excluded."""
    out = []
    for q in qidx:
        sets = []
        for v in (va, vb):
            s = l2_normalize(v) @ l2_normalize(v[q : q + 1]).T
            order = sorted((j for j in range(len(v)) if j != q), key=lambda j: (-s[j, 0], j))
            sets.append(set(order[:k]))
        out.append(len(sets[0] & sets[1]) / k)
    return float(np.mean(out))


def test_sample_queries_seeded_distinct():
    a = sample_queries(50, 10, 3, seed=1)
    b = sample_queries(50, 10, 3, seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert all(len(set(x)) == 10 for x in a)
    with pytest.raises(ValidationError):
        sample_queries(5, 6, 1, 0)


def test_n2o_matrix_matches_slow_reference(corpus, tmp_path):
    # continuous vectors (no ties, so float rounding cannot reorder neighbours)
    embs = {"h8": _noisy(0.3), "h64": _noisy(1.0), "rand": random_embedder()}
    eng = ScoringEngine(cache=False)
    res = n2o_matrix(embs, corpus, k=7, n_queries=15, n_samples=3, seed=3, engine=eng)
    vecs = {n: e.encode(list(corpus.texts)) for n, e in embs.items()}
    samples = sample_queries(len(corpus), 15, 3, 3)
    per = res.tables["per_sample"]
    for s, q in enumerate(samples):
        for a, b in [("h8", "h64"), ("h8", "rand"), ("h64", "rand")]:
            got = per[(per["sample"] == s) & (per["model"] == a) & (per["other_model"] == b)]["n2o"].item()
            assert got == pytest.approx(slow_n2o(vecs[a], vecs[b], q, 7))
    row = res.table[(res.table.model == "h8") & (res.table.other_model == "h64")].iloc[0]
    vals = per[(per.model == "h8") & (per.other_model == "h64")]["n2o"]
    assert row.n2o_mean == pytest.approx(vals.mean())
    assert row.n2o_std == pytest.approx(vals.std(ddof=1))
    m = res.tables["matrix"].set_index("model")
    assert np.allclose(m.to_numpy(), m.to_numpy().T) and np.allclose(np.diag(m.to_numpy()), 1)
    assert res.provenance.components["h8"] == embs["h8"].fingerprint
    assert 0 < row.n2o_mean < 1
    assert res.provenance.seed == 3
    # round trip and plots
    back = Result.load(res.save(tmp_path / "r"))
    assert back.kind == "neighbors-matrix"
    assert plot_n2o_matrix(back).axes and plot_n2o_distribution(back).axes


def test_identical_embedders_overlap_fully_and_random_is_low(corpus):
    same = FunctionEmbedder(fn=lambda ts: HashEmbedder(dim=32).encode(ts), name_="copy")
    res = n2o_matrix({"a": HashEmbedder(dim=32), "b": same, "r": random_embedder()}, corpus,
                     k=5, n_queries=20, n_samples=2, engine=ScoringEngine(cache=False))
    t = res.table.set_index(["model", "other_model"])
    assert t.loc[("a", "b"), "n2o_mean"] == pytest.approx(1.0)
    assert t.loc[("a", "r"), "n2o_mean"] < 0.5


@pytest.mark.parametrize("backend", ["faiss", "hnsw", "ivf", "torch"])
def test_backends_agree_with_numpy(corpus, backend):
    pytest.importorskip("faiss" if backend != "torch" else "torch")
    embs = {"noisy": _noisy(0.5), "rand": random_embedder()}
    eng = ScoringEngine(cache=False)
    base = n2o_matrix(embs, corpus, k=5, n_queries=10, n_samples=1, engine=eng)
    other = n2o_matrix(embs, corpus, k=5, n_queries=10, n_samples=1, engine=eng,
                       search=NeighborSearch(backend=backend, ef_search=400, ef_construction=200, n_holdout=20,
                                             nlist=4, nprobe=2))
    if backend in ("hnsw", "ivf"):
        recall = other.summary[f"{backend}_recall_at_k"]
        assert min(recall.values()) > 0.8
        assert other.provenance.params["search"]["backend"] == backend
    else:
        assert other.table["n2o_mean"].tolist() == pytest.approx(base.table["n2o_mean"].tolist())


def test_robustness(corpus):
    embs = {"h8": HashEmbedder(dim=8), "h64": HashEmbedder(dim=64), "rand": random_embedder(),
            "h16": HashEmbedder(dim=16)}
    res = n2o_robustness(embs, corpus, ks=(3, 6, 9), n_queries=20, n_samples=3,
                         engine=ScoringEngine(cache=False))
    t = res.table
    assert len(t[t.comparison == "k"]) == 3 and len(t[t.comparison == "sample"]) == 3
    assert t["spearman_rho"].between(-1, 1).all()
    vals = res.tables["values"]
    assert set(vals["k"]) == {3, 6, 9} and len(vals) == 3 * 3 * 6
    assert plot_robustness(res).axes
    with pytest.raises(ValidationError):
        n2o_robustness({"a": HashEmbedder(dim=8), "b": HashEmbedder(dim=9)}, corpus)


def test_token_overlap_bag_of_words_beats_random(corpus):
    res = token_overlap({"bow": HashEmbedder(dim=256), "rand": random_embedder()}, corpus, k=5,
                        n_queries=30, engine=ScoringEngine(cache=False))
    t = res.table.set_index("model")
    assert t.loc["bow", "mean"] > t.loc["rand", "ci_high"]
    assert (t["ci_low"] <= t["mean"]).all() and (t["mean"] <= t["ci_high"]).all()
    assert set(t.index) == {"bow", "rand", "random"}
    assert res.summary["highest"] == "bow"
    per = res.tables["per_query"]
    # the distinct queries of the N2O matrix's 5 samples of 30, each once, for all three rows
    n_distinct = len(np.unique(np.concatenate(sample_queries(len(corpus), 30, 5, 0))))
    assert len(per) == 3 * n_distinct and res.summary["n_queries"] == n_distinct
    assert plot_token_overlap(res).axes


def test_popular_outliers_hand_built():
    # 2-D vectors: embedder A and B agree on the two nearest points, disagree on the others
    texts = ["q.", "p1.", "p2.", "a only.", "b only."]
    va = {"q.": [1, 0], "p1.": [1, 0.1], "p2.": [1, 0.2], "a only.": [1, 0.3], "b only.": [-1, 0]}
    vb = {"q.": [1, 0], "p1.": [1, 0.1], "p2.": [1, 0.2], "a only.": [-1, 0], "b only.": [1, 0.3]}
    ea = FunctionEmbedder(fn=lambda ts: np.array([va[t] for t in ts], np.float32), name_="A")
    eb = FunctionEmbedder(fn=lambda ts: np.array([vb[t] for t in ts], np.float32), name_="B")
    corpus = build_corpus([(f"t{i}", t) for i, t in enumerate(texts)], split=False)
    res = popular_outliers({"A": ea, "B": eb}, corpus, "q.", m=3, k=3, engine=ScoringEngine(cache=False))
    t = res.table
    assert set(t[t.kind == "popular"]["text"]) == {"p1.", "p2."}
    out = t[t.kind == "outlier"]
    assert out[out.model == "A"]["text"].tolist() == ["a only."]
    assert out[out.model == "B"]["text"].tolist() == ["b only."]


def test_needle_ranks_hand_built():
    vec = {"query": [1, 0], "needle": [0.8, 0.6], "closer": [0.9, 0.1], "far": [0, 1], "far2": [-1, 0]}
    e = FunctionEmbedder(fn=lambda ts: np.array([vec[t.rstrip('.')] for t in ts], np.float32), name_="v")
    const = FunctionEmbedder(fn=lambda ts: np.ones((len(ts), 2), np.float32), name_="const")
    corpus = build_corpus([(k, k + ".") for k in ("closer", "far", "far2")], split=False)
    pairs = pd.DataFrame({"pair_id": ["p", "low"], "text_a": ["query.", "far."], "text_b": ["needle.", "far2."],
                          "score": [4.5, 1.0]})
    res = needle_in_haystack({"v": e, "const": const}, corpus, pairs, engine=ScoringEngine(cache=False))
    t = res.table.set_index("model")
    assert t.loc["v", "n_pairs"] == 1  # the low-score pair is filtered out
    assert t.loc["v", "mrr"] == pytest.approx(1 / 2)  # "closer" outranks the needle
    assert (t.loc["v", "n_top1"], t.loc["v", "n_top5"]) == (0, 1)
    # a constant embedder ties everything: pessimistic rank = last of the 4 candidates
    assert t.loc["const", "mrr"] == pytest.approx(1 / 4)
    assert plot_needle(res).axes


def test_needle_overlap_filter():
    corpus = build_corpus({"d": "x."})
    pairs = pd.DataFrame({"text_a": ["the cat sat"], "text_b": ["the cat sat down"], "score": [5.0]})
    with pytest.raises(ValidationError):
        needle_in_haystack({"h": HashEmbedder(dim=8)}, corpus, pairs)


def test_ranker_overlap_hand_values(tiny):
    runs = {
        "a": pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["x", "y", "z", "u"],
                           "score": [3.0, 2.0, 1.0, 1.0]}),
        "b": pd.DataFrame({"query_id": ["1", "1", "1", "3"], "doc_id": ["y", "x", "w", "u"],
                           "score": [3.0, 2.0, 1.0, 1.0]}),
    }
    res = ranker_overlap(runs, k=2, p=0.5)
    row = res.table.iloc[0]
    assert row.overlap_mean == pytest.approx(1.0)  # {x, y} both
    # RBO_ext(xy, yx, p=.5): X = (0, 2) -> (1-p)/p * (0/1*.5 + 2/2*.25) + 2/2*.25 = 0.5
    assert row.rbo_mean == pytest.approx(0.5)
    assert res.summary["n_queries"] == 1 and res.summary["n_queries_dropped"] == 2
    # ties: equal scores are ordered by doc_id descending (trec_eval)
    tie = {"a": pd.DataFrame({"query_id": ["1"] * 2, "doc_id": ["m", "n"], "score": [1.0, 1.0]}),
           "b": pd.DataFrame({"query_id": ["1"] * 2, "doc_id": ["n", "q"], "score": [1.0, 0.0]})}
    assert ranker_overlap(tie, k=1).table["overlap_mean"].item() == pytest.approx(1.0)
    run = run_from_ranker(OverlapRanker(), tiny.queries, tiny.docs)
    assert len(run) == len(tiny.queries) * len(tiny.docs)
    assert plot_ranker_overlap(res).axes


def test_token_overlap_content_terms():
    # "the"/"a" are stopwords: with content terms only the stems count
    texts = ["the cats run.", "a cat running.", "the the the dog.", "birds fly high."]
    vec = {t: v for t, v in zip(texts, [[1, 0], [1, 0.1], [1, 0.2], [-1, 0]])}
    e = FunctionEmbedder(fn=lambda ts: np.array([vec[t] for t in ts], np.float32), name_="v")
    corpus = build_corpus([(str(i), t) for i, t in enumerate(texts)], split=False)
    kw = dict(k=1, n_queries=4, engine=ScoringEngine(cache=False))
    tok = token_overlap({"v": e}, corpus, terms="tokens", **kw).tables["per_query"]
    tok = tok[tok.model == "v"].set_index("query_id")["overlap"]
    con = token_overlap({"v": e}, corpus, terms="content", **kw).tables["per_query"]
    con = con[con.model == "v"].set_index("query_id")["overlap"]
    # query 0 ("the cats run.") -> neighbour 1 ("a cat running."): tokens share nothing, stems {cat, run} all
    assert tok["0"] == 0.0 and con["0"] == 1.0
    # query 2 -> neighbour 1: no shared token; content {dog} vs {cat, run}: 0
    assert con["2"] == 0.0


def _zero_for_unknown(embedder, name):
    """Like ``embedder`` but the zero vector for texts made only of unknown words ("unk...")."""

    def fn(texts):
        v = embedder.encode(list(texts))
        v[[t.startswith("unk") for t in texts]] = 0
        return v

    fn.__qualname__ = f"zero_unknown_{name}"
    return FunctionEmbedder(fn=fn, name_=name)


@pytest.fixture
def corpus_with_unknown_texts():
    rng = np.random.default_rng(4)
    docs = [(f"d{i}", " ".join(rng.choice(WORDS, size=5)) + ".") for i in range(40)]
    docs += [(f"u{i}", f"unk{i} xyz{i}.") for i in range(8)]
    return build_corpus(docs, split=False)


def test_zero_vector_queries_left_out_of_n2o(corpus_with_unknown_texts):
    corpus = corpus_with_unknown_texts
    n = len(corpus)
    embs = {"a": _zero_for_unknown(_noisy(0.3), "a"), "b": _zero_for_unknown(_noisy(1.0), "b"),
            "r": random_embedder()}
    res = n2o_matrix(embs, corpus, k=5, n_queries=n, n_samples=1, engine=ScoringEngine(cache=False))
    assert res.summary["n_zero_vector_queries"] == {"a": 8, "b": 8, "r": 0}
    vecs = {name: e.encode(list(corpus.texts)) for name, e in embs.items()}
    known = [i for i, t in enumerate(corpus.texts) if not t.startswith("unk")]
    per = res.tables["per_sample"].set_index(["model", "other_model"])
    # two embedders that both give zeros for the "unk" queries used to agree on them fully
    # (both returned corpus rows 0..k-1); now those queries are not counted for their pairs
    assert per.loc[("a", "b"), "n2o"] == pytest.approx(slow_n2o(vecs["a"], vecs["b"], known, 5))
    assert per.loc[("a", "r"), "n2o"] == pytest.approx(slow_n2o(vecs["a"], vecs["r"], known, 5))
    assert per.loc[("a", "b"), "n_queries"] == n - 8
    assert per.loc[("a", "r"), "n_queries"] == n - 8
    search = res.tables["search"].set_index("model")
    assert search.loc["a", "n_zero_vector_queries"] == 8
    rob = n2o_robustness({**embs, "h": _noisy(2.0)}, corpus, ks=(3, 5), n_queries=n, n_samples=2,
                         engine=ScoringEngine(cache=False))
    assert rob.summary["n_zero_vector_queries"] == {"a": 8, "b": 8, "r": 0, "h": 0}
    assert (rob.tables["values"].set_index(["model", "other_model"]).loc[("a", "b"), "n_queries"] == n - 8).all()


def test_zero_vector_queries_left_out_of_token_overlap(corpus_with_unknown_texts):
    corpus = corpus_with_unknown_texts
    n = len(corpus)
    res = token_overlap({"a": _zero_for_unknown(_noisy(0.3), "a"), "r": random_embedder()}, corpus, k=3,
                        n_queries=n, engine=ScoringEngine(cache=False))
    assert res.summary["n_zero_vector_queries"] == {"a": 8, "r": 0}
    t = res.table.set_index("model")
    assert t.loc["a", "n_queries"] == n - 8 and t.loc["r", "n_queries"] == n
    per = res.tables["per_query"]
    assert not per[(per.model == "a") & per.query_id.str.startswith("u")].shape[0]
