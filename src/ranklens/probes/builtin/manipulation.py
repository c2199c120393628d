"""Textual-manipulation probes (ABNIRML §2.2.2, Table 2).

Each probe rewrites the judged documents of a collection. Sign convention (as in the paper's
Table 2): ``d1`` = the **manipulated** text, ``d2`` = the original, so a positive score means the
ranker prefers the manipulated text and a negative one that it prefers the original.

Documents whose rewrite equals the original (e.g. one-sentence documents under sentence
shuffling) are not samples. ``subset`` picks ``all`` judged documents, ``rel`` (grade >= 1) or
``nonrel`` (grade <= 0).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import ValidationError
from ...text import STOPWORDS, word_spans
from ..base import Probe, ProbeSample, ProbeSamples, cap_samples
from ..nlp import PREPOSITIONS, lemmatize_text, lemmatizer_name, split_sentences

__all__ = [
    "Doc2QueryProbe",
    "NonRelevantSentenceProbe",
    "TRANSFORMS",
    "TransformProbe",
    "TypoProbe",
    "remove_stopwords_punct",
    "shuffle_prepositions",
    "shuffle_sentences",
    "shuffle_words",
]


def shuffle_words(text: str, rng: np.random.Generator) -> str:
    """Shuffle the whitespace-separated tokens within each sentence; sentence order kept."""
    out = []
    for sent in split_sentences(text):
        toks = sent.split()
        out.append(" ".join(toks[i] for i in rng.permutation(len(toks))))
    return " ".join(out)


def shuffle_sentences(text: str, rng: np.random.Generator) -> str:
    """Shuffle the order of the sentences."""
    sents = split_sentences(text)
    return " ".join(sents[i] for i in rng.permutation(len(sents)))


def shuffle_prepositions(text: str, rng: np.random.Generator) -> str:
    """Permute the prepositions among their positions; every other word stays in place."""
    spans = [(s, e) for s, e in word_spans(text) if text[s:e].lower() in PREPOSITIONS]
    words = [text[s:e] for s, e in spans]
    perm = [words[i] for i in rng.permutation(len(words))]
    out, last = [], 0
    for (s, e), w in zip(spans, perm):
        out.append(text[last:s])
        out.append(w)
        last = e
    out.append(text[last:])
    return "".join(out)


def remove_stopwords_punct(text: str, rng: np.random.Generator | None = None) -> str:
    """Keep only non-stopword word tokens (original case), separated by single spaces."""
    return " ".join(text[s:e] for s, e in word_spans(text) if text[s:e].lower() not in STOPWORDS)


def lemmatize(text: str, rng: np.random.Generator | None = None) -> str:
    """Replace each word by its lemma (see :func:`ranklens.probes.nlp.lemmatizer_name`)."""
    return lemmatize_text(text)


TRANSFORMS: dict[str, Callable[[str, np.random.Generator], str]] = {
    "shuffle-words": shuffle_words,
    "shuffle-sents": shuffle_sentences,
    "shuffle-preps": shuffle_prepositions,
    "del-stops-punct": remove_stopwords_punct,
    "lemmatize": lemmatize,
}


def _judged(collection: Any, subset: str, name: str) -> list[tuple[str, str, str, int]]:
    """(query_id, query, doc_id, grade) of judged pairs in a deterministic order."""
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
        if (subset == "rel" and rel < 1) or (subset == "nonrel" and rel > 0):
            continue
        out.append((qid, queries[qid], did, int(rel)))
    return out


@dataclass(frozen=True, repr=False)
class TransformProbe(Probe):
    """d1 = ``transform(original)``, d2 = original, for judged documents.

    The transform gets a generator seeded per document (so results do not depend on which
    other documents are sampled)."""

    transform: str
    subset: str = "all"
    cap: int | None = 1000
    seed: int = 0
    family = "manipulation"

    @property
    def name(self) -> str:  # type: ignore[override]
        suffix = "" if self.subset == "all" else f"-{self.subset}"
        return f"tr-{self.transform}{suffix}"

    def params(self) -> dict[str, Any]:
        return {"transform": self.transform, "subset": self.subset, "cap": self.cap}

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"convention": "d1 = manipulated, d2 = original"}
        if self.transform == "lemmatize":
            info["lemmatizer"] = lemmatizer_name()
        if self.transform in ("shuffle-words", "shuffle-sents"):
            info["sentence_splitter"] = "ranklens.probes.nlp.split_sentences"
        return info

    def _rewrite(self, doc_id: str, text: str, rng: np.random.Generator) -> str | None:
        fn = TRANSFORMS.get(self.transform)
        if fn is None:
            raise ValidationError(f"unknown transform {self.transform!r}; one of {sorted(TRANSFORMS)}")
        return fn(text, rng)

    def _doc_rng(self, rng_seed: int, doc_id: str) -> np.random.Generator:
        import zlib

        return np.random.default_rng([rng_seed, zlib.crc32(doc_id.encode("utf-8"))])

    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        judged = _judged(collection, self.subset, self.name)
        judged = cap_samples(judged, self.cap, rng)
        base = int(rng.integers(2**31))
        cache: dict[str, str | None] = {}
        samples = []
        for qid, q, did, _rel in judged:
            if did not in cache:
                orig = collection.docs[did]
                new = self._rewrite(did, orig, self._doc_rng(base, did))
                cache[did] = new if new is not None and new.strip() and new != orig else None
            new = cache[did]
            if new is None:
                continue
            samples.append(ProbeSample(
                sample_id=f"{qid}|{did}", query_id=qid, query=q, text_1=new,
                text_2=collection.docs[did], doc_1_id=f"{did}~{self.transform}", doc_2_id=did))
        return ProbeSamples(tuple(samples), info=self._info(), available=len(judged))


@dataclass(frozen=True, repr=False)
class TypoProbe(TransformProbe):
    """Replace words by common misspellings from a list (``misspellings`` file, see
    :func:`ranklens.probes.typos.load_misspellings`); every word with a known misspelling is
    replaced (a random one of its variants). Without a list: character-level typos
    (:func:`ranklens.probes.typos.char_typo`) in a ``rate`` share of the words of 4+ letters.

    The list is read once per probe (not per document). The samples' ``info`` records which
    list was used (``typo_source``, ``typo_list``, ``typo_list_sha256``, ``typo_list_words``).
    """

    transform: str = "typo"
    misspellings: str | None = None
    rate: float = 0.5

    def params(self) -> dict[str, Any]:
        return {**super().params(), "misspellings": self.misspellings, "rate": self.rate}

    @cached_property
    def _table(self) -> dict[str, tuple[str, ...]] | None:
        from ..typos import load_misspellings

        return load_misspellings(self.misspellings) if self.misspellings else None

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        if self.misspellings:
            from ..._hashing import sha256_file

            info["typo_source"] = f"list:{self.misspellings}"
            info["typo_list"] = str(self.misspellings)
            info["typo_list_sha256"] = sha256_file(self.misspellings)
            info["typo_list_words"] = len(self._table or {})
        else:
            info["typo_source"] = f"char-level fallback (rate={self.rate})"
        return info

    def _rewrite(self, doc_id: str, text: str, rng: np.random.Generator) -> str | None:
        from ..typos import char_typo

        table = self._table
        out, last = [], 0
        for s, e in word_spans(text):
            w = text[s:e]
            low = w.lower()
            new = w
            if table is not None:
                variants = table.get(low)
                if variants:
                    new = variants[int(rng.integers(len(variants)))]
                    if w[:1].isupper():
                        new = new[:1].upper() + new[1:]
            elif len(w) >= 4 and rng.random() < self.rate:
                new = char_typo(w, rng)
            out.append(text[last:s])
            out.append(new)
            last = e
        out.append(text[last:])
        return "".join(out)


@dataclass(frozen=True, repr=False)
class Doc2QueryProbe(TransformProbe):
    """Append doc2query-style expansion queries to the document (d1 = expanded)."""

    transform: str = "doc2query"
    expander: str | None = None
    expander_obj: Any = field(default=None, compare=False)

    def params(self) -> dict[str, Any]:
        return {**super().params(), "expander": self.expander}

    def _get(self) -> Any:
        if self.expander_obj is not None:
            return self.expander_obj
        from ..expansion import make_expander

        return make_expander(self.expander)

    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        exp = self._get()
        if exp is None:
            return ProbeSamples((), info=self._info(), skipped=(
                "no doc2query expander: pass expander=<seq2seq model dir | expansions file> "
                "(--probe-opt expander=PATH); none is available offline"))
        judged = cap_samples(_judged(collection, self.subset, self.name), self.cap, rng)
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


@dataclass(frozen=True, repr=False)
class NonRelevantSentenceProbe(TransformProbe):
    """Append one sentence taken from a document judged non-relevant (grade <= 0) for another
    query; when the collection has no such document, from a random document not judged for
    this query (recorded as ``sentence_source``)."""

    transform: str = "add-nonrel-sent"

    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        judged = cap_samples(_judged(collection, self.subset, self.name), self.cap, rng)
        q = collection.qrels
        nonrel = q[q["relevance"].astype(int) <= 0]
        by_doc_q: dict[str, set[str]] = {}
        for qid, did in zip(q["query_id"].astype(str), q["doc_id"].astype(str)):
            by_doc_q.setdefault(did, set()).add(qid)
        pool = sorted({(str(a), str(b)) for a, b in zip(nonrel["query_id"], nonrel["doc_id"])
                       if str(b) in collection.docs})
        source = "judged-non-relevant"
        if not pool:
            source = "unjudged-random"
        all_docs = sorted(collection.docs)
        samples = []
        for qid, qtext, did, _rel in judged:
            if source == "judged-non-relevant":
                cands = [d for qq, d in pool if qq != qid and qid not in by_doc_q.get(d, set())]
            else:
                cands = []
                for _ in range(20):
                    d = all_docs[int(rng.integers(len(all_docs)))]
                    if qid not in by_doc_q.get(d, set()):
                        cands = [d]
                        break
            if not cands:
                continue
            src = cands[int(rng.integers(len(cands)))]
            sents = [t for t in split_sentences(collection.docs[src]) if re.search(r"\w", t)]
            if not sents:
                continue
            sent = sents[int(rng.integers(len(sents)))]
            orig = collection.docs[did]
            samples.append(ProbeSample(
                sample_id=f"{qid}|{did}", query_id=qid, query=qtext,
                text_1=orig.rstrip() + " " + sent, text_2=orig,
                doc_1_id=f"{did}~add-sent:{src}", doc_2_id=did, meta=(("sentence_from", src),)))
        info = {**self._info(), "sentence_source": source, "position": "end",
                "sentence_splitter": "ranklens.probes.nlp.split_sentences"}
        return ProbeSamples(tuple(samples), info=info, available=len(judged))


