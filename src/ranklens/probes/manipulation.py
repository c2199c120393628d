"""Textual-manipulation probes (ABNIRML §2.2.2, Table 2).

Each probe rewrites the judged documents of a collection. Sign convention (as in the paper's
Table 2): ``d1`` = the **manipulated** text, ``d2`` = the original, so a positive score means the
ranker prefers the manipulated text and a negative one that it prefers the original.

Documents whose rewrite equals the original (e.g. one-sentence documents under sentence
shuffling) are not samples. ``subset`` picks ``all`` judged documents, ``rel`` (grade above
``nonrel_max_grade``) or ``nonrel`` (grade at most ``nonrel_max_grade``; default 0, DL19's
"irrelevant"; ANTIQUE's off-topic grade is 1).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ..errors import ValidationError
from ..text import sentence_spans_many, split_sentences, word_spans, word_tokenizer_version, word_tokens
from ..text import stopword_list as named_stopwords
from .base import Probe, ProbeSample, ProbeSamples, cap_samples
from .declaration import Params
from .nlp import lemmatize_texts, preposition_spans

__all__ = [
    "Doc2QueryProbe",
    "NonRelevantSentenceProbe",
    "PREPOSITION_SCOPES",
    "WORD_SHUFFLE_SCOPES",
    "TRANSFORMS",
    "TransformProbe",
    "TypoProbe",
    "remove_stopwords_punct",
    "shuffle_prepositions",
    "shuffle_sentences",
    "shuffle_words",
    "shuffle_words_document",
]

DEFAULTS = Params()


#: Where shuffle-words permutes: ``sentence`` (the paper's text, :func:`shuffle_words`) or
#: ``document`` (the reference code's ``ShufWords``, :func:`shuffle_words_document`).
WORD_SHUFFLE_SCOPES = ("sentence", "document")


def shuffle_words(text: str, rng: np.random.Generator) -> str:
    """Shuffle the whitespace-separated tokens within each sentence
    (:func:`ranklens.text.split_sentences`); sentence order kept. The paper: "shuffling the order
    of the words in each sentence" (its reference code's ``ShufWords`` shuffles the whole text:
    :func:`shuffle_words_document`)."""
    out = []
    for sent in split_sentences(text):
        toks = sent.split()
        out.append(" ".join(toks[i] for i in rng.permutation(len(toks))))
    return " ".join(out)


def shuffle_words_document(text: str, rng: np.random.Generator) -> str:
    """The reference code's ``ShufWords`` (whose results are the paper's Table 2): every spaCy token
    of the text (:func:`ranklens.text.word_tokens` with ``tokenizer="spacy"``, the rule-based
    English tokenizer of its ``en_core_web_sm``: punctuation tokens included) shuffled across the
    whole document, joined by single spaces; sentence boundaries are not kept."""
    (toks,) = word_tokens([text], "spacy")
    return " ".join(toks[i] for i in rng.permutation(len(toks)))


def shuffle_sentences(text: str, rng: np.random.Generator) -> str:
    """Shuffle the order of the sentences (:func:`ranklens.text.split_sentences`)."""
    sents = split_sentences(text)
    return " ".join(sents[i] for i in rng.permutation(len(sents)))


def permute_spans(text: str, spans: list[tuple[int, int]], rng: np.random.Generator) -> str:
    """Permute the words at ``spans`` among their positions; every other character stays."""
    words = [text[s:e] for s, e in spans]
    return _put_words(text, spans, [words[i] for i in rng.permutation(len(words))])


def _put_words(text: str, spans: list[tuple[int, int]], words: list[str]) -> str:
    """``text`` with the characters at ``spans`` (sorted, disjoint) replaced by ``words``."""
    out, last = [], 0
    for (s, e), w in zip(spans, words):
        out.append(text[last:s])
        out.append(w)
        last = e
    out.append(text[last:])
    return "".join(out)


#: Where shuffle-prepositions permutes: ``sentence`` (the paper, §4: "shuffling only the
#: prepositions in the sentence") or ``document`` (the reference code's ``ShufPrepositions``,
#: which permutes all the prepositions of the text among each other).
PREPOSITION_SCOPES = ("sentence", "document")


def permute_within_sentences(text: str, spans: list[tuple[int, int]], sentences: list[tuple[int, int]],
                             rng: np.random.Generator) -> str:
    """Permute the words at ``spans`` among the positions of *their own sentence* only
    (``sentences``: character spans, :func:`ranklens.text.sentence_spans`); a sentence with a
    single such word keeps it, and every other character stays."""
    from bisect import bisect_right

    starts = [a for a, _b in sentences]
    groups: dict[int, list[int]] = {}
    for k, (s, _e) in enumerate(spans):
        i = bisect_right(starts, s) - 1
        sid = i if i >= 0 and s < sentences[i][1] else -1 - k  # outside every sentence: alone
        groups.setdefault(sid, []).append(k)
    words = [text[s:e] for s, e in spans]
    new = list(words)
    for members in groups.values():
        if len(members) > 1:
            for dst, src in zip(members, (members[i] for i in rng.permutation(len(members)))):
                new[dst] = words[src]
    return _put_words(text, spans, new)


def shuffle_prepositions(text: str, rng: np.random.Generator, *, scope: str = "sentence") -> str:
    """Permute the prepositions (spaCy ``ADP`` tokens, :func:`ranklens.probes.nlp.preposition_spans`)
    among their positions; every other word stays in place. ``scope="sentence"`` (default, the
    paper: "shuffling only the prepositions in the sentence") permutes them within each sentence
    (:func:`ranklens.text.sentence_spans`), so a sentence with one preposition is unchanged;
    ``scope="document"`` (the reference code's ``ShufPrepositions``) across the whole text."""
    (spans,), _ = preposition_spans([text])
    return _shuffle_preps(text, spans, rng, scope, None)


def _shuffle_preps(text: str, spans: list[tuple[int, int]], rng: np.random.Generator, scope: str,
                   sentences: list[tuple[int, int]] | None) -> str:
    if scope not in PREPOSITION_SCOPES:
        raise ValidationError(f"preposition scope must be one of {PREPOSITION_SCOPES} (shuffle_preps_scope), "
                              f"got {scope!r}")
    if scope == "document":
        return permute_spans(text, spans, rng)
    if sentences is None:
        (sentences,) = sentence_spans_many([text])
    return permute_within_sentences(text, spans, sentences, rng)


def remove_stopwords_punct(text: str, rng: np.random.Generator | None = None, *,
                           stopword_list: str = DEFAULTS.stopword_list) -> str:
    """Keep only non-stopword word tokens (original case), separated by single spaces; ``stopword_list``:
    the list's name (:func:`ranklens.text.stopword_list`; ``"terrier"`` = the reference code's ``RmStops``)."""
    stop = named_stopwords(stopword_list)
    return " ".join(text[s:e] for s, e in word_spans(text) if text[s:e].lower() not in stop)


def lemmatize(text: str, rng: np.random.Generator | None = None) -> str:
    """Replace each non-stopword word by its spaCy lemma (:func:`ranklens.probes.nlp.lemmatize_texts`)."""
    return lemmatize_texts([text])[0][0]


TRANSFORMS: dict[str, Callable[[str, np.random.Generator], str]] = {
    "shuffle-words": shuffle_words,
    "shuffle-sents": shuffle_sentences,
    "shuffle-preps": shuffle_prepositions,
    "del-stops-punct": remove_stopwords_punct,
    "lemmatize": lemmatize,
}


def _judged(collection: Any, subset: str, name: str, nonrel_max_grade: int = 0) -> list[tuple[str, str, str, int]]:
    """(query_id, query, doc_id, grade) of judged pairs in a deterministic order; ``rel`` = grade
    above ``nonrel_max_grade``, ``nonrel`` = grade at most ``nonrel_max_grade``."""
    if collection is None or collection.qrels is None:
        raise ValidationError(f"probe {name} needs a collection with qrels (--collection)")
    if subset not in ("all", "rel", "nonrel"):
        raise ValidationError(f"subset must be 'all', 'rel' or 'nonrel', got {subset!r}")
    queries = collection.queries_dict()
    q = collection.qrels
    rows = sorted(zip(q["query_id"].astype(str), q["doc_id"].astype(str), q["relevance"].astype(int)))
    out = []
    for qid, did, rel in rows:
        if qid not in queries or did not in collection.docs:
            continue
        if (subset == "rel" and rel <= nonrel_max_grade) or (subset == "nonrel" and rel > nonrel_max_grade):
            continue
        out.append((qid, queries[qid], did, int(rel)))
    return out


def _doc_rng(base: int, doc_id: str) -> np.random.Generator:
    import zlib

    return np.random.default_rng([base, zlib.crc32(doc_id.encode("utf-8"))])


@dataclass(frozen=True, repr=False)
class TransformProbe(Probe):
    """d1 = ``transform(original)``, d2 = original, for judged documents.

    Each document is rewritten once (with a generator seeded per document, so results do not
    depend on which other documents are sampled); documents whose rewrite is empty or equal to
    the original are not samples. Lemmatize and shuffle-prepositions parse all documents in one
    spaCy pass (:mod:`ranklens.probes.nlp`).

    ``shuffle_preps_scope`` (shuffle-preps only): ``"sentence"`` (default, the paper's text:
    "shuffling only the prepositions in the sentence") or ``"document"`` (the reference code's
    ``ShufPrepositions``, which permutes the prepositions across the whole text), see
    :func:`shuffle_prepositions`. ``nonrel_max_grade``: the highest grade counted non-relevant, for
    the ``rel``/``nonrel`` subsets and the "+ non-relevant sentence" source (default 0, DL19's
    "irrelevant"; ANTIQUE's off-topic grade is 1, so ANTIQUE needs 1). The reference code counts
    grades 0-1 as its ``nrel`` subset and grade 0 exactly as the sentence source."""

    transform: str
    subset: str = "all"
    cap: int = DEFAULTS.cap
    lemmatize_stopwords: bool = DEFAULTS.lemmatize_stopwords
    shuffle_preps_scope: str = DEFAULTS.shuffle_preps_scope
    nonrel_max_grade: int = DEFAULTS.nonrel_max_grade
    shuffle_words_scope: str = DEFAULTS.shuffle_words_scope
    stopword_list: str = DEFAULTS.stopword_list
    family = "manipulation"

    def __post_init__(self) -> None:
        if self.shuffle_words_scope not in WORD_SHUFFLE_SCOPES:
            raise ValidationError(f"probe {self.name}: shuffle_words_scope must be one of {WORD_SHUFFLE_SCOPES}, "
                                  f"got {self.shuffle_words_scope!r}")
        named_stopwords(self.stopword_list)  # an unknown list name is an error here

    @property
    def name(self) -> str:  # type: ignore[override]
        suffix = "" if self.subset == "all" else f"-{self.subset}"
        return f"tr-{self.transform}{suffix}"

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"transform": self.transform, "subset": self.subset, "cap": self.cap or None}
        if self.transform == "lemmatize":
            out["lemmatize_stopwords"] = self.lemmatize_stopwords
        if self.transform == "shuffle-preps":
            out["shuffle_preps_scope"] = self.shuffle_preps_scope
        if self.transform == "shuffle-words":
            out["shuffle_words_scope"] = self.shuffle_words_scope
        if self.transform in ("del-stops-punct", "typo"):
            out["stopword_list"] = self.stopword_list
        if self.subset != "all" or self.transform == "add-nonrel-sent":
            out["nonrel_max_grade"] = self.nonrel_max_grade
        return out

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"convention": "d1 = manipulated, d2 = original"}
        if (self.transform == "shuffle-words" and self.shuffle_words_scope == "sentence") or \
                self.transform == "shuffle-sents" or (
                self.transform == "shuffle-preps" and self.shuffle_preps_scope == "sentence"):
            info["sentence_splitter"] = "ranklens.text.split_sentences"
        if self.transform == "shuffle-words":
            info["word_shuffle_scope"] = self.shuffle_words_scope
            if self.shuffle_words_scope == "document":
                info["word_tokenizer"] = word_tokenizer_version("spacy")
        if self.transform == "shuffle-preps":
            info["preposition_scope"] = self.shuffle_preps_scope
        return info

    def _rewrite_many(self, texts: list[str], rngs: list[np.random.Generator]) -> tuple[list[str], dict[str, Any]]:
        """The rewritten texts and what was used (``nlp`` method, ``fallback`` when no spaCy)."""
        if self.transform == "lemmatize":
            out, how = lemmatize_texts(texts, stopwords=self.lemmatize_stopwords)
            return out, {"lemmatizer": how, "stopwords_lemmatized": self.lemmatize_stopwords}
        if self.transform == "shuffle-preps":
            if self.shuffle_preps_scope not in PREPOSITION_SCOPES:
                raise ValidationError(f"probe {self.name}: shuffle_preps_scope must be one of {PREPOSITION_SCOPES}, "
                                      f"got {self.shuffle_preps_scope!r}")
            spans, how = preposition_spans(texts)
            sents = (sentence_spans_many(texts) if self.shuffle_preps_scope == "sentence"
                     else [None] * len(texts))
            return [_shuffle_preps(t, sp, r, self.shuffle_preps_scope, se)
                    for t, sp, r, se in zip(texts, spans, rngs, sents)], {"prepositions": how}
        if self.transform == "shuffle-words" and self.shuffle_words_scope == "document":
            return [shuffle_words_document(t, r) for t, r in zip(texts, rngs)], {}
        if self.transform == "del-stops-punct":
            return [remove_stopwords_punct(t, stopword_list=self.stopword_list) for t in texts], {}
        fn = TRANSFORMS.get(self.transform)
        if fn is None:
            raise ValidationError(f"unknown transform {self.transform!r}; one of {sorted(TRANSFORMS)}")
        return [fn(t, r) for t, r in zip(texts, rngs)], {}

    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        judged = cap_samples(_judged(collection, self.subset, self.name, self.nonrel_max_grade), self.cap, rng)
        base = int(rng.integers(2**31))
        ids = list(dict.fromkeys(did for _q, _t, did, _r in judged))
        originals = [collection.docs[d] for d in ids]
        new, extra = self._rewrite_many(originals, [_doc_rng(base, d) for d in ids])
        rewritten = {d: n for d, o, n in zip(ids, originals, new) if n is not None and n.strip() and n != o}
        samples = [ProbeSample(sample_id=f"{qid}|{did}", query_id=qid, query=q, text_1=rewritten[did],
                               text_2=collection.docs[did], doc_1_id=f"{did}~{self.transform}", doc_2_id=did)
                   for qid, q, did, _rel in judged if did in rewritten]
        return ProbeSamples(tuple(samples), info={**self._info(), **extra}, available=len(judged))


