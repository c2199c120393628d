"""Word tokenization of static word vectors as the N2O paper did it (App. A): spaCy's tokenizer
for word2vec / GloVe, fastText's own whitespace split for fastText; against references here."""

from __future__ import annotations

import numpy as np
import pytest

from ranklens.embedders.wordvectors import TrainedWordVectorEmbedder, WordVectorFileEmbedder
from ranklens.errors import ValidationError
from ranklens.text import word_tokens

TEXTS = ["Paris's U.S.-based firm don't\tpay $5.50,  Mr. Smith.", "", "  It is what\u00a0it is. "]


def test_spacy_tokens_are_spacys_own():
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")  # reference: spaCy's English tokenizer, called directly
    ref = [[t.text for t in nlp(x) if not t.is_space] for x in TEXTS]
    assert word_tokens(TEXTS, "spacy") == ref
    assert ref[0][:6] == ["Paris", "'s", "U.S.-based", "firm", "do", "n't"]  # the edge: clitics split


def test_fasttext_tokens_split_on_ascii_whitespace_only():
    # fastText's reader splits on ' ', \t, \n, \v, \f, \r, \0 -- not on a no-break space
    assert word_tokens(TEXTS, "fasttext") == [
        ["Paris's", "U.S.-based", "firm", "don't", "pay", "$5.50,", "Mr.", "Smith."], [],
        ["It", "is", "what\u00a0it", "is."]]


def test_ranklens_tokens_keep_case():
    assert word_tokens(TEXTS[:1], "ranklens") == [["Paris's", "U", "S", "based", "firm", "don't", "pay", "5", "50",
                                                   "Mr", "Smith"]]
    with pytest.raises(ValueError, match="unknown word tokenizer"):
        word_tokens(TEXTS, "nltk")


def _vectors_file(tmp_path, words):
    rng = np.random.default_rng(0)
    vecs = {w: rng.normal(size=4).round(3) for w in words}
    p = tmp_path / "vectors.txt"
    p.write_text(f"{len(vecs)} 4\n" + "".join(f"{w} {' '.join(map(str, v))}\n" for w, v in vecs.items()))
    return p, vecs


def test_file_vectors_average_the_tokens_of_the_chosen_tokenizer(tmp_path):
    pytest.importorskip("gensim")
    pytest.importorskip("spacy")
    p, vecs = _vectors_file(tmp_path, ["do", "n't", "don't", "Paris", "'s", "Paris's", ",", "stop"])
    text = "Paris's, don't stop"
    by = {tok: WordVectorFileEmbedder(path=str(p), tokenizer=tok).encode([text])[0]
          for tok in ("paper", "spacy", "fasttext", "ranklens")}
    spacy_ref = np.mean([vecs[w] for w in ["Paris", "'s", ",", "do", "n't", "stop"]], axis=0)
    ranklens_ref = np.mean([vecs[w] for w in ["Paris's", "don't", "stop"]], axis=0)
    fasttext_ref = np.mean([vecs[w] for w in ["don't", "stop"]], axis=0)  # "Paris's," has no vector
    np.testing.assert_allclose(by["paper"], spacy_ref, atol=1e-6)  # a word2vec text file: spaCy
    np.testing.assert_allclose(by["spacy"], spacy_ref, atol=1e-6)
    np.testing.assert_allclose(by["ranklens"], ranklens_ref, atol=1e-6)
    np.testing.assert_allclose(by["fasttext"], fasttext_ref, atol=1e-6)
    fps = {WordVectorFileEmbedder(path=str(p), tokenizer=t).fingerprint for t in ("spacy", "fasttext", "ranklens")}
    assert len(fps) == 3  # the tokenizer is part of what cached vectors depend on
    with pytest.raises(ValidationError, match="tokenizer"):
        WordVectorFileEmbedder(path=str(p), tokenizer="nltk")


def test_trained_vectors_train_on_the_papers_tokens():
    pytest.importorskip("gensim")
    pytest.importorskip("spacy")
    corpus = ("Don't stop, Mr. Smith.", "We don't know.") * 3
    w2v = TrainedWordVectorEmbedder(corpus=corpus, method="word2vec", epochs=1)
    ft = TrainedWordVectorEmbedder(corpus=corpus, method="fasttext", subwords=False, epochs=1)
    assert (w2v.word_tokenizer, ft.word_tokenizer) == ("spacy", "fasttext")
    w2v.encode(["x"])
    ft.encode(["x"])
    assert set(w2v._model().key_to_index) == {"do", "n't", "stop", ",", "mr.", "smith", ".", "we", "know"}
    assert set(ft._model().key_to_index) == {"don't", "stop,", "mr.", "smith.", "we", "know."}
    assert w2v.fingerprint != TrainedWordVectorEmbedder(corpus=corpus, method="word2vec", epochs=1,
                                                        tokenizer="ranklens").fingerprint


def test_training_tokens_equal_the_plain_reference_across_chunks(monkeypatch):
    pytest.importorskip("spacy")
    import ranklens.embedders.wordvectors as wv

    monkeypatch.setattr(wv, "_TOKEN_CHUNK", 2)  # five texts: three chunks
    texts = ["Don't stop, Mr. Smith.", "We DON'T know.", "", "Paris's U.S.-based firm.", "stop Stop STOP"]
    emb = TrainedWordVectorEmbedder(corpus=tuple(texts))
    got = emb._tokens(texts)
    assert got == [[w.lower() for w in ts] for ts in word_tokens(texts, "spacy")]  # the plain reference
    stops = [w for ts in got for w in ts if w == "stop"]
    assert len(stops) == 4 and all(w is stops[0] for w in stops)  # one shared string per distinct token



@pytest.mark.parametrize("method", ["word2vec", "fasttext"])
def test_training_from_the_token_file_equals_training_from_lists(monkeypatch, method):
    """The corpus's tokens stream from a temporary file (memory: one chunk); the vectors equal
    gensim's trained on the token lists in memory, and the file is gone afterwards."""
    pytest.importorskip("gensim")
    pytest.importorskip("spacy")
    import gensim.models

    import ranklens.embedders.wordvectors as wv

    monkeypatch.setattr(wv, "_TOKEN_CHUNK", 3)
    original, made = wv._TokenFile, []

    def spy(path, chunks):
        made.append(original(path, chunks))
        return made[-1]

    monkeypatch.setattr(wv, "_TokenFile", spy)
    corpus = tuple(f"Sentence {i} says {w} and {w}'s friend don't." for i in range(20) for w in ("cat", "Dog")) + ("",)
    emb = TrainedWordVectorEmbedder(corpus=corpus, method=method, epochs=2)
    got = emb._model()
    ref = emb._train(gensim.models, [ts for ts in emb._tokens(corpus) if ts])
    assert made[0].n == 40 and not made[0].path.exists()
    assert got.index_to_key == ref.index_to_key
    np.testing.assert_array_equal(got.vectors, ref.vectors)
