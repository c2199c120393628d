"""Language processing for the probes, all through the one spaCy pipeline of ranklens
(:func:`ranklens.text.load_spacy`, spaCy's English ``en_core_web_sm``: tagger, parser, NER,
lemmatizer), as the paper does.

* lemmas (lemmatize probe, the dataset-transfer lemma filter): ``token.lemma_``;
* prepositions (shuffle-prepositions probe): tokens whose part of speech is ``ADP``;
* noun chunks (dataset-transfer queries): ``doc.noun_chunks``, lower-cased;
* named entities (NQ factuality): ``doc.ents`` with the paper's types.

When no spaCy pipeline can be loaded, documented heuristics run instead and the probe records
``fallback`` in its info (the driver turns it into a warning): the English lemma lookup table of
``spacy-lookups-data`` (else the Porter stem), a closed list of English prepositions, and the
longest run of content words shared by both texts for queries. The NQ factuality probe has no
fallback (the paper's entity types need NER): it is skipped with the reason.

Each function takes a list of texts and parses them in one ``nlp.pipe`` call; nothing is kept
between calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..text import STOPWORDS, stem, tokenize, word_spans

__all__ = [
    "NER_TYPES",
    "PREPOSITIONS",
    "chunks_and_lemmas",
    "lemma_sets",
    "lemmatize_texts",
    "noun_chunk_sets",
    "pick_shared_chunk",
    "pipeline",
    "preposition_spans",
    "answer_entity_types",
]

#: The paper's NQ entity types (footnote 9) -> spaCy's label.
NER_TYPES = {"PER": "PERSON", "GPE": "GPE", "LOC": "LOC", "NORP": "NORP", "ORG": "ORG"}

PREPOSITIONS = frozenset(
    "about above across after against along amid among around as at before behind below beneath "
    "beside besides between beyond by despite down during except for from in inside into like near "
    "of off on onto opposite out outside over past per since through throughout till to toward "
    "towards under underneath unlike until up upon via with within without".split()
)
"""English prepositions (closed class): the fallback of the ADP part-of-speech tag."""


def pipeline() -> tuple[Any, str]:
    """``(nlp, description)`` of the spaCy pipeline, or ``(None, why)`` when none loads."""
    from ..errors import RanklensError

    try:
        from ..text import load_spacy

        nlp = load_spacy()
    except (RanklensError, ImportError, OSError) as exc:
        return None, f"no spaCy pipeline ({exc})"
    meta = getattr(nlp, "meta", {}) or {}
    return nlp, f"spacy:{meta.get('lang', 'en')}_{meta.get('name', '?')}-{meta.get('version', '?')}"


def _docs(nlp: Any, texts: Sequence[str], disable: Sequence[str] = ()) -> list[Any]:
    """Parse with the components a task does not need switched off (faster)."""
    off = [c for c in disable if c in nlp.pipe_names]
    return list(nlp.pipe(list(texts), batch_size=64, disable=off))


# ------------------------------------------------------------------------------ lemmas

@lru_cache(maxsize=1)
def _lookup_table() -> dict[str, str] | None:
    try:
        import gzip
        import json
        from importlib import resources

        ref = resources.files("spacy_lookups_data") / "data" / "en_lemma_lookup.json.gz"
        with ref.open("rb") as f:
            return dict(json.loads(gzip.decompress(f.read())))
    except Exception:  # noqa: BLE001 - spacy-lookups-data missing: Porter stems
        return None


def _fallback_lemma(word: str) -> str:
    table = _lookup_table()
    if table is not None:
        return table.get(word) or table.get(word.lower()) or word
    return stem(word.lower())


def lemmatize_texts(texts: Sequence[str], *, stopwords: bool = False) -> tuple[list[str], str]:
    """Each text with every word replaced by its spaCy lemma (spacing kept); stopwords
    (:data:`ranklens.text.STOPWORDS`) are kept as written unless ``stopwords=True``.

    Returns ``(texts, method)``; ``method`` starts with ``fallback`` without spaCy."""
    nlp, how = pipeline()
    out = []
    if nlp is not None:
        for doc in _docs(nlp, texts, ("parser", "ner")):
            parts = []
            for t in doc:
                keep = (not stopwords and t.lower_ in STOPWORDS) or not t.is_alpha
                parts.append((t.text if keep else t.lemma_) + t.whitespace_)
            out.append("".join(parts))
        return out, f"{how} lemma_"
    for text in texts:
        pieces, last = [], 0
        for s, e in word_spans(text):
            w = text[s:e]
            pieces.append(text[last:s])
            pieces.append(w if (not stopwords and w.lower() in STOPWORDS) else _fallback_lemma(w))
            last = e
        pieces.append(text[last:])
        out.append("".join(pieces))
    method = "spacy-lookups-data table" if _lookup_table() is not None else "porter stem"
    return out, f"fallback: {method} ({how})"


def lemma_sets(texts: Sequence[str]) -> tuple[list[set[str]], str]:
    """Lower-cased lemmas of the non-stopword words of each text."""
    nlp, how = pipeline()
    if nlp is not None:
        return [{t.lemma_.lower() for t in doc if t.is_alpha or t.like_num}
                - STOPWORDS - {""} for doc in _docs(nlp, texts, ("parser", "ner"))], how
    return [{_fallback_lemma(w).lower() for w in tokenize(t) if w not in STOPWORDS} for t in texts], \
        f"fallback: lemma table ({how})"


# ------------------------------------------------------------------------------ prepositions

def preposition_spans(texts: Sequence[str]) -> tuple[list[list[tuple[int, int]]], str]:
    """Character spans of the prepositions of each text: spaCy tokens tagged ``ADP`` (the
    reference code), else the closed word list :data:`PREPOSITIONS`."""
    nlp, how = pipeline()
    if nlp is not None:
        return [[(t.idx, t.idx + len(t.text)) for t in doc if t.pos_ == "ADP"] for doc in _docs(nlp, texts, ("parser", "ner", "lemmatizer"))], \
            f"{how} pos_ == ADP"
    return [[(s, e) for s, e in word_spans(t) if t[s:e].lower() in PREPOSITIONS] for t in texts], \
        f"fallback: preposition word list ({how})"


# ------------------------------------------------------------------------------ noun chunks

def _content_runs(text: str, max_len: int = 4) -> set[str]:
    toks = tokenize(text)
    runs: set[str] = set()
    cur: list[str] = []
    for t in [*toks, ""]:
        if t and t not in STOPWORDS and not t.isdigit():
            cur.append(t)
            continue
        for i in range(len(cur)):
            for j in range(i + 1, min(len(cur), i + max_len) + 1):
                runs.add(" ".join(cur[i:j]))
        cur = []
    return runs


def noun_chunk_sets(texts: Sequence[str]) -> tuple[list[set[str]], str]:
    """The lower-cased noun chunks of each text (whitespace normalised); without spaCy, runs of
    up to 4 content words (the fallback)."""
    nlp, how = pipeline()
    if nlp is not None:
        return [{" ".join(c.text.lower().split()) for c in doc.noun_chunks} for doc in _docs(nlp, texts, ("ner",))], \
            f"{how} noun_chunks"
    return [_content_runs(t) for t in texts], f"fallback: shared content-word run ({how})"


def chunks_and_lemmas(texts: Sequence[str]) -> tuple[list[tuple[set[str], set[str]]], str]:
    """Noun chunks (:func:`noun_chunk_sets`) and lemmas (:func:`lemma_sets`) of each distinct
    text from one parse; ``method`` starts with ``fallback`` without spaCy."""
    uniq = list(dict.fromkeys(texts))
    nlp, how = pipeline()
    if nlp is not None:
        feats = {t: ({" ".join(c.text.lower().split()) for c in doc.noun_chunks},
                     {x.lemma_.lower() for x in doc if x.is_alpha or x.like_num} - STOPWORDS - {""})
                 for t, doc in zip(uniq, _docs(nlp, uniq, ("ner",)))}
        return [feats[t] for t in texts], f"{how} noun_chunks+lemma_"
    chunks, _ = noun_chunk_sets(uniq)
    lems, why = lemma_sets(uniq)
    feats = dict(zip(uniq, zip(chunks, lems)))
    return [feats[t] for t in texts], why


def pick_shared_chunk(a: set[str], b: set[str], rng: np.random.Generator, *, fallback: bool = False) -> str | None:
    """A random chunk present in both sets (sorted, then drawn with ``rng``), as the paper:
    "randomly selecting a noun chunk that appears in both versions of the text". The fallback
    takes the longest shared run."""
    common = sorted(a & b)
    if not common:
        return None
    if fallback:
        best = max(len(c.split()) for c in common)
        common = [c for c in common if len(c.split()) == best]
    return common[int(rng.integers(len(common)))]


# ------------------------------------------------------------------------------ entities

def answer_entity_types(answers: Sequence[str]) -> tuple[list[str | None], str]:
    """The paper's entity type (``PER``, ``GPE``, ``LOC``, ``NORP``, ``ORG``) of each answer: the
    label of the first entity spaCy finds in the answer text among those types (as the reference
    code), ``None`` when there is none. Raises nothing: ``([], why)`` without spaCy."""
    nlp, how = pipeline()
    if nlp is None:
        return [], how
    back = {v: k for k, v in NER_TYPES.items()}
    out: list[str | None] = []
    for doc in _docs(nlp, answers, ("parser", "lemmatizer")):
        labels = [e.label_ for e in doc.ents if e.label_ in back]
        out.append(back[labels[0]] if labels else None)
    return out, f"{how} ents"