@dataclass(frozen=True, repr=False)
class TypoProbe(TransformProbe):
    """Replace words by common misspellings from a list (``misspellings_file``, see
    :func:`ranklens.probes.typos.load_misspellings`): every occurrence of a word with a known
    misspelling is replaced (a random one of its variants), as the reference code's ``Typo``.

    Stopwords (the ``stopword_list`` list, :func:`ranklens.text.stopword_list`: scikit-learn's by default,
    ``"terrier"`` = the reference code's) are left intact by default: the paper's text does
    not say which words are misspelled; this is the configuration of the reference code's
    ``Typo-nostops`` probe (``Typo(no_stops=True)``; its plain ``Typo`` misspells stopwords too).
    ``typo_stopwords=True`` misspells them too. Without a list: character-level typos
    (:func:`ranklens.probes.typos.char_typo`) in a ``typo_rate`` share of the non-stopword words of 4+
    letters (a fallback, recorded as ``typo_source``).

    ``typo_max_edit``: the edit-distance filter of the list (:func:`ranklens.probes.typos.load_misspellings`).
    ``-1`` (default): Wikipedia's list (the paper's source) is used whole, and only the noisy
    ``correct -> [misspellings]`` JSON lists (Birkbeck) lose variants more than
    :data:`ranklens.probes.typos.NOISY_LIST_MAX_EDIT` edits away; ``0`` keeps every variant of
    every list; ``N`` drops variants more than ``N`` edits away from any list.
    """

    transform: str = "typo"
    misspellings_file: str | None = None
    typo_rate: float = DEFAULTS.typo_rate
    typo_stopwords: bool = DEFAULTS.typo_stopwords
    char_requested: bool = False  # character typos chosen on purpose (not a fallback)
    typo_max_edit: int = DEFAULTS.typo_max_edit

    @property
    def name(self) -> str:  # type: ignore[override]
        """``tr-typo[-rel|-nonrel]`` with a misspelling list; ``tr-typo-char[...]`` for character-level
        typos: one name never covers two constructions."""
        base = TransformProbe.name.fget(self)  # type: ignore[attr-defined]
        return base if self.misspellings_file else base.replace("tr-typo", "tr-typo-char", 1)

    def params(self) -> dict[str, Any]:
        return {**super().params(), "misspellings_file": self.misspellings_file, "typo_rate": self.typo_rate,
                "typo_stopwords": self.typo_stopwords, "typo_max_edit": self.typo_max_edit}

    @property
    def _max_edit(self) -> int | None:
        """The list filter of :func:`ranklens.probes.typos.load_misspellings`: ``None`` for -1."""
        return None if self.typo_max_edit is None or self.typo_max_edit == -1 else int(self.typo_max_edit)

    @cached_property
    def _table(self) -> dict[str, tuple[str, ...]] | None:
        from .typos import load_misspellings

        if self._max_edit is not None and self._max_edit < 0:
            raise ValidationError(f"probe {self.name}: typo_max_edit must be >= 0 (0 = keep every variant) or "
                                  f"-1 for the per-format default, got {self.typo_max_edit}")
        return load_misspellings(self.misspellings_file, max_edit=self._max_edit) if self.misspellings_file else None

    def _info(self) -> dict[str, Any]:
        info = {**super()._info(), "stopwords_misspelled": self.typo_stopwords}
        if self.misspellings_file:
            from .._hashing import sha256_file

            from .typos import NOISY_LIST_MAX_EDIT

            info.update(typo_source=f"list:{self.misspellings_file}", typo_list=str(self.misspellings_file),
                        typo_list_sha256=sha256_file(self.misspellings_file),
                        typo_list_words=len(self._table or {}),
                        typo_max_edit=(f"default: {NOISY_LIST_MAX_EDIT} on correct->[misspellings] JSON lists "
                                       "only, none on the others" if self._max_edit is None
                                       else self._max_edit or "none"))
        else:
            what = f"character-level typos (rate={self.typo_rate})"
            info["typo_source"] = what if self.char_requested else f"fallback: {what} (no misspelling list found)"
        return info

    def _rewrite_many(self, texts: list[str], rngs: list[np.random.Generator]) -> tuple[list[str], dict[str, Any]]:
        return [self._rewrite(t, r) for t, r in zip(texts, rngs)], {}

    def _rewrite(self, text: str, rng: np.random.Generator) -> str:
        from .typos import char_typo

        table = self._table
        stop = named_stopwords(self.stopword_list)
        out, last = [], 0
        for s, e in word_spans(text):
            w = text[s:e]
            low = w.lower()
            new = w
            if not self.typo_stopwords and low in stop:
                pass
            elif table is not None:
                variants = table.get(low)
                if variants:
                    new = variants[int(rng.integers(len(variants)))]
                    if w[:1].isupper():
                        new = new[:1].upper() + new[1:]
            elif len(w) >= 4 and rng.random() < self.typo_rate:
                new = char_typo(w, rng)
            out.append(text[last:s])
            out.append(new)
            last = e
        out.append(text[last:])
        return "".join(out)


