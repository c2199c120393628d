"""Language processing for probes, with offline fallbacks.

* Lemmas: the English lookup table of ``spacy-lookups-data`` (what spaCy's ``lookup``
  lemmatizer uses), else simplemma, else Porter stems (:mod:`ranklens.text`). :func:`lemmatizer_name` says which one runs.
* Noun chunks and named entities need a spaCy pipeline with a parser/NER
  (``en_core_web_sm``). When none is installed, documented heuristics run instead:

  - **shared-chunk heuristic** (for dataset-transfer queries): the longest run of consecutive
    non-stopword tokens (at most 4) that occurs, lower-cased, in both texts; ties are broken at
    random with the probe's generator. Noun phrases in English are mostly such runs of
    content words, so this approximates "a noun chunk shared by both texts".
  - **regex entity typer** (for Natural Questions answers): ``year`` (a 4-digit year),
    ``date`` (contains a month name), ``number`` (digits, number words, amounts),
    ``name`` (every word capitalised), else ``other``.

Every result records which path ran (``query_method``, ``entity_typer``, ``lemmatizer``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import numpy as np

from ..text import STOPWORDS, stem, tokenize

__all__ = [
    "PREPOSITIONS",
    "split_sentences",
    "entity_type",
    "entity_typer_name",
    "has_spacy_pipeline",
    "lemmatize_text",
    "lemmas",
    "lemmatizer_name",
    "shared_chunk",
    "shares_content_lemma",
]

SPACY_PIPELINE = "en_core_web_sm"

PREPOSITIONS = frozenset(
    "about above across after against along amid among around as at before behind below beneath "
    "beside besides between beyond by despite down during except for from in inside into like near "
    "of off on onto opposite out outside over past per since through throughout till to toward "
    "towards under underneath unlike until up upon via with within without".split()
)
"""English prepositions (closed class) used by the shuffle-prepositions probe."""


_LOWER_BOUNDARY = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences for the manipulation probes.

    :func:`ranklens.text.split_sentences` relies on capitalisation (a period followed by a
    lower-case word is not a boundary), which finds a single sentence in lower-cased corpora
    such as Cranfield (``"... a slipstream . an experimental study ..."``). Text without any
    upper-case letter is therefore split at every ``.``/``!``/``?`` followed by whitespace;
    other text uses :func:`ranklens.text.split_sentences`.
    """
    from ..text import split_sentences as _split

    if any(c.isupper() for c in text):
        return _split(text)
    return [s.strip() for s in _LOWER_BOUNDARY.split(text) if s.strip()]


@lru_cache(maxsize=1)
def has_spacy_pipeline() -> bool:
    """Whether ``en_core_web_sm`` (parser + NER) is installed."""
    try:
        import spacy.util

        return bool(spacy.util.is_package(SPACY_PIPELINE))
    except Exception:  # spaCy missing or broken: use the fallback
        return False


@lru_cache(maxsize=1)
def _spacy_full() -> Any:
    import spacy

    return spacy.load(SPACY_PIPELINE)


@lru_cache(maxsize=1)
def _lemma_backend() -> tuple[str, Any]:
    """The English lemma lookup table of spacy-lookups-data (the table spaCy's ``lookup``
    lemmatizer uses; read directly, since ``nlp.initialize()`` takes tens of seconds), else
    simplemma, else Porter stems."""
    try:
        import gzip
        import json
        from importlib import resources

        ref = resources.files("spacy_lookups_data") / "data" / "en_lemma_lookup.json.gz"
        with ref.open("rb") as f:
            table = json.loads(gzip.decompress(f.read()))
        return "spacy-lookup", table
    except Exception:  # spacy-lookups-data missing
        pass
    try:
        import simplemma

        return "simplemma", simplemma
    except ImportError:
        return "porter-stem", None


def lemmatizer_name() -> str:
    """``"spacy-lookup"`` (spacy-lookups-data ``en_lemma_lookup``), ``"simplemma"`` or
    ``"porter-stem"``: the lemmatizer in use."""
    return _lemma_backend()[0]


def _lemma_of(word: str) -> str:
    kind, backend = _lemma_backend()
    if kind == "spacy-lookup":
        return backend.get(word) or backend.get(word.lower()) or word
    if kind == "simplemma":
        return str(backend.lemmatize(word, lang="en"))
    return stem(word.lower())


def lemmatize_text(text: str) -> str:
    """``text`` with every word replaced by its lemma (punctuation and spacing kept)."""
    from ..text import word_spans

    out, last = [], 0
    for s, e in word_spans(text):
        out.append(text[last:s])
        out.append(_lemma_of(text[s:e]))
        last = e
    out.append(text[last:])
    return "".join(out)


