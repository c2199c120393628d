"""The N2O paper's tf-idf and word vectors, against references written here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.specs import make_embedder
from ranklens.text import tokenize

CORPUS = ["It is what it is.", "The cat sat on the mat.", "The dog sat.", "Cats and dogs, 3.6 percent.",
          "running runners run"]


CORPUS = [*CORPUS, "Don't stop: 2010's café, naïve Zoë!", "GDP rose 3.6% in Q2-2011"]


def _gensim_tokens(text):
    """The paper's tokenizer, from gensim itself."""
    from gensim.utils import tokenize as gensim_tokenize

    return list(gensim_tokenize(text, lowercase=True))


def _paper_tfidf(corpus, text):
    """Plain-Python gensim TfidfModel defaults: raw tf * log2(N/df) over gensim's lower-cased
    tokens, L2."""
    docs = [_gensim_tokens(t) for t in corpus]
    vocab = sorted({w for d in docs for w in d})
    df = {w: sum(w in d for d in docs) for w in vocab}
    toks = _gensim_tokens(text)
    v = {w: toks.count(w) * math.log2(len(docs) / df[w]) for w in set(toks) if w in df}
    norm = math.sqrt(sum(x * x for x in v.values()))
    return {w: x / norm for w, x in v.items() if x} if norm else {}


def test_tfidf_default_is_the_papers_full_vocabulary_gensim_weighting():
    e = make_embedder("tfidf", corpus=CORPUS)
    terms = e._vec.get_feature_names_out().tolist()
    assert len(terms) == len({w for t in CORPUS for w in _gensim_tokens(t)})  # no cap, no stopwords, no stems
    assert "q" in terms and "don" in terms and "café" in terms and "2010" not in terms  # gensim's letter runs
    texts = [*CORPUS, "It is what it is, the cat!", "zebra", "3.6 2010"]
    x = e.encode_sparse(texts).toarray()
    for row, text in zip(x, texts):
        ref = _paper_tfidf(CORPUS, text)
        got = {terms[j]: float(row[j]) for j in np.flatnonzero(row)}
        assert got.keys() == ref.keys()
        for w in ref:
            assert got[w] == pytest.approx(ref[w], rel=1e-5)
    assert np.abs(x[0]).sum() > 0  # "It is what it is." is no longer a zero vector
    np.testing.assert_allclose(e.encode(texts), x, rtol=1e-6)  # the dense path agrees


def test_tfidf_equals_gensim_tfidfmodel():
    from gensim.corpora import Dictionary
    from gensim.models import TfidfModel

    docs = [_gensim_tokens(t) for t in CORPUS]
    dct = Dictionary(docs)
    model = TfidfModel([dct.doc2bow(d) for d in docs])
    e = make_embedder("tfidf", corpus=CORPUS)
    terms = e._vec.get_feature_names_out().tolist()
    x = e.encode_sparse(CORPUS).toarray()
    for row, d in zip(x, docs):
        ref = {dct[i]: w for i, w in model[dct.doc2bow(d)]}
        got = {terms[j]: float(row[j]) for j in np.flatnonzero(row)}
        assert got.keys() == ref.keys()
        for w in ref:
            assert got[w] == pytest.approx(ref[w], rel=1e-5)


def test_old_variant_equals_sklearn_tfidfvectorizer():
    from sklearn.feature_extraction.text import TfidfVectorizer

    from ranklens.text import STOPWORDS, stem_tokens

    def analyzer(t):
        return stem_tokens([w for w in tokenize(t) if w not in STOPWORDS])

    ref = TfidfVectorizer(analyzer=analyzer).fit(CORPUS)
    e = make_embedder("tfidf", corpus=CORPUS, idf="smooth", stem=True, stopwords=True, tokenizer="ranklens")
    assert e._vec.get_feature_names_out().tolist() == ref.get_feature_names_out().tolist()
    np.testing.assert_allclose(e.encode(CORPUS), ref.transform(CORPUS).toarray(), rtol=1e-5, atol=1e-7)


def _write_vectors(path, vecs):
    lines = [f"{len(vecs)} {len(next(iter(vecs.values())))}"]
    lines += [w + " " + " ".join(str(x) for x in v) for w, v in vecs.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_wordvec_cased_lookup_with_lower_case_fallback(tmp_path):
    vecs = {"Paris": [1.0, 0.0], "paris": [0.0, 1.0], "apple": [2.0, 2.0], "Apple": [4.0, 0.0], "the": [1.0, 1.0]}
    path = _write_vectors(tmp_path / "cased.txt", vecs)

    def ref(text, case):
        out = []
        for t in tokenize(text, lower=False):
            key = t.lower() if case == "lower" else t
            if key in vecs:
                out.append(vecs[key])
            elif case == "preserve" and t.lower() in vecs:
                out.append(vecs[t.lower()])
        return np.mean(out, axis=0) if out else np.zeros(2)

    texts = ["Paris", "paris", "Apple pie", "THE Paris", "PARIS", "nothing known"]
    for case in ("preserve", "lower", "exact"):
        got = make_embedder(f"wordvec:{path}", case=case).encode(texts)
        np.testing.assert_allclose(got, np.stack([ref(t, case) for t in texts]), rtol=1e-6)
    # the paper's cased vectors: "Paris" is Paris, not paris
    np.testing.assert_allclose(make_embedder(f"wordvec:{path}").encode(["Paris"])[0], [1.0, 0.0])


def test_fasttext_bin_with_subwords(tmp_path):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sents = [tokenize(t, lower=False) for t in CORPUS * 3]
    model = FastText(sentences=sents, vector_size=8, min_count=1, epochs=2, seed=0, workers=1, min_n=2, max_n=4)
    path = tmp_path / "tiny.bin"
    save_facebook_model(model, str(path))
    e = make_embedder(f"wordvec:{path}")
    from gensim.models.fasttext import load_facebook_vectors

    kv = load_facebook_vectors(str(path))
    out = e.encode(["cat sat", "catsat"])  # "catsat" is out of vocabulary: subword vector
    np.testing.assert_allclose(out[0], (kv["cat"] + kv["sat"]) / 2, rtol=1e-5)
    np.testing.assert_allclose(out[1], kv["catsat"], rtol=1e-5)
    assert np.abs(out[1]).sum() > 0


def test_trained_specs_need_a_corpus():
    from ranklens.errors import ValidationError

    with pytest.raises(ValidationError, match="corpus"):
        make_embedder("word2vec")
    e = make_embedder("fasttext-nosub", corpus=CORPUS, vector_size=4)
    assert e.name == "fasttext-nosub" and e.encode(["cat"]).shape == (1, 4)


def test_tfidf_ranklens_tokenizer_is_a_named_variant():
    """tokenizer="ranklens": ranklens.text.tokenize (digits kept) with the same gensim weighting."""
    from ranklens.embedders.tfidf import gensim_tokens

    e = make_embedder("tfidf", corpus=CORPUS, tokenizer="ranklens")
    terms = e._vec.get_feature_names_out().tolist()
    assert set(terms) == {w for t in CORPUS for w in tokenize(t)} and "2011" in terms
    assert e.fingerprint != make_embedder("tfidf", corpus=CORPUS).fingerprint
    for t in CORPUS:
        assert gensim_tokens(t) == _gensim_tokens(t)
