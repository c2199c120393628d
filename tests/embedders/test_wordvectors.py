from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gensim")

from ranklens.embedders.wordvectors import TrainedWordVectorEmbedder, WordVectorFileEmbedder
from ranklens.engine import ScoringEngine, encode_texts
from ranklens.errors import DataFormatError, ValidationError

VECS = {"cat": [1.0, 0.0, 2.0], "dog": [0.0, 1.0, 0.0], "the": [3.0, 3.0, 3.0]}


def write_text(path, header=True):
    lines = [f"{len(VECS)} 3"] if header else []
    lines += [w + " " + " ".join(str(x) for x in v) for w, v in VECS.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("fmt", ["word2vec", "glove", "binary"])
def test_file_formats_average_hand_values(tmp_path, fmt):
    if fmt == "binary":
        from gensim.models import KeyedVectors

        kv = KeyedVectors(vector_size=3)
        kv.add_vectors(list(VECS), np.array(list(VECS.values()), np.float32))
        path = tmp_path / "v.bin"
        kv.save_word2vec_format(str(path), binary=True)
    else:
        path = write_text(tmp_path / "v.txt", header=(fmt == "word2vec"))
    e = WordVectorFileEmbedder(path=str(path))
    out = e.encode(["The CAT, the dog!", "unknown words only", "cat"])
    # mean over tokens the, cat, the, dog (duplicates count) -> ([3,3,3]*2 + [1,0,2] + [0,1,0]) / 4
    np.testing.assert_allclose(out[0], [7 / 4, 7 / 4, 8 / 4])
    np.testing.assert_allclose(out[1], [0, 0, 0])
    np.testing.assert_allclose(out[2], VECS["cat"])
    assert e.dimension() == 3


def test_file_fingerprint_tracks_contents(tmp_path):
    p = write_text(tmp_path / "v.txt")
    fp1 = WordVectorFileEmbedder(path=str(p)).fingerprint
    p.write_text(p.read_text().replace("1.0 0.0 2.0", "1.0 0.0 2.5"))
    assert WordVectorFileEmbedder(path=str(p)).fingerprint != fp1


def test_file_errors(tmp_path):
    with pytest.raises(DataFormatError, match="not found"):
        WordVectorFileEmbedder(path=str(tmp_path / "missing.txt")).encode(["x"])
    bad = tmp_path / "bad.txt"
    bad.write_text("2 3\ncat 1 2\n")
    with pytest.raises(DataFormatError, match="bad.txt"):
        WordVectorFileEmbedder(path=str(bad)).encode(["cat"])


CORPUS = tuple(
    s for _ in range(15)
    for s in ["the cat sat on the mat", "a dog sat on a log", "cats and dogs are friendly pets",
              "the bird sang in the tree"]
)


def test_trained_deterministic_and_fingerprinted():
    a = TrainedWordVectorEmbedder(corpus=CORPUS, vector_size=8, seed=1)
    b = TrainedWordVectorEmbedder(corpus=list(CORPUS), vector_size=8, seed=1)
    assert a.fingerprint == b.fingerprint
    np.testing.assert_array_equal(a.encode(["the cat", "dog"]), b.encode(["the cat", "dog"]))
    c = TrainedWordVectorEmbedder(corpus=CORPUS, vector_size=8, seed=2)
    d = TrainedWordVectorEmbedder(corpus=CORPUS[:-1], vector_size=8, seed=1)
    e = TrainedWordVectorEmbedder(corpus=CORPUS, vector_size=8, seed=1, method="fasttext")
    assert len({a.fingerprint, c.fingerprint, d.fingerprint, e.fingerprint}) == 4
    assert not np.allclose(a.encode(["the cat"]), c.encode(["the cat"]))


def test_trained_vectors_are_the_word_average():
    e = TrainedWordVectorEmbedder(corpus=CORPUS, vector_size=8)
    kv = e._model()
    np.testing.assert_allclose(e.encode(["cat dog"])[0], (kv["cat"] + kv["dog"]) / 2, rtol=1e-6)


def test_fasttext_subwords_cover_oov_only_with_subwords():
    sub = TrainedWordVectorEmbedder(corpus=CORPUS, method="fasttext", subwords=True, vector_size=8)
    nosub = TrainedWordVectorEmbedder(corpus=CORPUS, method="fasttext", subwords=False, vector_size=8)
    assert sub.name == "fasttext" and nosub.name == "fasttext-nosub"
    assert np.linalg.norm(sub.encode(["catss"])[0]) > 0
    assert np.linalg.norm(nosub.encode(["catss"])[0]) == 0
    assert sub.fingerprint != nosub.fingerprint


def test_trained_through_engine_and_errors():
    e = TrainedWordVectorEmbedder(corpus=CORPUS, vector_size=8)
    eng = ScoringEngine(cache=False)
    v = encode_texts(e, ["the cat", "the cat", "a dog"], engine=eng)
    assert v.shape == (3, 8) and eng.stats.texts_encoded == 2
    with pytest.raises(ValidationError):
        TrainedWordVectorEmbedder(corpus=(), vector_size=8)
    with pytest.raises(ValidationError):
        TrainedWordVectorEmbedder(corpus=CORPUS, method="glove")
