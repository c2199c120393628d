"""Needle protocols, pair files, query pools and paired tests against brute-force references."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.embedders.base import FunctionEmbedder
from ranklens.engine import ScoringEngine
from ranklens.errors import DataFormatError, ValidationError
from ranklens.neighbors import build_corpus, n2o_matrix, needle_in_haystack, read_pairs, read_sentences, select_pairs

VEC = {"q1": [1, 0, 0], "n1": [0.7, 0.7, 0], "q2": [0.9, 0.3, 0.1], "n2": [0, 1, 0],
       "c1": [0.8, 0.6, 0.1], "c2": [0, 0, 1], "c3": [0.5, -0.5, 0.7]}


def _emb():
    return FunctionEmbedder(fn=lambda ts: np.array([VEC[t] for t in ts], np.float32), name_="v")


def _brute_rank(query, needle, candidates):
    def cos(a, b):
        a, b = np.array(VEC[a], float), np.array(VEC[b], float)
        return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))

    target = cos(query, needle)
    return 1 + sum(cos(query, c) >= target - 1e-6 for c in candidates)


@pytest.mark.parametrize("protocol", ["one-at-a-time", "all-at-once"])
def test_needle_protocols_equal_brute_force(protocol):
    # the corpus holds the pair sentences too (as with STS-B sentences in the corpus)
    corpus = build_corpus([(t, t) for t in ("c1", "c2", "c3", "q2", "n1")], split=False)
    pairs = pd.DataFrame({"pair_id": ["p1", "p2"], "text_a": ["q1", "q2"], "text_b": ["n1", "n2"],
                          "score": [5.0, 4.5], "overlap": [0.0, 0.0]})
    res = needle_in_haystack({"v": _emb()}, corpus, pairs, protocol=protocol, engine=ScoringEngine(cache=False))
    got = res.tables["per_pair"].set_index("pair_id")["rank"]
    base = ["c1", "c2", "c3"]  # corpus minus every pair sentence
    for pid, q, n in (("p1", "q1", "n1"), ("p2", "q2", "n2")):
        others = [t for t in ("q1", "n1", "q2", "n2") if t not in (q, n)]
        cands = base if protocol == "one-at-a-time" else base + others
        assert got[pid] == _brute_rank(q, n, cands)
    assert res.summary["n_corpus_sentences_taken_out"] == 2


def test_select_pairs_genre_scores_overlap_and_duplicates():
    pairs = pd.DataFrame({"pair_id": ["a", "b", "c", "d", "e"],
                          "genre": ["main-news", "main-captions", "main-news", "main-news", "main-news"],
                          "score": [4.5, 4.8, 3.9, 5.0, 4.2],
                          "text_a": ["x y z", "p q", "m n", "a b c d", "k l"],
                          "text_b": ["u v w", "r s", "o p", "a b c e", "k l"]})
    chosen, notes = select_pairs(pairs)
    # reference: score in [4, 5], Jaccard < 0.6, news, a != b
    def jac(a, b):
        sa, sb = set(a.split()), set(b.split())
        return len(sa & sb) / len(sa | sb)
    expected = [r.pair_id for r in pairs.itertuples() if 4 <= r.score <= 5 and jac(r.text_a, r.text_b) < 0.6
                and "news" in r.genre and r.text_a != r.text_b]
    assert chosen["pair_id"].tolist() == expected and not notes
    with pytest.raises(ValidationError, match="duplicate pair_id"):
        select_pairs(pairs.assign(pair_id=["a", "a", "c", "d", "e"]))
    _, notes = select_pairs(pairs.drop(columns="genre"))
    assert any("genre" in n for n in notes)


def test_read_stsb_and_mrpc_files(tmp_path):
    sts = tmp_path / "sts-dev.csv"
    sts.write_text('main-news\tfile\t2012\t0001\t4.600\tArkansas "Supreme" Court strikes\tArkansas justices\n'
                   "main-captions\tMSRvid\t2012\t0002\t1.0\tA man.\tA dog.\tsrc1\tsrc2\n")
    df = read_pairs(sts)
    assert df["genre"].tolist() == ["main-news", "main-captions"] and df["score"].tolist() == [4.6, 1.0]
    assert df["text_a"][0] == 'Arkansas "Supreme" Court strikes'
    mrpc = tmp_path / "msr.txt"
    mrpc.write_text("\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t11\t12\tOne.\tUno.\n0\t13\t14\tTwo.\tDos.\n")
    assert read_pairs(mrpc)["pair_id"].tolist() == ["11-12", "13-14"]
    sents = read_sentences(sts)
    assert [t for _, t in sents] == ['Arkansas "Supreme" Court strikes', "Arkansas justices", "A man.", "A dog."]
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\nx\ty\n")
    with pytest.raises(DataFormatError):
        read_pairs(bad)


def test_paired_tests_and_cis_equal_per_query_references():
    from ranklens.stats import bootstrap_ci, randomization_test

    rng = np.random.default_rng(1)
    texts = [f"s{i}" for i in range(40)]
    base = {t: rng.normal(size=6) for t in texts}
    def noisy(scale):
        def fn(ts):
            return np.array([base[t] + scale * np.random.default_rng(int(t[1:]) + 99).normal(size=6) for t in ts],
                            np.float32)
        fn.__qualname__ = f"noisy{scale}"
        return fn

    embs = {n: FunctionEmbedder(fn=noisy(s), name_=n) for n, s in (("a", 0.0), ("b", 0.3), ("c", 1.5))}
    corpus = build_corpus([(t, t) for t in texts], split=False)
    res = n2o_matrix(embs, corpus, k=4, n_queries=12, n_samples=2, seed=2, engine=ScoringEngine(cache=False),
                     n_resamples=500)
    perq = res.tables["per_query"]

    def series(x, y):
        s = perq[(perq.model == x) & (perq.other_model == y)]
        return s.sort_values("query_id")["n2o"].to_numpy()

    t = res.tables["paired_tests"].set_index(["model", "vs", "than"])
    ref = randomization_test(series("a", "b"), series("a", "c"), n_resamples=500, seed=2)
    assert t.loc[("a", "b", "c"), "diff"] == pytest.approx(series("a", "b").mean() - series("a", "c").mean())
    assert t.loc[("a", "b", "c"), "p_value"] == pytest.approx(ref.pvalue)
    row = res.table.set_index(["model", "other_model"]).loc[("a", "b")]
    ci = bootstrap_ci(perq[(perq.model == "a") & (perq.other_model == "b")]["n2o"].to_numpy(), seed=2)
    assert (row.ci_low, row.ci_high) == pytest.approx((ci.low, ci.high))


def test_token_jaccard():
    from ranklens.neighbors.needle import token_jaccard

    assert token_jaccard("The cat sat", "the CAT ran") == pytest.approx(2 / 4)
    assert token_jaccard("", "") == 0.0
    assert token_jaccard("a b", "c") == 0.0
