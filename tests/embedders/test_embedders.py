from __future__ import annotations

import numpy as np
import pytest

from ranklens.embedders import (
    FunctionEmbedder,
    HFPoolingEmbedder,
    SentenceTransformerEmbedder,
    TfidfEmbedder,
)
from ranklens.errors import ValidationError
from ranklens.specs import make_embedder

TEXTS = ["cats are small felines", "python is a programming language", "the weather is sunny and dry"]


def test_tfidf_embedder_raw_and_svd(tiny):
    corpus = list(tiny.docs.values())
    raw = TfidfEmbedder(max_features=10).fit(corpus)
    v = raw.encode(TEXTS)
    assert v.dtype == np.float32 and v.shape == (3, 10) and raw.dimension() == 10
    norms = np.linalg.norm(v, axis=1)
    assert np.all((np.abs(norms - 1) < 1e-6) | (norms == 0))
    lsa = TfidfEmbedder(dim=3).fit(corpus)
    z = lsa.encode(corpus)
    assert z.shape == (6, 3)
    np.testing.assert_allclose(np.linalg.norm(z, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(z, TfidfEmbedder(dim=3).fit(corpus).encode(corpus))  # seeded SVD
    assert lsa.fingerprint != TfidfEmbedder(dim=2).fit(corpus).fingerprint
    assert lsa.fingerprint != TfidfEmbedder(dim=3, seed=1).fingerprint
    with pytest.raises(ValidationError, match="dim"):
        TfidfEmbedder(dim=10_000).fit(corpus)
    with pytest.raises(ValidationError, match="fit"):
        TfidfEmbedder().encode(["x"])


def test_hf_pooling_modes_on_tiny_bert(tiny_bert_dir):
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_bert_dir)
    model = AutoModel.from_pretrained(tiny_bert_dir).eval()
    with torch.no_grad():
        hidden = [model(**tok(t, return_tensors="pt")).last_hidden_state[0].numpy() for t in TEXTS]
    expected = {"cls": [h[0] for h in hidden], "mean": [h.mean(0) for h in hidden],
                "last": [h[-1] for h in hidden]}
    for pooling, exp in expected.items():
        e = HFPoolingEmbedder(model=str(tiny_bert_dir), pooling=pooling, normalize=False)
        got = e.encode(TEXTS)  # batched with padding: masks must make it equal to one-by-one
        assert got.shape == (3, 32) and got.dtype == np.float32
        np.testing.assert_allclose(got, np.stack(exp), atol=1e-5)
    normed = HFPoolingEmbedder(model=str(tiny_bert_dir)).encode(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(normed, axis=1), 1.0, atol=1e-6)
    with pytest.raises(ValidationError, match="pooling"):
        HFPoolingEmbedder(pooling="max")


def test_make_embedder_specs(tiny, tiny_bert_dir):
    e = make_embedder(f"hf:{tiny_bert_dir}:cls")
    assert isinstance(e, HFPoolingEmbedder) and e.pooling == "cls" and e.model == str(tiny_bert_dir)
    assert make_embedder(f"hf:{tiny_bert_dir}").pooling == "mean"
    assert isinstance(make_embedder("minilm"), SentenceTransformerEmbedder)
    assert make_embedder("st:x/y", precision="bf16").precision == "bf16"
    assert make_embedder("tfidf", corpus=tiny.docs, dim=2).dimension() == 2
    f = make_embedder("callable:tests.embedders.test_embedders:ones")
    assert isinstance(f, FunctionEmbedder) and f.encode(["a", "b"]).shape == (2, 3)
    with pytest.raises(ValidationError, match="Did you mean 'minilm'"):
        make_embedder("minlm")


def ones(texts):
    return np.ones((len(texts), 3))


@pytest.mark.slow
def test_minilm_st_hf_mean_bf16_and_biencoder():
    from sentence_transformers import SentenceTransformer

    from ranklens._models import default_model_path
    from ranklens.rankers import BiEncoderRanker

    st = SentenceTransformerEmbedder(batch_size=8)
    v = st.encode(TEXTS)
    assert v.shape == (3, 384) and v.dtype == np.float32
    ref = SentenceTransformer(default_model_path(), device="cpu").encode(TEXTS, normalize_embeddings=True)
    np.testing.assert_allclose(v, ref, atol=1e-5)
    mean = HFPoolingEmbedder(pooling="mean").encode(TEXTS)
    assert np.min(np.sum(mean * v, axis=1)) > 0.9999
    cls = HFPoolingEmbedder(pooling="cls").encode(TEXTS)
    assert np.max(np.sum(cls * v, axis=1)) < 0.99
    bf16 = SentenceTransformerEmbedder(precision="bf16").encode(TEXTS)
    assert np.min(np.sum(bf16 * v, axis=1)) > 0.999
    assert SentenceTransformerEmbedder(precision="bf16").fingerprint != st.fingerprint
    r = BiEncoderRanker()
    got = r.score([TEXTS[0], TEXTS[0]], [TEXTS[1], TEXTS[0]])
    np.testing.assert_allclose(got, [float(v[0] @ v[1]), 1.0], atol=1e-5)
    dot = BiEncoderRanker(similarity="dot").score([TEXTS[0]], [TEXTS[1]])
    # all-MiniLM-L6-v2 ends with a Normalize module, so its raw dot product is the cosine
    assert dot[0] == pytest.approx(got[0], abs=1e-4)


def test_make_embedder_builds_through_the_one_spec_registry(monkeypatch):
    """A spec added to ranklens.specs is reachable from make_embedder (no second table), and a
    ranker-only spec is refused as an embedder by the registry."""
    import ranklens.specs as specs
    from ranklens.specs import make_embedder
    from ranklens.testing import HashEmbedder

    seen = {}

    def factory(arg, corpus, params):
        seen.update(arg=arg, corpus=corpus, params=params)
        return HashEmbedder(dim=4)

    toy = specs.ModelSpec("toyemb", "toyemb:<x>", "a test embedder", embedder=factory, needs_corpus=True,
                          needs_arg=True)
    monkeypatch.setitem(specs._BY_KIND, "toyemb", toy)
    e = make_embedder("toyemb:abc", corpus=["a b", "c"], dim=3)
    assert isinstance(e, HashEmbedder) and seen == {"arg": "abc", "corpus": ["a b", "c"], "params": {"dim": 3}}
    with pytest.raises(ValidationError, match="cannot be used as a"):
        make_embedder("bm25")
