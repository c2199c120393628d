from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from ranklens.probes import get_probe
from ranklens.probes.base import probe_rng
from ranklens.probes.manipulation import (
    remove_stopwords_punct,
    shuffle_prepositions,
    shuffle_sentences,
    shuffle_words,
)
from ranklens.probes.expansion import FileExpander
from ranklens.probes.typos import char_typo, edit_distance, load_misspellings
from ranklens.text import split_sentences

TEXT = "The cat sat on the mat. Dogs run in the park with joy. Birds fly over the sea."


def test_shuffle_words_keeps_tokens_per_sentence():
    rng = np.random.default_rng(0)
    out = shuffle_words(TEXT, rng)
    toks = out.split()
    pos = 0
    for sent in split_sentences(TEXT):  # output = each sentence's tokens permuted, in order
        n = len(sent.split())
        assert Counter(toks[pos:pos + n]) == Counter(sent.split())
        pos += n
    assert pos == len(toks) and out != TEXT


def test_shuffle_sentences_is_permutation():
    out = shuffle_sentences(TEXT, np.random.default_rng(2))
    assert sorted(split_sentences(out)) == sorted(split_sentences(TEXT))


def test_shuffle_prepositions_moves_only_prepositions():
    text = "The book on the table in the room with a view"
    outs = {shuffle_prepositions(text, np.random.default_rng(s)) for s in range(10)}
    for out in outs:
        a, b = text.split(), out.split()
        assert [w for w in a if w not in {"on", "in", "with"}] == [w for w in b if w not in {"on", "in", "with"}]
        assert sorted(w for w in b if w in {"on", "in", "with"}) == ["in", "on", "with"]
    assert len(outs) > 1


def test_remove_stopwords_punct():
    assert remove_stopwords_punct("The cat, sat on the mat!") == "cat sat mat"


def test_misspelling_formats(tmp_path):
    tab = tmp_path / "list.tab"
    tab.write_text("teh\tthe\nrecieve\treceive\nacheive\tachieve\n")
    js = tmp_path / "corr.json"
    js.write_text(json.dumps({"recieve": "receive", "wierd": "weird"}))
    errs = tmp_path / "errs.json"
    errs.write_text(json.dumps({"receive": ["recieve", "xxxxxxxxx"], "i": ["a"]}))
    assert load_misspellings(tab)["receive"] == ("recieve",)
    assert load_misspellings(js) == {"receive": ("recieve",), "weird": ("wierd",)}
    # far variants dropped by edit distance; short words dropped
    assert load_misspellings(errs) == {"receive": ("recieve",)}
    bad = tmp_path / "bad.tab"
    bad.write_text("ok\tfine\nnocolumns\n")
    with pytest.raises(Exception, match=r"bad.tab:2"):
        load_misspellings(bad)


def test_char_typo_is_one_edit_and_keeps_first_letter():
    rng = np.random.default_rng(0)
    for w in ["relevance", "retrieval", "ranking", "query"]:
        t = char_typo(w, rng)
        assert t != w and t[0] == w[0] and edit_distance(t, w) <= 2
    assert char_typo("cat", rng) == "cat"


def test_typo_probe_with_list(tiny, tmp_path):
    f = tmp_path / "m.tab"
    f.write_text("cats\tcats\nkats\tcats\nfelins\tfelines\n")
    p = get_probe("tr-typo", misspellings=str(f), cap=None)
    out = p.generate(tiny, rng=probe_rng(0, p.name))
    d1 = [s for s in out.samples if s.doc_2_id == "d1"][0]
    assert d1.text_1 == "Kats are small domesticated felins. Kats purr when content."
    assert out.info["typo_source"].startswith("list:")


def test_manipulation_sign_and_ids(tiny):
    p = get_probe("tr-shuffle-words", cap=None)
    out = p.generate(tiny, rng=probe_rng(0, p.name))
    assert out.samples
    for s in out.samples:
        assert s.text_2 == tiny.docs[s.doc_2_id]  # d2 = original
        assert s.doc_1_id == s.doc_2_id + "~shuffle-words"
    rel = get_probe("tr-shuffle-words-rel", cap=None).generate(tiny, rng=np.random.default_rng(0))
    grades = {(q, d): r for q, d, r in zip(tiny.qrels.query_id, tiny.qrels.doc_id, tiny.qrels.relevance)}
    assert all(grades[(s.query_id, s.doc_2_id)] >= 1 for s in rel.samples)