@dataclass(frozen=True, repr=False)
class Doc2QueryProbe(TransformProbe):
    """Append doc2query expansion queries to the document (d1 = expanded). The paper generates
    four queries per document with docT5query (:class:`ranklens.probes.expansion.Seq2SeqExpander`,
    ``num_queries=4``)."""

    transform: str = "doc2query"
    expander: str | None = DEFAULTS.expander
    expander_obj: Any = field(default=None, compare=False)

    def params(self) -> dict[str, Any]:
        return {**super().params(), "expander": self.expander or None}

    def _get(self) -> Any:
        if self.expander_obj is not None:
            return self.expander_obj
        from .expansion import make_expander

        return make_expander(self.expander or None)

    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        exp = self._get()
        if exp is None:
            return ProbeSamples((), info=self._info(), skipped=(
                "no doc2query expander: set the expander parameter to a seq2seq model directory or an "
                "expansions file (none is available offline)"))
        judged = cap_samples(_judged(collection, self.subset, self.name, self.nonrel_max_grade), self.cap, rng)
        ids = sorted({d for _q, _t, d, _r in judged})
        expansions = dict(zip(ids, exp.expand(ids, collection.docs.get_many(ids))))
        samples = []
        for qid, q, did, _rel in judged:
            extra = [e for e in expansions.get(did, []) if e.strip()]
            if not extra:
                continue
            orig = collection.docs[did]
            samples.append(ProbeSample(
                sample_id=f"{qid}|{did}", query_id=qid, query=q,
                text_1=orig.rstrip() + " " + " ".join(extra), text_2=orig,
                doc_1_id=f"{did}~doc2query", doc_2_id=did))
        info = {**self._info(), "expander": exp.fingerprint}
        return ProbeSamples(tuple(samples), info=info, available=len(judged))