@lru_cache(maxsize=100_000)
def _lemma(word: str) -> str:
    return _lemma_of(word).lower()


def lemmas(text: str) -> set[str]:
    """Lower-cased lemmas of the non-stopword tokens of ``text``."""
    return {_lemma(t) for t in tokenize(text) if t not in STOPWORDS}


def shares_content_lemma(query: str, *texts: str) -> bool:
    """True when ``query`` shares at least one non-stopword lemma with every text (the paper's
    filter for dataset-transfer samples)."""
    q = lemmas(query)
    return bool(q) and all(q & lemmas(t) for t in texts)


def _chunks_spacy(text: str) -> set[str]:
    doc = _spacy_full()(text)
    out = set()
    for ch in doc.noun_chunks:
        toks = [t.lower_ for t in ch if not t.is_stop and not t.is_punct]
        if toks:
            out.add(" ".join(toks))
    return out


def _content_runs(text: str, max_len: int) -> set[tuple[str, ...]]:
    toks = tokenize(text)
    runs: set[tuple[str, ...]] = set()
    cur: list[str] = []
    for t in [*toks, ""]:
        if t and t not in STOPWORDS and not t.isdigit():
            cur.append(t)
            continue
        for i in range(len(cur)):
            for j in range(i + 1, min(len(cur), i + max_len) + 1):
                runs.add(tuple(cur[i:j]))
        cur = []
    return runs


def shared_chunk(
    text_a: str, text_b: str, *, rng: np.random.Generator, max_len: int = 4,
    use_spacy: bool | None = None,
) -> tuple[str | None, str]:
    """A query for a text pair: a noun chunk (or content-word run) present in both texts.

    Returns:
        ``(query or None, method)`` where method is ``"spacy-noun-chunk"`` or
        ``"shared-content-run"`` (see the module docstring).
    """
    if use_spacy is None:
        use_spacy = has_spacy_pipeline()
    if use_spacy:
        common = sorted(_chunks_spacy(text_a) & _chunks_spacy(text_b))
        method = "spacy-noun-chunk"
        if not common:
            return None, method
        return common[int(rng.integers(len(common)))], method
    common_runs = _content_runs(text_a, max_len) & _content_runs(text_b, max_len)
    method = "shared-content-run"
    if not common_runs:
        return None, method
    best = max(len(r) for r in common_runs)
    cands = sorted(" ".join(r) for r in common_runs if len(r) == best)
    return cands[int(rng.integers(len(cands)))], method


_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
_NUMBER_WORDS = set(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred thousand million billion trillion first second third fourth fifth sixth seventh "
    "eighth ninth tenth".split()
)
_YEAR = re.compile(r"^(?:1[0-9]{3}|20[0-9]{2})$")
_NUMERIC = re.compile(r"^[\$£€]?\d[\d,.]*\s*(?:%|percent|million|billion|thousand|km|m|kg|"
                      r"miles|feet|years|days|hours|times)?$", re.I)

SPACY_TYPE_MAP = {
    "DATE": "date", "TIME": "date", "CARDINAL": "number", "QUANTITY": "number", "MONEY": "number",
    "PERCENT": "number", "ORDINAL": "number", "PERSON": "name", "ORG": "name", "GPE": "name",
    "LOC": "name", "NORP": "name", "FAC": "name", "WORK_OF_ART": "name", "EVENT": "name",
    "PRODUCT": "name", "LAW": "name", "LANGUAGE": "name",
}


def entity_typer_name() -> str:
    """``"spacy-ner"`` when the pipeline is installed, else ``"regex"``."""
    return "spacy-ner" if has_spacy_pipeline() else "regex"


def entity_type(answer: str, *, use_spacy: bool | None = None) -> str:
    """Coarse entity type of a short answer: year, date, number, name or other."""
    a = answer.strip()
    if _YEAR.match(a):
        return "year"
    if use_spacy is None:
        use_spacy = has_spacy_pipeline()
    if use_spacy:
        ents = _spacy_full()(a).ents
        if len(ents) == 1 and ents[0].text == a:
            return SPACY_TYPE_MAP.get(ents[0].label_, "other")
    low = tokenize(a)
    if any(t in _MONTHS for t in low) and any(t.isdigit() for t in low):
        return "date"
    if _NUMERIC.match(a) or (low and all(t in _NUMBER_WORDS or t.isdigit() for t in low)):
        return "number"
    words = [w for w in re.findall(r"[^\W\d_][\w'’.-]*", a)]
    if words and all(w[0].isupper() or w.lower() in {"of", "the", "and", "de", "von", "van"}
                     for w in words) and words[0][0].isupper():
        return "name"
    return "other"
