"""Real-data checks on NPL + CISI + CACM + STS-B sentences (run with --realdata)."""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pandas as pd
import pytest

from ranklens.embedders import TfidfEmbedder
from ranklens.embedders.base import FunctionEmbedder
from ranklens.engine import ScoringEngine
from ranklens.neighbors import SentenceCorpus, build_corpus, n2o_matrix, needle_in_haystack

pytestmark = pytest.mark.realdata


def _stsb(root, split):
    rows = []
    with open(root / "stsb" / f"sts-{split}.csv", encoding="utf-8") as f:
        for i, line in enumerate(f):  # column 3 repeats within a file: the line number is the id
            c = line.rstrip("\n").split("\t")
            rows.append({"pair_id": f"{split}:{i}", "score": float(c[4]), "text_a": c[5], "text_b": c[6]})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def real(shared_data):
    docs = []
    for name, fields in (("npl", ("text",)), ("cisi", ("title", "text")), ("cacm", ("title", "abstract"))):
        with open(shared_data / name / "derived" / "docs.jsonl") as f:
            for line in f:
                r = json.loads(line)
                docs.append((f"{name}:{r['doc_id']}", " ".join(
                    (r.get(k) or "").strip().rstrip(".") + "." for k in fields if (r.get(k) or "").strip())))
    stsb = {s: _stsb(shared_data, s) for s in ("train", "dev", "test")}
    for _s, df in stsb.items():
        for r in df.itertuples():
            docs += [(f"stsb:{r.pair_id}:a", r.text_a), (f"stsb:{r.pair_id}:b", r.text_b)]
    return docs, stsb


def test_corpus_counts(real):
    docs, stsb = real
    assert sum(len(v) for v in stsb.values()) == 5749 + 1500 + 1379  # official STS-B sizes
    c = build_corpus(docs)
    assert len(set(c.texts)) == len(c) and c.n_input - c.n_duplicates == len(c)
    assert c.n_duplicates > 1000  # STS-B repeats many sentences across pairs
    assert all(i.split(":")[0] in {"npl", "cisi", "cacm", "stsb"} for i in c.ids)


def _rand(texts):
    return np.array([np.random.default_rng(int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little"))
                     .normal(size=16) for t in texts], np.float32)


def test_needle_tfidf_beats_random(real):
    docs, stsb = real
    full = build_corpus(docs)
    rng = np.random.default_rng(0)
    take = np.sort(rng.choice(len(full), 3000, replace=False))
    corpus = SentenceCorpus(tuple(full.ids[i] for i in take), tuple(full.texts[i] for i in take), 0, 0)
    pairs = pd.concat([stsb["dev"], stsb["test"]], ignore_index=True)
    tfidf = TfidfEmbedder().fit(list(corpus.texts))
    res = needle_in_haystack({"tfidf": tfidf, "random": FunctionEmbedder(fn=_rand, name_="r")}, corpus, pairs,
                             engine=ScoringEngine(cache=False))
    t = res.table.set_index("model")

    def toks(s):
        return set(re.findall(r"[^\W_]+(?:['’][^\W_]+)*", s.lower()))

    expected = sum(1 for r in pairs.itertuples() if 4 <= r.score <= 5 and r.text_a.strip() != r.text_b.strip()
                   and len(toks(r.text_a) & toks(r.text_b)) / max(1, len(toks(r.text_a) | toks(r.text_b))) < 0.6)
    assert t.loc["tfidf", "n_pairs"] == expected > 100
    assert t.loc["tfidf", "mrr"] > 0.2 > 0.02 > t.loc["random", "mrr"]


def test_n2o_tfidf_variants(real):
    docs, _ = real
    full = build_corpus(docs)
    take = np.sort(np.random.default_rng(1).choice(len(full), 3000, replace=False))
    corpus = SentenceCorpus(tuple(full.ids[i] for i in take), tuple(full.texts[i] for i in take), 0, 0)
    texts = list(corpus.texts)
    old = dict(idf="smooth", stem=True, stopwords=True, max_features=4096, tokenizer="ranklens")
    embs = {"paper": TfidfEmbedder().fit(texts), "old": TfidfEmbedder(**old).fit(texts),
            "old-nostem": TfidfEmbedder(**{**old, "stem": False}).fit(texts),
            "random": FunctionEmbedder(fn=_rand, name_="r")}
    res = n2o_matrix(embs, corpus, k=10, n_queries=50, n_samples=2, engine=ScoringEngine(cache=False))
    t = res.table.set_index(["model", "other_model"])["n2o_mean"]
    # stemming alone barely changes neighbours; stopwords + stemming + the cap change many (issue 16:
    # about half); random vectors share almost none
    assert t[("old", "old-nostem")] > t[("paper", "old")] > 0.05 > t[("paper", "random")]
    # "is old closer to paper than to old-nostem?" (vs/than in the order the embedders were given)
    test = res.tables["paired_tests"].set_index(["model", "vs", "than"]).loc[("old", "paper", "old-nostem")]
    assert test["diff"] < 0 and test["p_holm"] < 0.05
