"""Explanation units (sentences, word windows), rationales and explanations as frozen records.

A *unit* is a span of a document given by character offsets ``[start, end)``. Sentences come
from :func:`ranklens.text.sentence_spans`; lines (for pre-segmented documents, e.g. WikiQA
candidate sentences joined by newlines) are the non-empty lines; word windows of ``w`` words from consecutive,
non-overlapping groups of :func:`ranklens.text.word_spans` (the last window may be shorter).
A *rationale* is a unit chosen as part of an explanation, with a weight (its attribution).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ValidationError
from ..text import sentence_spans, word_spans

__all__ = [
    "Explanation",
    "Granularity",
    "Rationale",
    "Unit",
    "parse_granularity",
    "pseudo_document",
    "remove_spans",
    "split_units",
]


@dataclass(frozen=True, slots=True)
class Unit:
    """One explanation unit of a document.

    Attributes:
        index: 0-based position of the unit in the document.
        start: character offset of the first character.
        end: character offset one past the last character.
        text: ``document[start:end]``.
    """

    index: int
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Rationale:
    """A unit selected as explanation, with its weight (attribution; higher = more important).

    Attributes:
        unit: index of the unit in the document's unit list (``-1`` when unknown, e.g. for
            rationales read from a file that gives only offsets).
        start: character offset of the span.
        end: character offset one past the span.
        text: the span's text.
        weight: attribution weight (occlusion: normalised score drop).
    """

    unit: int
    start: int
    end: int
    text: str
    weight: float


@dataclass(frozen=True, slots=True)
class Granularity:
    """How a document is cut into units: ``sentence``, ``line`` (pre-segmented text, one unit per
    non-empty line) or ``window`` of ``width`` words."""

    kind: str
    width: int = 0

    def __str__(self) -> str:
        return self.kind if self.kind != "window" else f"window:{self.width}"


_WINDOW = re.compile(r"^window:(\d+)$")


def parse_granularity(spec: str | Granularity) -> Granularity:
    """Parse ``"sentence"``, ``"line"`` or ``"window:W"`` (W >= 1 words).

    Raises:
        ValidationError: for any other spelling, naming the accepted forms.
    """
    if isinstance(spec, Granularity):
        return spec
    s = str(spec).strip().lower()
    if s in {"sentence", "sentences", "sent"}:
        return Granularity("sentence")
    if s in {"line", "lines"}:
        return Granularity("line")
    m = _WINDOW.match(s)
    if m and int(m.group(1)) >= 1:
        return Granularity("window", int(m.group(1)))
    raise ValidationError(
        f"granularity must be 'sentence', 'line' or 'window:W' with W >= 1 words (e.g. 'window:5'), got {spec!r}"
    )


def split_units(text: str, granularity: str | Granularity) -> tuple[Unit, ...]:
    """Cut ``text`` into units with character offsets.

    Examples:
        >>> [u.text for u in split_units("One two three. Four five.", "window:2")]
        ['One two', 'three. Four', 'five']
        >>> [u.text for u in split_units("One two three. Four five.", "sentence")]
        ['One two three.', 'Four five.']
    """
    g = parse_granularity(granularity)
    if g.kind == "sentence":
        spans = sentence_spans(text)
    elif g.kind == "line":
        spans = []
        pos = 0
        for line in text.split("\n"):
            lead = len(line) - len(line.lstrip())
            if line.strip():
                spans.append((pos + lead, pos + len(line.rstrip())))
            pos += len(line) + 1
    else:
        words = word_spans(text)
        spans = [
            (words[i][0], words[min(i + g.width, len(words)) - 1][1])
            for i in range(0, len(words), g.width)
        ]
    return tuple(Unit(i, s, e, text[s:e]) for i, (s, e) in enumerate(spans))


def remove_spans(text: str, spans: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> str:
    """``text`` with the character spans removed; the remaining pieces are joined by one space.

    Whitespace inside the kept pieces is untouched; only the cut points are normalised, so the
    occluded text differs from the original by the removed units alone.
    """
    pieces: list[str] = []
    pos = 0
    for s, e in sorted(spans):
        if s > pos:
            pieces.append(text[pos:s])
        pos = max(pos, e)
    pieces.append(text[pos:])
    return " ".join(p.strip() for p in pieces if p.strip())


PSEUDO_ORDERS = ("weight", "document")


def pseudo_document(rationales: tuple[Rationale, ...] | list[Rationale], order: str = "weight") -> str:
    """The rationale-only document ϕ_m(D) = d_1 ⊕ ... ⊕ d_m (eq. 1), texts joined by one space.

    ``order="weight"`` (default): the rationales in the order given, most important first, as
    eq. 1 lists them and the paper's reference code joins them; ``"document"``: in document order
    (a deviation; the same pseudo-document for bag-of-words rankers such as BM25).
    """
    if order not in PSEUDO_ORDERS:
        raise ValidationError(f"pseudo-document order must be one of {PSEUDO_ORDERS}, got {order!r}")
    rs = list(rationales) if order == "weight" else sorted(rationales, key=lambda r: (r.start, r.end))
    return " ".join(r.text.strip() for r in rs)


@dataclass(frozen=True, slots=True)
class Explanation:
    """The occlusion explanation of one (query, document) pair.

    Attributes:
        query: the query text.
        document: the document text.
        score: θ(Q, D), the ranker's score of the full document (document mode: max over chunks).
        units: the document's units.
        weights: attribution per unit (same order as ``units``); ``nan`` for units never
            evaluated (document mode, units not reached by the greedy selection).
        order: unit indices from most to least important; ``top(m)`` takes the first ``m``.
        mode: ``"passage"`` (sampled occlusion, eq. 4) or ``"document"`` (chunks + greedy, eq. 5).
        guarded: True when |θ(Q, D)| was below ``eps`` and the normaliser fell back to ``eps``.
        masked_sets: how many occluded variants were scored (passage mode: masked unit sets;
            document mode: candidate removals over all greedy steps).
        exhaustive: every combination of 1..n units was masked (passage mode), no sampling.
    """

    query: str
    document: str
    score: float
    units: tuple[Unit, ...]
    weights: tuple[float, ...]
    order: tuple[int, ...]
    mode: str = "passage"
    guarded: bool = False
    masked_sets: int = 0
    exhaustive: bool = True

    def top(self, m: int) -> tuple[Rationale, ...]:
        """The ``m`` most important units as rationales (most important first)."""
        if m < 0:
            raise ValidationError(f"m must be >= 0, got {m}")
        return tuple(
            Rationale(i, self.units[i].start, self.units[i].end, self.units[i].text, float(self.weights[i]))
            for i in self.order[:m]
        )