NONREL_SOURCES = ("same-query", "other-query")


@dataclass(frozen=True, repr=False)
class NonRelevantSentenceProbe(TransformProbe):
    """Append one sentence of a non-relevant document to the end of the document (d1 = with the
    sentence).

    ``nonrel_source="same-query"`` (default, the reference code's ``AddSent('end')``; the paper only says
    "adds a non-relevant sentence"): the sentence comes from a random *other* document judged
    non-relevant (grade <= ``nonrel_max_grade``) *for the same query*, any of its sentences
    (:func:`ranklens.text.split_sentences`) at random; documents without such another document
    give no samples. ``nonrel_source="other-query"`` (the earlier ranklens construction, an off-topic
    sentence): from a document judged non-relevant for another query and not judged for this one.

    The manipulated document itself is never a source: the paper adds "a non-relevant sentence",
    and a non-relevant document's own sentence appended to it is a duplicated sentence, not added
    non-relevant content. The reference code's ``AddSent`` does not exclude it (it draws from every
    document of the query with grade 0, the manipulated one included).

    ``nonrel_max_grade`` (default 0, DL19's "irrelevant"): the highest grade counted
    non-relevant; ANTIQUE's grades are 1-4 with 1 = off-topic, so ANTIQUE needs 1 (with 0 no
    ANTIQUE document is non-relevant and the probe has no samples).
    """

    transform: str = "add-nonrel-sent"
    nonrel_source: str = DEFAULTS.nonrel_source

    def params(self) -> dict[str, Any]:
        return {**super().params(), "nonrel_source": self.nonrel_source}

    def _pools(self, collection: Any) -> tuple[dict[str, list[str]], list[tuple[str, str]], dict[str, set[str]]]:
        q = collection.qrels
        judged_for: dict[str, set[str]] = {}
        same: dict[str, list[str]] = {}
        other: list[tuple[str, str]] = []
        for qid, did, rel in sorted(zip(q["query_id"].astype(str), q["doc_id"].astype(str), q["relevance"].astype(int))):
            judged_for.setdefault(did, set()).add(qid)
            if rel <= self.nonrel_max_grade and did in collection.docs:
                same.setdefault(qid, []).append(did)
                other.append((qid, did))
        return same, other, judged_for

    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        if self.nonrel_source not in NONREL_SOURCES:
            raise ValidationError(f"nonrel_source must be one of {NONREL_SOURCES}, got {self.nonrel_source!r}")
        judged = cap_samples(_judged(collection, self.subset, self.name, self.nonrel_max_grade), self.cap, rng)
        same, other, judged_for = self._pools(collection)
        samples = []
        for qid, qtext, did, _rel in judged:
            if self.nonrel_source == "same-query":
                cands = [d for d in same.get(qid, []) if d != did]  # never the document itself
            else:  # documents judged for this query (the document itself included) are left out
                cands = [d for qq, d in other if qq != qid and qid not in judged_for.get(d, set())]
            if not cands:
                continue
            src = cands[int(rng.integers(len(cands)))]
            sents = [t for t in split_sentences(collection.docs[src]) if re.search(r"\w", t)]
            if not sents:
                continue
            sent = sents[int(rng.integers(len(sents)))]
            orig = collection.docs[did]
            samples.append(ProbeSample(
                sample_id=f"{qid}|{did}", query_id=qid, query=qtext, text_1=orig.rstrip() + " " + sent,
                text_2=orig, doc_1_id=f"{did}~add-sent:{src}", doc_2_id=did, meta=(("sentence_from", src),)))
        info = {**self._info(), "sentence_source": self.nonrel_source, "position": "end",
                "sentence_splitter": "ranklens.text.split_sentences", "nonrel_max_grade": self.nonrel_max_grade,
                "excludes_own_document": True}
        return ProbeSamples(tuple(samples), info=info, available=len(judged))
