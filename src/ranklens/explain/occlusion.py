"""Occlusion explainer (Pandian, Ganguly & MacAvaney, "Evaluating the Explainability of Neural
Rankers", §4.2).

Passage mode (eq. 4)
    The document is cut into units (sentences or windows of ``w`` words). Sets ``S`` of at most
    ``n`` units are masked (removed) and each unit ``d_j ∈ S`` receives

    .. math:: a(d_j) \\mathrel{+}= \\frac{|θ(Q,D) - θ(Q, D \\setminus \\cup_{d \\in S} d)|}{|S| \\cdot N(θ(Q,D))}

    where ``N`` is the normaliser below. When the number of sets of size ``1..n`` is at most
    ``samples`` every set is enumerated (exhaustive, no randomness); otherwise every singleton is
    evaluated (so every unit gets an attribution) and random sets of size ``2..n`` fill the
    budget up to ``samples`` sets, drawn with a generator seeded by ``seed`` and a hash of the
    (query, document) pair, so a document's explanation does not depend on what else is
    explained with it.

    Accumulation: ``aggregate="sum"`` is the paper's eq. 4 literally (attributions summed over
    the sets containing the unit). The default is ``"mean"`` (the sum divided by the number of
    sets containing the unit), for a documented reason: under exhaustive enumeration every unit
    is in the same number of sets, so mean and sum differ by one constant factor and give the
    *same* rationales (same MRC and MER); under sampling the units are in different numbers of
    sets, and the sum then grows with how often a unit happened to be drawn (a unit that adds
    nothing still collects a share of every pair it is drawn in), i.e. it mixes sampling noise
    into the ranking of units. The mean estimates the same per-set attribution without that
    bias. Choose ``"sum"`` (``--aggregate sum``) to follow eq. 4 to the letter; the choice is
    recorded in provenance.

Document mode (eq. 5), for documents with more than ``long_document`` sentences
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

Every text (originals, occluded variants, chunks) is scored through :mod:`ranklens.engine` in
one call per pass (passage mode: one call for all documents; document mode: one call per
greedy step), so identical texts are scored once and re-running reads the cache.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import ScoringEngine, score_pairs
from ..errors import ValidationError
from .units import Explanation, Granularity, Unit, parse_granularity, remove_spans, split_units

__all__ = ["OcclusionExplainer"]

_NORMALIZE = ("abs", "none", "shift")
_AGGREGATE = ("mean", "sum")


@dataclass(frozen=True, kw_only=True)
class OcclusionExplainer:
    """Occlusion rationales for (query, document) pairs; see the module docstring for eq. 4/5.

    Attributes:
        granularity: ``"sentence"`` or ``"window:W"`` (passage mode units).
        n: largest number of units masked together (the paper's combinations; XAIR uses 2).
        samples: budget of masked sets per document; exhaustive when all sets fit.
        seed: seed of the set sampler.
        normalize: ``"abs"`` | ``"none"`` | ``"shift"`` (the θ ≤ 0 guard).
        eps: floor of the normaliser.
        aggregate: ``"mean"`` (default) | ``"sum"`` (eq. 4 as written) over the sets containing
            a unit; same order under exhaustive enumeration, and the mean is not biased toward
            units drawn more often under sampling (see the module docstring).
        long_document: documents with more sentences than this use document mode; ``None``
            never does.
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
    n: int = 2
    samples: int = 30
    seed: int = 0
    normalize: str = "abs"
    eps: float = 1e-6
    aggregate: str = "mean"
    long_document: int | None = None
    chunk_sentences: int = 3
    greedy_steps: int = 10

    def __post_init__(self) -> None:
        parse_granularity(self.granularity)
        if self.n < 1:
            raise ValidationError(f"OcclusionExplainer.n must be >= 1, got {self.n}")
        if self.samples < 1:
            raise ValidationError(f"OcclusionExplainer.samples must be >= 1, got {self.samples}")
        if self.normalize not in _NORMALIZE:
            raise ValidationError(f"normalize must be one of {_NORMALIZE}, got {self.normalize!r}")
        if self.aggregate not in _AGGREGATE:
            raise ValidationError(f"aggregate must be one of {_AGGREGATE}, got {self.aggregate!r}")
        if not self.eps > 0:
            raise ValidationError(f"eps must be > 0, got {self.eps}")
        if self.chunk_sentences < 1 or self.greedy_steps < 1:
            raise ValidationError("chunk_sentences and greedy_steps must be >= 1")

    # ------------------------------------------------------------------ planning
    def masked_sets(self, n_units: int, query: str, document: str) -> list[tuple[int, ...]]:
        """The unit-index sets masked for one document (passage mode), in evaluation order."""
        top = min(self.n, n_units)
        total = sum(math.comb(n_units, s) for s in range(1, top + 1))
        if total <= self.samples:
            return [c for s in range(1, top + 1) for c in itertools.combinations(range(n_units), s)]
        sets: list[tuple[int, ...]] = [(i,) for i in range(n_units)]
        if top < 2:
            return sets
        seen = set(sets)
        rng = np.random.default_rng([self.seed, _pair_seed(query, document)])
        want = max(self.samples, n_units)
        tries = 0
        while len(sets) < want and tries < 50 * want:
            tries += 1
            size = int(rng.integers(2, top + 1))
            c = tuple(sorted(int(i) for i in rng.choice(n_units, size=size, replace=False)))
            if c not in seen:
                seen.add(c)
                sets.append(c)
        return sets

    def _is_long(self, units: tuple[Unit, ...], granularity: Granularity) -> bool:
        return self.long_document is not None and granularity.kind == "sentence" and len(units) > self.long_document

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
        sent_units = [split_units(d, seg) if self.long_document is not None else () for d in documents]
        is_long = [
            self.long_document is not None and len(sent_units[i]) > self.long_document for i in range(len(documents))
        ]
        out: list[Explanation | None] = [None] * len(documents)
        short = [i for i in range(len(documents)) if not is_long[i]]
        longs = [i for i in range(len(documents)) if is_long[i]]
        if short:
            self._explain_passages(ranker, queries, documents, doc_units, short, out, engine)
        if longs:
            self._explain_documents(ranker, queries, documents, sent_units, longs, out, engine)
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
        qs: list[str] = []
        ts: list[str] = []
        plans: list[tuple[int, int, list[tuple[int, ...]]]] = []  # (doc, offset, sets)
        for i in idx:
            units = doc_units[i]
            sets = self.masked_sets(len(units), queries[i], documents[i])
            offset = len(ts)
            qs.append(queries[i])
            ts.append(documents[i])
            for c in sets:
                qs.append(queries[i])
                ts.append(remove_spans(documents[i], [(units[j].start, units[j].end) for j in c]))
            plans.append((i, offset, sets))
        scores = score_pairs(ranker, qs, ts, engine=engine, desc="occlusion")
        floors = _query_floors(qs, scores)
        for i, offset, sets in plans:
            theta = float(scores[offset])
            norm, guarded = self._norm(theta, floors[queries[i]])
            n_units = len(doc_units[i])
            acc = np.zeros(n_units)
            cnt = np.zeros(n_units)
            for r, c in enumerate(sets):
                drop = abs(theta - float(scores[offset + 1 + r])) / (len(c) * norm)
                for j in c:
                    acc[j] += drop
                    cnt[j] += 1
            w = acc / np.maximum(cnt, 1) if self.aggregate == "mean" else acc
            order = tuple(sorted(range(n_units), key=lambda j: (-w[j], j)))
            out[i] = Explanation(
                queries[i], documents[i], theta, doc_units[i], tuple(float(x) for x in w), order, "passage", guarded
            )

    def _explain_documents(self, ranker, queries, documents, sent_units, idx, out, engine) -> None:
        # Chunks are fixed on the original sentence positions; removing a sentence changes only
        # its own chunk, so each greedy step scores one candidate chunk text per sentence.
        cs = self.chunk_sentences
        state = {}
        for i in idx:
            units = sent_units[i]
            chunks = [list(range(s, min(s + cs, len(units)))) for s in range(0, len(units), cs)]
            state[i] = {"units": units, "chunks": chunks, "removed": set(), "order": [], "weights": {}}

        def chunk_text(i: int, c: int, removed: set[int]) -> str:
            st = state[i]
            keep = [j for j in st["chunks"][c] if j not in removed]
            return " ".join(st["units"][j].text for j in keep)

        def doc_score(chunk_scores: dict[int, float], texts: dict[int, str], empty: float) -> float:
            vals = [chunk_scores[c] for c, t in texts.items() if t]
            return max(vals) if vals else empty

        # step 0: original chunks (+ the empty text, for fully removed documents)
        qs, ts, keys = [], [], []
        for i in idx:
            for c in range(len(state[i]["chunks"])):
                qs.append(queries[i])
                ts.append(chunk_text(i, c, set()))
                keys.append((i, c))
            qs.append(queries[i])
            ts.append("")
            keys.append((i, -1))
        sc = score_pairs(ranker, qs, ts, engine=engine, desc="occlusion chunks")
        for (i, c), s, t in zip(keys, sc, ts):
            st = state[i]
            if c == -1:
                st["empty"] = float(s)
            else:
                st.setdefault("cur", {})[c] = float(s)
                st.setdefault("texts", {})[c] = t
        for i in idx:
            st = state[i]
            st["theta"] = doc_score(st["cur"], st["texts"], st["empty"])
        floors: dict[str, float] = {}
        for _step in range(self.greedy_steps):
            qs, ts, keys = [], [], []
            for i in idx:
                st = state[i]
                for u in range(len(st["units"])):
                    if u in st["removed"]:
                        continue
                    c = u // cs
                    qs.append(queries[i])
                    ts.append(chunk_text(i, c, st["removed"] | {u}))
                    keys.append((i, u))
            if not qs:
                break
            sc = score_pairs(ranker, qs, ts, engine=engine, desc="occlusion greedy")
            for q, s in zip(qs, sc):
                floors[q] = min(floors.get(q, float("inf")), float(s))
            best: dict[int, tuple[float, int, float, str]] = {}
            for (i, u), s, t in zip(keys, sc, ts):
                st = state[i]
                c = u // cs
                cur = dict(st["cur"])
                texts = dict(st["texts"])
                cur[c] = float(s)
                texts[c] = t
                now = doc_score(st["cur"], st["texts"], st["empty"])
                after = doc_score(cur, texts, st["empty"])
                floor = min(floors.get(queries[i], now), st["empty"], now)
                norm, _ = self._norm(now, floor)
                rel = (now - after) / norm
                if i not in best or rel > best[i][0]:
                    best[i] = (rel, u, float(s), t)
            for i, (rel, u, s, t) in best.items():
                st = state[i]
                st["removed"].add(u)
                st["order"].append(u)
                st["weights"][u] = rel
                st["cur"][u // cs] = s
                st["texts"][u // cs] = t
        for i in idx:
            st = state[i]
            units = st["units"]
            theta = st["theta"]
            _, guarded = self._norm(theta, min(floors.get(queries[i], theta), theta))
            w = tuple(float(st["weights"].get(u, float("nan"))) for u in range(len(units)))
            rest = [u for u in range(len(units)) if u not in st["removed"]]
            out[i] = Explanation(
                queries[i], documents[i], theta, units, w, tuple(st["order"]) + tuple(rest), "document", guarded
            )


def _pair_seed(query: str, document: str) -> int:
    h = hashlib.sha256(query.encode("utf-8") + b"\x00" + document.encode("utf-8")).digest()
    return int.from_bytes(h[:8], "little")


def _query_floors(queries: list[str], scores: np.ndarray) -> dict[str, float]:
    floors: dict[str, float] = {}
    for q, s in zip(queries, scores):
        v = float(s)
        if q not in floors or v < floors[q]:
            floors[q] = v
    return floors
