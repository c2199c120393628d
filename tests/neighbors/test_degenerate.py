"""Degenerate neighbour inputs are warned, never silent: k at (or near) the corpus size, where N2O is
1 (or inflated) by construction, and queries an embedder maps to the zero vector (left out and
counted). And a plain sentence file is a corpus without any collection directory."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from ranklens.cli import main
from ranklens.drive import run_analysis
from ranklens.embedders.base import FunctionEmbedder
from ranklens.errors import ValidationError
from ranklens.neighbors import build_corpus, n2o_matrix, token_overlap
from ranklens.neighbors.n2o import degenerate_warnings
from ranklens.results import Result

WORDS = "cat dog bird fish lion tiger snake horse cow sheep goat mouse rat bee ant owl".split()


def _vecs(texts, salt=b""):
    """Deterministic random 8-d vectors per text; texts containing 'zz' map to the zero vector."""
    out = []
    for t in texts:
        seed = int.from_bytes(hashlib.sha256(salt + t.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).normal(size=8)
        out.append(np.zeros(8) if "zz" in t.split() else v)
    return np.array(out, dtype=np.float32)


def _vecs_b(texts):
    return _vecs(texts, b"b")


A = FunctionEmbedder(fn=_vecs, name_="a")
B = FunctionEmbedder(fn=_vecs_b, name_="b")


def _corpus(n, zero=()):
    docs = {f"d{i}": f"{WORDS[i % len(WORDS)]} {WORDS[(3 * i) % len(WORDS)]} {i}" + (" zz" if i in zero else "")
            for i in range(n)}
    return build_corpus(docs, split=False)


def test_degenerate_warnings_by_hand():
    none = {"a": np.zeros(5, bool)}
    assert degenerate_warnings(5, 1000, none) == []
    full = degenerate_warnings(9, 10, none)
    assert len(full) == 1 and "every N2O is 1 by construction" in full[0]
    chance = degenerate_warnings(20, 101, none)  # random sets overlap 20/100 = 0.2 on average
    assert len(chance) == 1 and "0.20 on average" in chance[0]
    assert degenerate_warnings(9, 101, none) == []  # 0.09: below the 0.1 line
    zero = degenerate_warnings(5, 1000, {"a": np.array([1, 0, 1, 1, 0], bool), "b": np.zeros(5, bool)})
    assert zero == ["model a: 3 of 5 sampled queries are zero vectors (no word it knows): they have no neighbours "
                    "and are left out of every N2O with a (n_queries counts the rest)"]


def test_k_at_the_corpus_size_gives_n2o_one_and_says_why():
    corpus = _corpus(6)
    res = n2o_matrix({"a": A, "b": B}, corpus, k=5, n_queries=6, n_samples=1)
    assert res.table["n2o_mean"].tolist() == [1.0]  # two unrelated embedders "agree" completely
    assert [w for w in res.warnings if "1 by construction" in w]
    big = n2o_matrix({"a": A, "b": B}, _corpus(60), k=2, n_queries=20, n_samples=1)
    assert not big.warnings and big.table["n2o_mean"].iloc[0] < 1.0


def test_zero_vector_queries_are_left_out_counted_and_warned():
    zero = {1, 4, 7, 8, 20}
    corpus = _corpus(40, zero)
    res = n2o_matrix({"a": A, "b": B}, corpus, k=3, n_queries=40, n_samples=1)
    want = len(zero)  # every sentence is sampled once; a's and b's zero vectors are the same sentences
    assert res.summary["n_zero_vector_queries"] == {"a": want, "b": want}
    assert res.table["n_queries"].tolist() == [40 - want]
    warned = sorted(w for w in res.warnings if "zero vectors" in w)
    assert warned == [f"model {m}: {want} of 40 sampled queries are zero vectors (no word it knows): they have no "
                      f"neighbours and are left out of every N2O with {m} (n_queries counts the rest)" for m in "ab"]
    tok = token_overlap({"a": A, "b": B}, corpus, k=3, n_queries=40, n_samples=1)
    assert any("left out of every token overlap with a" in w for w in tok.warnings)


@pytest.fixture
def sentence_file(tmp_path):
    f = tmp_path / "sentences.txt"
    f.write_text("".join(f"The {w} sat near the {WORDS[(i * 5) % len(WORDS)]} today.\n"
                         for i, w in enumerate(WORDS)), encoding="utf-8")
    return f


def test_a_sentence_file_alone_is_a_corpus_at_the_cli_and_in_python(sentence_file, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "cache"))
    params = {"sentences": [str(sentence_file)], "k": 3, "n_queries": 8, "n_samples": 2,
              "analyses": ["matrix"], "embedders": ["h=callable:tests.neighbors.test_degenerate:_vecs_b"]}
    models = {"a": {"spec": "callable:tests.neighbors.test_degenerate:_vecs"}}
    py = next(r for r in run_analysis("neighbors", None, models, params) if r.kind == "neighbors-matrix")
    assert py.summary["n_corpus"] == len(WORDS)
    rc = main(["-q", "neighbors", "--sentences", str(sentence_file), "--model",
               "a=callable:tests.neighbors.test_degenerate:_vecs", "--embedders",
               "h=callable:tests.neighbors.test_degenerate:_vecs_b", "--k", "3", "--n-queries", "8",
               "--n-samples", "2", "--analyses", "matrix", "--out", str(tmp_path / "out"), "--no-plots"])
    assert rc == 0
    cli = Result.load(tmp_path / "out" / "neighbors-matrix")
    assert cli.table["n2o_mean"].tolist() == py.table["n2o_mean"].tolist()


def test_no_collection_and_no_sentences_names_both(tmp_path):
    with pytest.raises(ValidationError, match="--sentences FILE"):
        run_analysis("neighbors", None, {"tfidf": {"spec": "tfidf"}}, {})
