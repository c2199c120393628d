from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from ranklens.embedders import FunctionEmbedder, HFPoolingEmbedder, SentenceTransformerEmbedder, TfidfEmbedder
from ranklens.rankers import (
    BiEncoderRanker,
    BM25Ranker,
    CrossEncoderRanker,
    FunctionRanker,
    MonoT5Ranker,
    PassageRanker,
    PyTerrierRanker,
    TfidfRanker,
)
from ranklens.rankers.base import BaseRanker
from ranklens.testing import ConformanceError, HashEmbedder, OverlapRanker, check_embedder, check_ranker
from ranklens.testing.checks import DEFAULT_TEXTS


def _corpus(tiny):
    return list(tiny.docs.values())


def _fn(qs, ts):
    return [float(len(q) - len(t)) for q, t in zip(qs, ts)]


class _Fake:
    def transform(self, df):
        return df.assign(score=[float(len(t)) for t in df["text"]])


@pytest.mark.parametrize("make", [
    lambda tiny, d: BM25Ranker().fit(_corpus(tiny)),
    lambda tiny, d: BM25Ranker(method="bm25+").fit(_corpus(tiny)),
    lambda tiny, d: TfidfRanker().fit(_corpus(tiny)),
    lambda tiny, d: PassageRanker(base=BM25Ranker().fit(_corpus(tiny)), size=1, stride=1),
    lambda tiny, d: FunctionRanker(fn=_fn, name_="len-diff"),
    lambda tiny, d: PyTerrierRanker(transformer=_Fake(), name_="fake"),
    lambda tiny, d: OverlapRanker(),
    lambda tiny, d: CrossEncoderRanker(model=str(d["ce"])),
    lambda tiny, d: MonoT5Ranker(model=str(d["t5"])),
], ids=["bm25", "bm25+", "tfidf", "passages", "function", "pyterrier", "overlap", "cross-encoder", "monot5"])
def test_builtin_rankers_conform(make, tiny, tiny_ce_dir, tiny_t5_dir):
    done = check_ranker(make(tiny, {"ce": tiny_ce_dir, "t5": tiny_t5_dir}))
    assert {"deterministic", "batch_independent", "empty_input"} <= set(done)


@pytest.mark.parametrize("make", [
    lambda tiny, d: TfidfEmbedder().fit(_corpus(tiny)),
    lambda tiny, d: TfidfEmbedder(dim=3).fit(_corpus(tiny)),
    lambda tiny, d: HFPoolingEmbedder(model=str(d), pooling="mean"),
    lambda tiny, d: HFPoolingEmbedder(model=str(d), pooling="last"),
    lambda tiny, d: FunctionEmbedder(fn=lambda ts: np.ones((len(ts), 4)), name_="ones"),
    lambda tiny, d: HashEmbedder(),
], ids=["tfidf", "tfidf-svd", "hf-mean", "hf-last", "function", "hash"])
def test_builtin_embedders_conform(make, tiny, tiny_bert_dir):
    done = check_embedder(make(tiny, tiny_bert_dir))
    assert "batch_independent" in done


@pytest.mark.slow
def test_minilm_components_conform():
    check_embedder(SentenceTransformerEmbedder())
    check_ranker(BiEncoderRanker(), vary={"similarity": "dot"})


# ----------------------------------------------------------------- the checks can fail
@dataclass(kw_only=True)
class _Nondeterministic(BaseRanker):
    def _score_batch(self, queries, texts):
        return np.random.default_rng().normal(size=len(queries))


@dataclass(kw_only=True)
class _BatchDependent(BaseRanker):
    def _score_batch(self, queries, texts):
        return np.full(len(queries), float(len(queries)))


@dataclass(kw_only=True)
class _Mutating(BaseRanker):
    def score(self, queries, texts):
        out = np.zeros(len(queries))
        if isinstance(queries, list) and queries:
            queries[0] = "changed"
        return out


@dataclass(kw_only=True)
class _ParamBlind(BaseRanker):
    weight: float = 1.0

    @property
    def fingerprint(self):
        return "constant"

    def _score_batch(self, queries, texts):
        return self.weight * np.ones(len(queries))


@pytest.mark.parametrize("ranker, message", [
    (_Nondeterministic(), "deterministic"),
    (_BatchDependent(), "batch"),
    (_Mutating(), "mutated"),
    (_ParamBlind(), "fingerprint does not change"),
    (object(), "not a ranklens.rankers.Ranker"),
])
def test_check_ranker_catches_broken_components(ranker, message):
    with pytest.raises(ConformanceError, match=message):
        check_ranker(ranker)


def test_check_embedder_catches_wrong_dtype_and_padding_leak():
    wrong = FunctionEmbedder(fn=lambda ts: np.ones((len(ts), 2)), name_="x")
    wrong_dtype = type("W", (), {"fingerprint": "w", "encode": lambda self, ts: np.ones((len(ts), 2))})()
    with pytest.raises(ConformanceError, match="float32"):
        check_embedder(wrong_dtype)
    leak = FunctionEmbedder(fn=lambda ts: np.full((len(ts), 2), max(map(len, ts), default=0)), name_="leak")
    with pytest.raises(ConformanceError, match="batch"):
        check_embedder(leak)
    assert "protocol" in check_embedder(wrong, texts=list(DEFAULT_TEXTS))