def test_doc2query_skips_without_expander(tiny):
    out = get_probe("tr-doc2query").generate(tiny, rng=np.random.default_rng(0))
    assert out.samples == () and "expander" in out.skipped


def test_doc2query_file_expander(tiny, tmp_path):
    f = tmp_path / "exp.tsv"
    f.write_text("doc_id\tquery\nd1\twhat do cats do\nd1\tcat purring\n")
    p = get_probe("tr-doc2query", expander=str(f), cap=None)
    out = p.generate(tiny, rng=np.random.default_rng(0))
    assert [s.doc_2_id for s in out.samples] == ["d1"]
    assert out.samples[0].text_1 == tiny.docs["d1"] + " what do cats do cat purring"
    assert FileExpander(path=str(f)).expand(["d9"], ["x"]) == [[]]


def _tiny_t5(tiny, path):
    """A randomly initialised one-layer T5 with a word-level tokenizer over the tiny collection's
    words, saved to ``path`` (no download)."""
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = sorted({t.lower() for d in tiny.docs.values() for t in d.split()})
    vocab = {w: i for i, w in enumerate(["<pad>", "</s>", "<unk>", *words])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="</s>",
                                                unk_token="<unk>")
    cfg = transformers.T5Config(vocab_size=len(vocab), d_model=16, d_ff=32, num_layers=1, num_decoder_layers=1,
                                num_heads=2, d_kv=8, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    transformers.T5ForConditionalGeneration(cfg).save_pretrained(path)
    fast.save_pretrained(path)


@pytest.mark.slow
def test_doc2query_tiny_random_t5(tiny, tmp_path):
    _tiny_t5(tiny, tmp_path / "t5")
    p = get_probe("tr-doc2query", expander=str(tmp_path / "t5"), cap=2)
    a = p.generate(tiny, rng=probe_rng(0, p.name))
    b = p.generate(tiny, rng=probe_rng(0, p.name))
    assert len(a.samples) == 2 and a.hash == b.hash  # seeded sampling: reproducible
    for s in a.samples:
        assert s.text_1.startswith(s.text_2) and len(s.text_1) > len(s.text_2)
    assert a.info["expander"].startswith("Seq2SeqExpander@")


def test_lemmatize_transform_keeps_stopwords():
    from ranklens.probes.manipulation import lemmatize

    out = lemmatize("The striped bats were hanging on their feet, children ate.")
    # spaCy lemmas for content words; stopwords ("The", "were", "on", "their") as written
    assert out == "The striped bat were hang on their foot, child eat."


@pytest.mark.slow
def test_dt5q_ranker_is_bm25_over_expanded_texts(tiny, tmp_path):
    """DT5Q (paper §3.1): 4 doc2query queries appended to each text, BM25 with the statistics of
    the expanded corpus; a text's expansion does not depend on its batch."""
    from ranklens.rankers.doc2query import DT5QRanker, Seq2SeqExpander
    from ranklens.rankers import BM25Ranker
    from ranklens.specs import make_ranker

    _tiny_t5(tiny, tmp_path / "t5")
    corpus = list(tiny.docs.values())
    ranker = make_ranker(f"dt5q:{tmp_path / 't5'}", corpus=corpus)
    assert isinstance(ranker, DT5QRanker) and ranker.num_queries == 4
    # the reference: each text expanded alone, then a plain BM25 fitted on the expanded corpus
    exp = Seq2SeqExpander(model_path=str(tmp_path / "t5"), seed_per_text=True)

    def expanded(t):
        qs = exp.expand(["x"], [t])[0]
        assert len(qs) == 4
        return " ".join([t.rstrip(), *(q for q in qs if q.strip())])

    bm25 = BM25Ranker().fit([expanded(t) for t in corpus])
    queries = ["cats purr", "dog barks", "cats purr"]
    texts = [corpus[0], corpus[1], corpus[-1]]
    np.testing.assert_allclose(ranker.score(queries, texts), bm25.score(queries, [expanded(t) for t in texts]))
    alone = DT5QRanker(model_path=str(tmp_path / "t5")).fit(corpus)
    assert alone.score(queries[-1:], texts[-1:])[0] == pytest.approx(ranker.score(queries, texts)[-1])
    assert alone.fingerprint == ranker.fingerprint
