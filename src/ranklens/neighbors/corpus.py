"""The neighbour corpus: documents split into sentences, exact duplicates removed, ids kept.

Each corpus entry keeps an id (``<doc_id>#<sentence index>`` when documents are split, else the
document id), so neighbours can always be shown as text and traced to their source.

Duplicates are *exact* text matches after stripping surrounding whitespace; the first occurrence
(in input order) is kept and the number removed is reported. Because the corpus holds each text
once, excluding a query's own corpus index also excludes every exact duplicate of the query text
(the self-exclusion rule of :mod:`ranklens.neighbors.analysis`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .._hashing import sha256_texts
from ..errors import ValidationError
from .. import text as _text
from .declaration import Params

__all__ = ["SentenceCorpus", "build_corpus"]

DEFAULTS = Params()  # kernel defaults are the declared ones


@dataclass(frozen=True)
class SentenceCorpus:
    """Deduplicated texts with ids.

    Attributes:
        ids: one id per text (``doc_id#i`` for the i-th sentence of a document, 0-based).
        texts: the texts, each distinct.
        n_input: texts before deduplication (after segmentation and the ``min_tokens`` filter).
        n_duplicates: exact duplicates removed.
        ledes: corpus indices of the first sentence of each document (the paper draws its queries
            from article ledes), each once.
    """

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    n_input: int
    n_duplicates: int
    ledes: tuple[int, ...] = ()
    _index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def hash(self) -> str:
        """SHA-256 over ids and texts (identifies the corpus in caches and provenance)."""
        return sha256_texts([*self.ids, "\x00", *self.texts])

    def index_of_text(self, text: str) -> int | None:
        """Corpus index of an exact text (stripped), or ``None``."""
        if not self._index:
            self._index.update({t: i for i, t in enumerate(self.texts)})
        return self._index.get(text.strip())

    def with_texts(self, texts: Iterable[str], *, id_prefix: str = "added") -> SentenceCorpus:
        """A new corpus with ``texts`` appended (those already present are not added twice)."""
        ids = list(self.ids)
        out = list(self.texts)
        seen = set(out)
        for i, t in enumerate(texts):
            t = t.strip()
            if t and t not in seen:
                seen.add(t)
                ids.append(f"{id_prefix}#{i}")
                out.append(t)
        return SentenceCorpus(tuple(ids), tuple(out), self.n_input, self.n_duplicates, self.ledes)

    def subset(self, keep: Iterable[int]) -> SentenceCorpus:
        """The corpus restricted to rows ``keep`` (in corpus order); ledes kept where present."""
        rows = sorted(set(int(i) for i in keep))
        new = {old: new for new, old in enumerate(rows)}
        return SentenceCorpus(tuple(self.ids[i] for i in rows), tuple(self.texts[i] for i in rows), self.n_input,
                              self.n_duplicates, tuple(new[i] for i in self.ledes if i in new))


def _segments(items: list[tuple[str, str]], split: bool) -> list[list[str]]:
    for pos, item in enumerate(items):
        try:
            doc_id, text = item
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"docs item {pos} must be a (doc_id, text) pair, got {item!r:.80}") from exc
        if not isinstance(text, str):
            raise ValidationError(f"text of document {doc_id!r} must be str, got {type(text).__name__}")
    if not split:
        return [[t.strip()] for _, t in items]
    texts = [t for _, t in items]
    many = getattr(_text, "sentence_spans_many", None)  # one batched segmenter pass when available
    if many is not None:
        return [[t[s:e] for s, e in spans] for t, spans in zip(texts, many(texts))]
    return [_text.split_sentences(t) for t in texts]


def build_corpus(
    docs: Mapping[str, str] | Iterable[tuple[str, str]],
    *,
    split: bool = DEFAULTS.split,
    min_tokens: int = DEFAULTS.min_tokens,
) -> SentenceCorpus:
    """Segment documents into sentences (:func:`ranklens.text.sentence_spans`) and deduplicate.

    Args:
        docs: ``doc_id -> text`` mapping or ``(doc_id, text)`` pairs (a ``DocStore`` works).
        split: split documents into sentences (``False``: one entry per document).
        min_tokens: drop texts with fewer word tokens than this.

    Returns:
        :class:`SentenceCorpus` (first occurrence of each exact text kept; ``ledes`` = the first
        kept sentence of each document).
    """
    items = list(docs.items() if isinstance(docs, Mapping) else docs)
    ids: list[str] = []
    texts: list[str] = []
    seen: dict[str, int] = {}
    ledes: dict[int, None] = {}
    n_input = 0
    for (doc_id, _), parts in zip(items, _segments(items, split)):
        first = True
        for i, sent in enumerate(parts):
            sent = sent.strip()
            if len(_text.tokenize(sent)) < min_tokens:
                continue
            n_input += 1
            if sent not in seen:
                seen[sent] = len(texts)
                ids.append(f"{doc_id}#{i}" if split else str(doc_id))
                texts.append(sent)
            if first:
                ledes.setdefault(seen[sent])
                first = False
    if not texts:
        raise ValidationError("the corpus is empty after segmentation and filtering")
    return SentenceCorpus(tuple(ids), tuple(texts), n_input, n_input - len(texts), tuple(ledes))
