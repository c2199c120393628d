"""Corpus-scale BM25: an index built from a stream of texts, saved, and loaded memory-mapped,
gives what a ranker fitted on the same texts gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import DataFormatError, ValidationError
from ranklens.rankers.bm25 import BM25Ranker, build_index, load_index

pytest.importorskip("bm25s")

DOCS = ["The cat sat on the mat.", "Dogs bark at cats.", "A cat and a dog played.", "Quantum chromodynamics.",
        "", "cat cat cat", "Mats for cats and dogs, sold cheap."]
QUERIES = ["cat mat", "dog", "chromodynamics quantum", "unknownword"]


@pytest.mark.parametrize("params", [{}, {"k1": 1.2, "b": 0.75, "method": "lucene", "stem": False}])
def test_loaded_index_equals_the_fitted_ranker(tmp_path, params):
    fitted = BM25Ranker(**params).fit(DOCS)
    out = build_index((t for t in DOCS), tmp_path / "idx", ranker=BM25Ranker(**params))  # a generator
    loaded = load_index(out)
    assert loaded.fingerprint == fitted.fingerprint  # same parameters and corpus statistics
    assert loaded.stats.corpus_digest == fitted.stats.corpus_digest
    np.testing.assert_array_equal(loaded.stats.df[[loaded.stats.vocab[t] for t in sorted(loaded.stats.vocab)]],
                                  fitted.stats.df[[fitted.stats.vocab[t] for t in sorted(fitted.stats.vocab)]])
    qs, ts = [q for q in QUERIES for _ in DOCS], DOCS * len(QUERIES)
    np.testing.assert_allclose(loaded.score(qs, ts), fitted.score(qs, ts), rtol=0, atol=1e-12)
    li, ls = loaded.retrieve_topk(QUERIES, k=3)
    fi, fs = fitted.retrieve_topk(QUERIES, k=3)
    np.testing.assert_array_equal(li, fi)
    np.testing.assert_array_equal(ls, fs)
    assert isinstance(loaded._index().scores["data"], np.memmap)  # memory-mapped, not read in


def test_retrieve_through_a_loaded_index_gives_the_fitted_run(tmp_path):
    from ranklens.rankers.retrieval import retrieve

    docs = {f"d{i}": t for i, t in enumerate(DOCS)}
    queries = pd.DataFrame({"query_id": [f"q{i}" for i in range(len(QUERIES))], "text": QUERIES})
    loaded = load_index(build_index(DOCS, tmp_path / "idx"))
    pd.testing.assert_frame_equal(retrieve(loaded, queries, docs, k=4), retrieve(BM25Ranker(), queries, docs, k=4))
    with pytest.raises(ValidationError, match="different corpus"):
        retrieve(loaded, queries, {"x": "another corpus"}, k=1)


def test_the_spec_and_its_errors(tmp_path):
    from ranklens.specs import make_ranker
    from ranklens.specs import check_spec

    out = build_index(DOCS, tmp_path / "idx")
    r = make_ranker(f"bm25-index:{out}")
    assert r.fingerprint == BM25Ranker().fit(DOCS).fingerprint
    with pytest.raises(ValidationError, match="fixes the BM25 parameters"):
        make_ranker(f"bm25-index:{out}", k1=2.0)
    assert any("does not exist" in m for m in check_spec(f"bm25-index:{tmp_path / 'nope'}", "ranker"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataFormatError, match="build_index"):
        load_index(tmp_path / "empty")
    with pytest.raises(ValidationError, match="corpus is empty"):
        build_index([], tmp_path / "none")


def test_no_empty_term_so_empty_documents_match_nothing(tmp_path):
    """Porter stems "s" to "": kept as a term it would collide with the token bm25s gives empty
    documents, and the query "U.S." would retrieve them."""
    docs = ["", "U.S. ships", "cats"]
    assert "" not in BM25Ranker().analyze("U.S. s's s")
    loaded = load_index(build_index(docs, tmp_path / "idx"))
    idx, sc = loaded.retrieve_topk(["U.S."], k=3)
    assert sc[0][list(idx[0]).index(0)] == 0.0  # the empty document scores nothing
