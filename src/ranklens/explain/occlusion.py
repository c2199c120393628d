"""Occlusion explainer (Pandian, Ganguly & MacAvaney, "Evaluating the Explainability of Neural
Rankers", §4.2).

Passage mode (eq. 4)
    The document is cut into units (sentences or windows of ``w`` words). Sets ``S`` of at most
    ``n`` units are masked (removed) and each unit ``d_j ∈ S`` receives

    .. math:: a(d_j) \\mathrel{+}= \\frac{|θ(Q,D) - θ(Q, D \\setminus \\cup_{d \\in S} d)|}{|S| \\cdot N(θ(Q,D))}

    where ``N`` is the normaliser below. The sets are every combination of 1..``n`` units, as
    the paper's reference code enumerates them (``samples=0``, the default, or whenever they
    number at most ``samples``: exhaustive, no randomness). With a positive ``samples`` budget
    and more combinations than that, every singleton is evaluated and random sets of 2..``n``
    units are added: ``samples - units`` of them but never fewer than ``units`` (so a document
    with many units still gets multi-unit sets), drawn with a generator seeded by ``seed`` and
    a hash of the (query, document) pair, so a document's explanation does not depend on what
    else is explained with it. Each :class:`Explanation` records how many sets it got.

    Accumulation: ``aggregate="sum"`` (default) is the paper's eq. 4 and its reference code
    (attributions summed over the sets containing the unit). ``"mean"`` divides by the number
    of sets containing the unit: under exhaustive enumeration every unit is in the same number
    of sets, so both give the *same* rationales; under sampling the sum grows with how often a
    unit happened to be drawn, which the mean does not. The choice is recorded in provenance.

Document mode (eq. 5): ``long_document="auto"`` (default) for documents with more than
``long_document_sentences`` (20) sentences, ``"always"`` for every document with a sentence,
``"never"`` for none. The paper explains MS MARCO passages (3.4 sentences on average) by eq. 4
and MS MARCO documents (55.7 sentences) by eq. 5; 20 keeps every DL19 passage (at most 19
sentences by ranklens's segmenter, 99% at most 9) in passage mode.
    Units are sentences (lines with ``granularity="line"``); the document is split into consecutive chunks of ``chunk_sentences``
    sentences (fixed on the original positions) and θ(Q, D) = max over chunk scores (MaxP).
    ``greedy_steps`` sentences are chosen greedily: at each step the remaining sentence whose
    removal gives the largest relative drop (θ(D_t) − θ(D_t − s)) / N(θ(D_t)) is chosen and
    removed. The weight of a chosen sentence is its relative drop at selection time; sentences
    never chosen get ``nan``. A removed-to-empty chunk is left out of the max; if every chunk is
    empty the empty string is scored.

Guard for θ ≤ 0 (log-probabilities, logits) or θ ≈ 0
    ``normalize="abs"`` (default): N(θ) = max(|θ|, eps). For positive scores this is the paper's
    division by θ; for negative scores it keeps the attribution non-negative; near zero it
    caps the blow-up and flags the explanation ``guarded``. ``"none"``: N = 1 (raw score
    differences). ``"shift"``: N(θ) = θ − min_q + eps where ``min_q`` is the smallest score of
    any original or occluded text of the same query in this call (the "shift by the minimum"
    choice). Within one document the normaliser is a positive constant, so the *choice* of
    rationales (and hence MRC and MER) does not depend on it; only the displayed weights do.

Every text (originals, occluded variants, chunks) is scored through :mod:`ranklens.engine`, so
identical texts are scored once and re-running reads the cache. Passage mode generates the
occluded texts lazily and scores them in batches (at most ``_BATCH_TEXTS`` texts or
``_BATCH_CHARS`` characters; a small run is one call), folding each batch into per-unit sums:
memory is bounded by the batch, not by units x document length. Document mode makes one call
per greedy step; the score after a candidate removal is the max of the changed chunk and the
best other chunk (the two best chunks are kept), so a step costs O(sentences), not
O(sentences x chunks).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..engine import ScoringEngine, score_pairs
from ..errors import ValidationError
from .declaration import Params
from .units import Explanation, Unit, parse_granularity, remove_spans, split_units

__all__ = ["OcclusionExplainer"]

DEFAULTS = Params()

_NORMALIZE = ("abs", "none", "shift")
_LONG_DOCUMENT = ("never", "auto", "always")
_AGGREGATE = ("mean", "sum")


@dataclass(frozen=True, kw_only=True)
class OcclusionExplainer:
    """Occlusion rationales for (query, document) pairs; see the module docstring for eq. 4/5.

    Attributes:
        granularity: ``"sentence"`` or ``"window:W"`` (passage mode units).
        n: largest number of units masked together (the paper's reference code uses 2).
        samples: budget of masked sets per document; 0 (default) = every combination.
        seed: seed of the set sampler.
        normalize: ``"abs"`` | ``"none"`` | ``"shift"`` (the θ ≤ 0 guard).
        eps: floor of the normaliser.
        aggregate: ``"sum"`` (default; eq. 4) | ``"mean"`` over the sets containing a unit; same
            order under exhaustive enumeration (see the module docstring).
        long_document: ``"auto"`` (document mode for documents with more than
            ``long_document_sentences`` sentences), ``"always"`` or ``"never"``.
        long_document_sentences: the ``auto`` threshold, in sentences.
        chunk_sentences: sentences per chunk in document mode.
        greedy_steps: sentences selected greedily in document mode (the largest ``m`` used).

    Examples:
        >>> from ranklens.engine import ScoringEngine
        >>> from ranklens.testing import OverlapRanker
        >>> ex = OcclusionExplainer(granularity="sentence")
        >>> [e] = ex.explain(OverlapRanker(), ["cats"], ["Dogs bark. Cats purr."],
        ...                  engine=ScoringEngine(cache=False))
        >>> e.top(1)[0].text
        'Cats purr.'
    """

    granularity: str = "sentence"
    n: int = DEFAULTS.n
    samples: int = DEFAULTS.samples
    seed: int = 0
    normalize: str = DEFAULTS.normalize
    eps: float = 1e-6
    aggregate: str = DEFAULTS.aggregate
    long_document: str = DEFAULTS.long_document
    long_document_sentences: int = DEFAULTS.long_document_sentences
    chunk_sentences: int = DEFAULTS.chunk_sentences
    greedy_steps: int = 10

    def __post_init__(self) -> None:
        parse_granularity(self.granularity)
        if self.n < 1:
            raise ValidationError(f"OcclusionExplainer.n must be >= 1, got {self.n}")
        if self.samples < 0:
            raise ValidationError(f"OcclusionExplainer.samples must be >= 0 (0 = every combination), got {self.samples}")
        if self.normalize not in _NORMALIZE:
            raise ValidationError(f"normalize must be one of {_NORMALIZE}, got {self.normalize!r}")
        if self.aggregate not in _AGGREGATE:
            raise ValidationError(f"aggregate must be one of {_AGGREGATE}, got {self.aggregate!r}")
        if not self.eps > 0:
            raise ValidationError(f"eps must be > 0, got {self.eps}")
        if self.chunk_sentences < 1 or self.greedy_steps < 1:
            raise ValidationError("chunk_sentences and greedy_steps must be >= 1")
        if self.long_document not in _LONG_DOCUMENT:
            raise ValidationError(f"long_document must be one of {_LONG_DOCUMENT}, got {self.long_document!r} (the "
                                  "threshold in sentences is long_document_sentences)")
        if self.long_document_sentences < 1:
            raise ValidationError(f"long_document_sentences must be >= 1, got {self.long_document_sentences}")

    def is_long(self, n_sentences: int) -> bool:
        """Whether a document of ``n_sentences`` sentences is explained in document mode (eq. 5)."""
        if self.long_document == "never" or n_sentences < 1:
            return False
        return self.long_document == "always" or n_sentences > self.long_document_sentences

    # ------------------------------------------------------------------ planning
    def masked_sets(self, n_units: int, query: str, document: str) -> list[tuple[int, ...]]:
        """The unit-index sets masked for one document (passage mode), in evaluation order.

        Every combination of 1..n units (the paper's reference code) when there are at most
        ``samples`` of them (``samples=0``: always); otherwise every singleton and random sets of
        2..n units: ``samples - units`` of them, but never fewer than ``units``, so a document
        with many units still gets multi-unit sets.
        """
        return list(self._iter_sets(n_units, query, document))

    def _exhaustive(self, n_units: int) -> bool:
        top = min(self.n, n_units)
        return self.samples == 0 or sum(math.comb(n_units, s) for s in range(1, top + 1)) <= self.samples

    def _iter_sets(self, n_units: int, query: str, document: str) -> Iterator[tuple[int, ...]]:
        """:meth:`masked_sets` one set at a time (nothing is held for all of them)."""
        top = min(self.n, n_units)
        if self._exhaustive(n_units):
            for s in range(1, top + 1):
                yield from itertools.combinations(range(n_units), s)
            return
        yield from ((i,) for i in range(n_units))
        seen: set[tuple[int, ...]] = set()
        rng = np.random.default_rng([self.seed, _pair_seed(query, document)])
        want = max(self.samples - n_units, n_units)
        tries = 0
        while len(seen) < want and tries < 50 * (n_units + want):
            tries += 1
            size = int(rng.integers(2, top + 1))
            c = tuple(sorted(int(i) for i in rng.choice(n_units, size=size, replace=False)))
            if c not in seen:
                seen.add(c)
                yield c

    def plan(self, query: str, document: str) -> list[str]:
        """Every text that explaining this pair in passage mode scores (original first)."""
        units = split_units(document, self.granularity)
        sets = self.masked_sets(len(units), query, document)
        return [document] + [remove_spans(document, [(units[i].start, units[i].end) for i in c]) for c in sets]

    # ------------------------------------------------------------------ explaining
    def explain(
        self,
        ranker: Any,
        queries: Sequence[str],
        documents: Sequence[str],
        *,
        engine: ScoringEngine | None = None,
    ) -> list[Explanation]:
        """Explain aligned (query, document) pairs; one :class:`Explanation` per pair."""
        if len(queries) != len(documents):
            raise ValidationError(
                f"queries and documents must have the same length, got {len(queries)} and {len(documents)}"
            )
        g = parse_granularity(self.granularity)
        doc_units = [split_units(d, g) for d in documents]
        # document mode cuts into sentences (or the given lines, for pre-segmented documents)
        seg = g if g.kind in ("sentence", "line") else parse_granularity("sentence")
        sent_units = [split_units(d, seg) if self.long_document != "never" else () for d in documents]
        is_long = [self.is_long(len(sent_units[i])) for i in range(len(documents))]
        out: list[Explanation | None] = [None] * len(documents)
        short = [i for i in range(len(documents)) if not is_long[i]]
        longs = [i for i in range(len(documents)) if is_long[i]]
        if short:
            self._explain_passages(ranker, queries, documents, doc_units, short, out, engine)
        if longs:
            # a maxp:SPEC:N ranker with the explainer's chunks: eq. 5 scores the chunks with SPEC,
            # so theta (max over chunks) is the ranking score
            from ..rankers.passages import is_maxp

            chunks = ranker.base if is_maxp(ranker, self.chunk_sentences) else ranker
            self._explain_documents(chunks, queries, documents, sent_units, longs, out, engine)
        return [e for e in out if e is not None]

    def _norm(self, theta: float, floor: float) -> tuple[float, bool]:
        if self.normalize == "none":
            return 1.0, False
        if self.normalize == "shift":
            v = theta - floor + self.eps
            return max(v, self.eps), False
        a = abs(theta)
        return (a, False) if a >= self.eps else (self.eps, True)

    def _explain_passages(self, ranker, queries, documents, doc_units, idx, out, engine) -> None:
        """Eq. 4. Each original and then its occluded texts are generated lazily and scored in
        batches of at most ``_BATCH_TEXTS`` texts / ``_BATCH_CHARS`` characters (memory bounded
        by the batch, not by units x document length; a small run is one call), folded into
        per-unit sums as each batch comes back. The engine scores identical texts once."""
        theta: dict[int, float] = {}
        acc = {i: np.zeros(len(doc_units[i])) for i in idx}
        cnt = {i: np.zeros(len(doc_units[i])) for i in idx}
        n_sets = dict.fromkeys(idx, 0)
        floors: dict[str, float] = {}
        for batch in _batches(self._texts(queries, documents, doc_units, idx)):
            scores = score_pairs(ranker, [queries[i] for i, _, _ in batch], [t for _, _, t in batch], engine=engine,
                                 desc="occlusion")
            for (i, c, _), v in zip(batch, scores.tolist()):
                q = queries[i]
                floors[q] = min(floors.get(q, v), v)
                if c is None:  # the original comes before its occluded texts
                    theta[i] = v
                    continue
                drop = abs(theta[i] - v) / len(c)
                a, k = acc[i], cnt[i]
                for j in c:
                    a[j] += drop
                    k[j] += 1
                n_sets[i] += 1
        for i in idx:
            norm, guarded = self._norm(theta[i], floors[queries[i]])
            w = acc[i] / norm
            if self.aggregate == "mean":
                w = w / np.maximum(cnt[i], 1)
            order = tuple(int(j) for j in np.lexsort((np.arange(len(w)), -w)))
            out[i] = Explanation(queries[i], documents[i], theta[i], doc_units[i], tuple(float(x) for x in w), order,
                                 "passage", guarded, n_sets[i], self._exhaustive(len(doc_units[i])))

    def _texts(self, queries, documents, doc_units, idx) -> Iterator[tuple[int, tuple[int, ...] | None, str]]:
        """``(document position, masked set, text)``: each original (set ``None``), then its
        occluded texts, one at a time."""
        for i in idx:
            units, doc = doc_units[i], documents[i]
            yield i, None, doc
            for c in self._iter_sets(len(units), queries[i], doc):
                yield i, c, remove_spans(doc, [(units[j].start, units[j].end) for j in c])

    def _explain_documents(self, ranker, queries, documents, sent_units, idx, out, engine) -> None:
        """Eq. 5: greedy removal over fixed ``chunk_sentences``-sentence chunks, θ = max over chunks.

        A chunk's text is the document's own slice from its first to its last sentence (with
        removed sentences cut out), exactly the passage a ``maxp:SPEC:N`` ranker scores, so the
        explained θ is the ranking score. Each greedy step scores, for every remaining sentence,
        its chunk without it (one engine call per step for all documents).
        """
        docs = {i: _Greedy.start(documents[i], sent_units[i], self.chunk_sentences) for i in idx}
        qs = [queries[i] for i in idx for _ in range(len(docs[i].chunks) + 1)]
        ts = [t for i in idx for t in (*docs[i].chunk_texts(), "")]
        sc = iter(score_pairs(ranker, qs, ts, engine=engine, desc="occlusion chunks").tolist())
        for i in idx:
            docs[i] = docs[i].scored([next(sc) for _ in docs[i].chunks], next(sc))
        floors: dict[str, float] = {}
        for _step in range(self.greedy_steps):
            keys = [(i, u) for i in idx for u in docs[i].remaining()]
            if not keys:
                break
            ts = [docs[i].chunk_text(u // self.chunk_sentences, docs[i].removed | {u}) for i, u in keys]
            qs = [queries[i] for i, _ in keys]
            sc = score_pairs(ranker, qs, ts, engine=engine, desc="occlusion greedy").tolist()
            for q, v in zip(qs, sc):
                floors[q] = min(floors.get(q, v), v)
            docs = self._greedy_step(docs, keys, sc, ts, queries, floors)
        for i in idx:
            g = docs[i]
            _, guarded = self._norm(g.theta, min(floors.get(queries[i], g.theta), g.theta))
            w = tuple(float(g.weights.get(u, float("nan"))) for u in range(len(g.units)))
            rest = tuple(u for u in range(len(g.units)) if u not in g.removed)
            out[i] = Explanation(queries[i], documents[i], g.theta, g.units, w, g.order + rest, "document", guarded,
                                 g.evaluated, True)

    def _greedy_step(self, docs, keys, scores, texts, queries, floors):
        """One greedy step: per document, remove the sentence with the largest relative drop
        (first in document order on ties). The score after a removal is the max of the changed
        chunk and the best other chunk (kept as the two best chunks), O(1) per candidate."""
        best: dict[int, tuple[float, int, float, str]] = {}
        state: dict[int, tuple[float, float, tuple[int, float, float]]] = {}
        for (i, u), v, t in zip(keys, scores, texts):
            if i not in state:
                g = docs[i]
                now = g.score()
                norm, _ = self._norm(now, min(floors.get(queries[i], now), g.empty, now))
                state[i] = (now, norm, g.top2())
            now, norm, top = state[i]
            rel = (now - docs[i].score_after(u // self.chunk_sentences, v, t, top)) / norm
            if i not in best or rel > best[i][0]:
                best[i] = (rel, u, v, t)
        counts: dict[int, int] = {}
        for i, _ in keys:
            counts[i] = counts.get(i, 0) + 1
        out = dict(docs)
        for i, (rel, u, v, t) in best.items():
            out[i] = docs[i].remove(u, rel, v, t, counts[i])
        return out


@dataclass(frozen=True)
class _Greedy:
    """The state of one document in the greedy document mode (values; each step makes a new one)."""

    text: str
    units: tuple[Unit, ...]
    chunks: tuple[tuple[int, ...], ...]
    cur: tuple[tuple[float, str], ...] = ()      # per chunk: (score, text) now
    empty: float = 0.0
    theta: float = 0.0
    removed: frozenset[int] = frozenset()
    order: tuple[int, ...] = ()
    weights: Mapping[int, float] = field(default_factory=dict)
    evaluated: int = 0

    @staticmethod
    def start(text: str, units: tuple[Unit, ...], size: int) -> _Greedy:
        chunks = tuple(tuple(range(s, min(s + size, len(units)))) for s in range(0, len(units), size))
        return _Greedy(text, units, chunks)

    def chunk_text(self, c: int, removed: frozenset[int] | set[int] = frozenset()) -> str:
        """The document's slice of chunk ``c`` with the ``removed`` sentences cut out."""
        js = self.chunks[c]
        s0, e1 = self.units[js[0]].start, self.units[js[-1]].end
        cut = [(self.units[j].start - s0, self.units[j].end - s0) for j in js if j in removed]
        return remove_spans(self.text[s0:e1], cut) if cut else self.text[s0:e1]

    def chunk_texts(self) -> list[str]:
        return [self.chunk_text(c) for c in range(len(self.chunks))]

    def scored(self, chunk_scores: list[float], empty: float) -> _Greedy:
        cur = tuple(zip(chunk_scores, self.chunk_texts()))
        g = replace(self, cur=cur, empty=empty)
        return replace(g, theta=g.score())

    def score(self) -> float:
        """max over the non-empty chunks; the empty text's score if none."""
        vals = [v for v, t in self.cur if t]
        return max(vals) if vals else self.empty

    def top2(self) -> tuple[int, float, float]:
        """(index of the best non-empty chunk, its score, the second best score); -1 / -inf
        where there is none."""
        bi, b1, b2 = -1, -math.inf, -math.inf
        for c, (v, t) in enumerate(self.cur):
            if not t:
                continue
            if v > b1:
                bi, b1, b2 = c, v, b1
            elif v > b2:
                b2 = v
        return bi, b1, b2

    def score_after(self, c: int, v: float, text: str, top: tuple[int, float, float]) -> float:
        """:meth:`score` with chunk ``c`` now scoring ``v`` with text ``text`` (empty: left out)."""
        bi, b1, b2 = top
        other = b2 if bi == c else b1
        best = max(other, v) if text else other
        return best if best > -math.inf else self.empty

    def remaining(self) -> list[int]:
        return [u for u in range(len(self.units)) if u not in self.removed]

    def remove(self, u: int, weight: float, score: float, text: str, evaluated: int) -> _Greedy:
        cur = list(self.cur)
        cur[u // len(self.chunks[0])] = (score, text)
        return replace(self, cur=tuple(cur), removed=self.removed | {u}, order=(*self.order, u),
                       weights={**self.weights, u: weight}, evaluated=self.evaluated + evaluated)


_Item = tuple[int, "tuple[int, ...] | None", str]
_BATCH_TEXTS = 4096
_BATCH_CHARS = 1 << 23
"""Occluded texts generated and scored together at most (passage mode): bounds the memory of a
long document's occluded variants, whose characters grow as units x document length."""


def _batches(items: Iterator[_Item]) -> Iterator[list[_Item]]:
    batch: list[_Item] = []
    chars = 0
    for item in items:
        batch.append(item)
        chars += len(item[2])
        if len(batch) >= _BATCH_TEXTS or chars >= _BATCH_CHARS:
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch


def _pair_seed(query: str, document: str) -> int:
    h = hashlib.sha256(query.encode("utf-8") + b"\x00" + document.encode("utf-8")).digest()
    return int.from_bytes(h[:8], "little")
