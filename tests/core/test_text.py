from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ranklens.text import STOPWORDS, content_terms, sentence_spans, split_sentences, tokenize, word_spans


def test_sentences_split_lower_case_text_at_spaced_periods():
    # Cranfield's abstracts: lower case, " ." endings; the former rule found one sentence here
    text = ("experimental investigation of the aerodynamics of a wing in a slipstream . an experimental "
            "study of a wing in a propeller slipstream was made . the results were intended in part as an "
            "evaluation basis .")
    assert split_sentences(text) == [
        "experimental investigation of the aerodynamics of a wing in a slipstream .",
        "an experimental study of a wing in a propeller slipstream was made .",
        "the results were intended in part as an evaluation basis .",
    ]


def test_sentences_keep_abbreviations_and_decimals_and_cut_glued_periods():
    text = "Dr. Smith measured 3.5 km today. Xylem is made of cells.Primary xylem grows first. Yes"
    assert split_sentences(text) == [
        "Dr. Smith measured 3.5 km today.",
        "Xylem is made of cells.",
        "Primary xylem grows first.",
        "Yes",
    ]


def test_glued_period_rule_against_a_brute_force_reference():
    import re

    from ranklens.text import load_spacy

    nlp = load_spacy(sentences=True)
    text = "It is made of cells.Primary xylem grows.Secondary xylem follows. Done e.g.Here and U.S.Army too."
    ref = []
    for sent in nlp(text).sents:  # reference: spaCy's sentences, then a cut after "xx." + "Xx"
        s = sent.start_char
        for i in range(sent.start_char, sent.end_char - 2):
            if (text[i] == "." and i >= 2 and text[i - 2:i].isalpha() and text[i - 2:i].islower()
                    and text[i + 1].isupper() and text[i + 2].islower()):
                ref.append(text[s:i + 1].strip())
                s = i + 1
        ref.append(text[s:sent.end_char].strip())
    assert split_sentences(text) == [r for r in ref if r]
    assert "It is made of cells." in split_sentences(text)
    assert not any(re.search(r"\bU\.S\.$", x) for x in split_sentences(text))


def test_sentence_spans_many_equals_one_by_one_and_empty_text_has_none():
    from ranklens.text import sentence_spans_many

    texts = ["a b c . d e f .", "", "   ", "One. Two.", "a b c . d e f ."]
    assert sentence_spans_many(texts) == [sentence_spans(t) for t in texts]
    assert sentence_spans("") == [] and sentence_spans(" \n ") == []


def test_segmenter_name_names_the_pipeline_and_version():
    from ranklens.text import segmenter_name

    name = segmenter_name()
    assert name.startswith("spacy:en_core_web_sm") and "senter" in name and "{" not in name


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
