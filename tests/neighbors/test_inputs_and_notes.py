"""Query subsets, sentence files with a text column, and the deviation notes of the output:
each against a hand-built reference."""

from __future__ import annotations


import pytest

from ranklens.cli import main
from ranklens.errors import DataFormatError
from ranklens.neighbors import build_corpus
from ranklens.io.pairs import read_sentences
from ranklens.neighbors.inputs import read_query_ids
from ranklens.results import Result

from .test_cli import _collection


def test_query_ids_map_a_document_to_its_first_kept_sentence(tmp_path):
    corpus = build_corpus([("a", "Hi. Cats purr loudly. Dogs bark."), ("b", "Fish swim far. Birds sing.")],
                          split=False)
    assert corpus.ids == ("a", "b")  # unsplit: the document id is the corpus id
    split = build_corpus([("a", "Hi. Cats purr loudly. Dogs bark."), ("b", "Fish swim far. Birds sing."),
                          ("c#x", "Owls hoot. Bats fly.")], min_tokens=2)
    assert "a#0" not in split.ids  # "Hi." has one token: a's first kept sentence is a#1
    f = tmp_path / "q.txt"
    f.write_text("a\nb#1\nc#x\nb#1\n")
    assert read_query_ids(f, split.ids) == ["a#1", "b#1", "c#x#0"]  # file order, each once
    f.write_text("a\nzzz\n")
    with pytest.raises(DataFormatError, match="zzz"):
        read_query_ids(f, split.ids)


def test_cli_query_ids_restrict_the_queries(tmp_path):
    coll = _collection(tmp_path)
    ids = ["d0#0", "d0#1", "d0#2", "d1#0", "d1#1", "d1#2", "d3#1"]  # sentences the corpus keeps under these ids
    f = tmp_path / "ids.txt"
    f.write_text("\n".join(ids) + "\n")
    assert main(["-q", "neighbors", "--collection", str(coll), "--model", "tfidf", "--model", "w2v=word2vec",
                 "--analyses", "matrix", "--k", "3", "--n-queries", "4", "--n-samples", "3", "--query-ids", str(f),
                 "--out", str(tmp_path / "m"), "--no-plots"]) == 0
    res = Result.load(tmp_path / "m" / "neighbors-matrix")
    per_query = res.tables["per_query"]
    assert set(per_query["query_id"]) <= set(ids) and per_query["query_id"].nunique() > 4
    assert res.provenance.analysis_params["query_ids"] == str(f)


def test_sentence_file_with_a_text_column(tmp_path):
    f = tmp_path / "s.tsv"
    f.write_text("id\tgenre\ttext\nx1\tnews\tA cat sat.\nx2\tnews\tA dog ran.\nx3\tforum\tA cat sat.\n")
    assert read_sentences(f) == [("x1", "A cat sat."), ("x2", "A dog ran."), ("x3", "A cat sat.")]
    g = tmp_path / "t.tsv"
    g.write_text("text\nOne.\nTwo.\n")
    assert read_sentences(g) == [("t.tsv:2", "One."), ("t.tsv:3", "Two.")]
    corpus = build_corpus(read_sentences(f), split=False)
    assert (corpus.texts, corpus.n_duplicates) == (("A cat sat.", "A dog ran."), 1)


def test_output_says_word_vectors_were_trained_here_not_pretrained(tmp_path):
    coll = _collection(tmp_path)
    assert main(["-q", "neighbors", "--collection", str(coll), "--model", "tfidf", "--model", "w2v=word2vec",
                 "--analyses", "matrix", "--k", "3", "--n-queries", "5", "--n-samples", "2", "--queries", "all",
                 "--out", str(tmp_path / "m"), "--no-plots"]) == 0
    res = Result.load(tmp_path / "m" / "neighbors-matrix")
    said = [w for w in res.warnings if w.startswith("model w2v:")]
    assert len(said) == 1 and "trained on this corpus" in said[0] and "pretrained" in said[0]
    assert "spacy tokens" in said[0]  # the paper's tokenizer for word2vec
    assert not any(w.startswith("model tfidf:") for w in res.warnings)


def test_wordvec_tokenizer_param_reaches_models_and_extra_embedders(tmp_path):
    """``--wordvec-tokenizer`` sets every word-vector model's tokenizer (also ``--embedders``
    entries, which have no params of their own): the same vectors and numbers as the per-model
    param, other vectors than the paper's default."""
    coll = _collection(tmp_path)
    base = ["-q", "neighbors", "--collection", str(coll), "--model", "tfidf", "--analyses", "matrix", "--k", "3",
            "--n-queries", "5", "--n-samples", "2", "--queries", "all", "--no-plots"]
    runs = {"param": ["--model", "w2v=word2vec", "--wordvec-tokenizer", "fasttext"],
            "model": ["--model", "w2v=word2vec", "--model-param", "w2v.tokenizer=fasttext"],
            "extra": ["--embedders", "w2v=word2vec", "--wordvec-tokenizer", "fasttext"],
            "default": ["--model", "w2v=word2vec"]}
    out = {}
    for name, extra in runs.items():
        assert main([*base, *extra, "--out", str(tmp_path / name)]) == 0
        out[name] = Result.load(tmp_path / name / "neighbors-matrix")
    fp = {n: r.provenance.components["w2v"] for n, r in out.items()}
    assert fp["param"] == fp["model"] == fp["extra"] != fp["default"]
    assert out["param"].provenance.analysis_params["wordvec_tokenizer"] == "fasttext"
    assert any("fasttext tokens" in w for w in out["extra"].warnings)
    assert out["param"].table["n2o_mean"].tolist() == out["model"].table["n2o_mean"].tolist()
