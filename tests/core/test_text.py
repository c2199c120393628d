from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ranklens.text import STOPWORDS, content_terms, sentence_spans, split_sentences, tokenize, word_spans


def test_sentences_keep_abbreviations_initials_and_decimals():
    text = "Dr. Smith measured 3.5 km. J. R. R. Tolkien wrote books! Is it approx. ten? Yes"
    assert split_sentences(text) == [
        "Dr. Smith measured 3.5 km.",
        "J. R. R. Tolkien wrote books!",
        "Is it approx. ten?",
        "Yes",
    ]


@given(st.text(alphabet="ab .!?\n", max_size=60))
def test_sentence_spans_are_ordered_non_overlapping_and_stripped(text):
    prev = 0
    for s, e in sentence_spans(text):
        assert prev <= s < e <= len(text)
        assert not text[s].isspace() and not text[e - 1].isspace()
        prev = e


def test_tokens_spans_and_terms():
    t = "The cat's 2 hats—and HATS_x"
    assert tokenize(t) == ["the", "cat's", "2", "hats", "and", "hats", "x"]
    assert [t[s:e] for s, e in word_spans(t)][:3] == ["The", "cat's", "2"]
    assert "the" in STOPWORDS
    assert content_terms("running runners ran") == ["run", "runner", "ran"]
