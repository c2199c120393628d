"""Paraphrase needle in a haystack (paper §8).

Paper protocol (``protocol="one-at-a-time"``, the default): pairs scored within
``[min_score, max_score]`` (4-5) whose word-level overlap is below ``max_overlap`` (0.6), from
the news genre; the first sentence of each pair is the query, the second is *temporarily* added
to the corpus, and its rank among the query's neighbours is recorded. One needle at a time: the
other pairs' sentences are not in the haystack (corpus sentences equal to any pair sentence are
taken out, and counted in the summary), so queries and needles never compete.

``protocol="all-at-once"`` (the earlier ranklens behaviour) adds every query and needle to the
corpus together: the other pairs' sentences compete with each needle.

Rank = 1 + the number of haystack sentences whose cosine similarity to the query is at least
the needle's (minus 1e-6: ties count against the needle, so an embedder that maps everything to
one vector gets no credit). The query itself is never a candidate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..engine import ScoringEngine
from ..errors import ValidationError
from ..results import Result, make_provenance
from ..search.rows import block_similarities, is_sparse, l2_normalize, zero_rows
from ..text import tokenize
from .corpus import SentenceCorpus
from .search import corpus_vectors
from .declaration import Params

__all__ = ["PROTOCOLS", "needle_in_haystack", "needle_ranks", "select_pairs", "token_jaccard"]

DEFAULTS = Params()  # kernel defaults are the declared ones

PROTOCOLS = ("one-at-a-time", "all-at-once")


def token_jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the lower-cased word-token *sets* of two texts (0 if both empty): the
    pairs' word overlap the needle test filters on."""
    ta, tb = set(tokenize(a)), set(tokenize(b))
    if not ta and not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def select_pairs(pairs: pd.DataFrame, *, min_score: float = DEFAULTS.min_score, max_score: float = DEFAULTS.max_score, max_overlap: float = DEFAULTS.max_overlap,
                 genre: str | None = DEFAULTS.genre, max_pairs: int = DEFAULTS.max_pairs, seed: int = 0) -> tuple[pd.DataFrame, list[str]]:
    """The pairs the needle test uses, and notes on what was filtered.

    Kept: ``min_score <= score <= max_score``, token-set Jaccard overlap ``< max_overlap``,
    ``text_a != text_b`` and, when the pairs have a ``genre`` column, a genre containing
    ``genre`` (case-insensitive; STS-B's ``main-news`` for ``"news"``). ``max_pairs > 0`` keeps a
    seeded sample of that many. Duplicate ``pair_id`` values are an error.
    """
    missing = {"text_a", "text_b", "score"} - set(pairs.columns)
    if missing:
        raise ValidationError(f"pairs lack column(s) {sorted(missing)}; expected text_a, text_b, score")
    p = pairs.copy()
    if "pair_id" not in p:
        p["pair_id"] = [str(i) for i in range(len(p))]
    p["pair_id"] = p["pair_id"].astype(str)
    dup = p["pair_id"][p["pair_id"].duplicated()].unique()
    if len(dup):
        raise ValidationError(f"pairs: duplicate pair_id {list(dup[:5])}; every pair needs its own id")
    p["text_a"] = p["text_a"].astype(str).str.strip()
    p["text_b"] = p["text_b"].astype(str).str.strip()
    p["overlap"] = [token_jaccard(a, b) for a, b in zip(p["text_a"], p["text_b"])]
    keep = (p["score"] >= min_score) & (p["score"] <= max_score) & (p["overlap"] < max_overlap)
    keep &= p["text_a"] != p["text_b"]
    notes = []
    if genre:
        if "genre" in p:
            keep &= p["genre"].astype(str).str.lower().str.contains(genre.lower(), regex=False)
        else:
            notes.append(f"genre filter {genre!r} not applied: the pairs have no genre column")
    p = p[keep].reset_index(drop=True)
    if p.empty:
        raise ValidationError("no pair passes the score/overlap/genre thresholds")
    if max_pairs and len(p) > max_pairs:
        pick = np.sort(np.random.default_rng(seed).choice(len(p), size=max_pairs, replace=False))
        notes.append(f"{max_pairs} of {len(p)} eligible pairs sampled (seed {seed})")
        p = p.iloc[pick].reset_index(drop=True)
    return p, notes


def _encode(embedder: Any, texts: list[str], engine: ScoringEngine | None) -> Any:
    return corpus_vectors(embedder, texts, engine=engine)


def needle_ranks(corpus_vecs: Any, queries: Any, needles: Any, *, mask: np.ndarray | None = None,
                 extra: Any = None, extra_self: list[tuple[int, int]] | None = None,
                 block_size: int = DEFAULTS.block_size) -> np.ndarray:
    """Kernel: rank of ``needles[i]`` among the neighbours of ``queries[i]``.

    Candidates: the rows of ``corpus_vecs`` not masked out (``mask`` True = taken out), plus the
    rows of ``extra`` except, for query i, the rows in ``extra_self[i]`` (its own query and
    needle). Rank = 1 + #candidates with similarity >= the needle's - 1e-6 (cosine).
    """
    q = l2_normalize(queries)
    nd = l2_normalize(needles)
    target = np.asarray(block_similarities(q, nd)).diagonal().copy() if q.shape[0] else np.zeros(0, np.float32)
    at_least = np.zeros(q.shape[0], np.int64)
    for start in range(0, corpus_vecs.shape[0], block_size):
        block = corpus_vecs[start : start + block_size]
        s = block_similarities(q, l2_normalize(block if is_sparse(block) else np.asarray(block, np.float32)))
        if mask is not None:
            s[:, mask[start : start + s.shape[1]]] = -np.inf
        at_least += (s >= target[:, None] - 1e-6).sum(axis=1)
    if extra is not None and extra.shape[0]:
        s = block_similarities(q, l2_normalize(extra))
        for i, cols in enumerate(extra_self or []):
            s[i, list(cols)] = -np.inf
        at_least += (s >= target[:, None] - 1e-6).sum(axis=1)
    return 1 + at_least


def _ranks_for(embedder: Any, base_vecs: Any, p: pd.DataFrame, mask: np.ndarray, protocol: str,
               engine: ScoringEngine | None, block_size: int) -> tuple[np.ndarray, int]:
    pool = list(dict.fromkeys([*p["text_a"], *p["text_b"]]))
    pos = {t: i for i, t in enumerate(pool)}
    pool_vecs = _encode(embedder, pool, engine)
    ia = np.array([pos[t] for t in p["text_a"]])
    ib = np.array([pos[t] for t in p["text_b"]])
    qv, nv = pool_vecs[ia], pool_vecs[ib]
    if protocol == "one-at-a-time":
        ranks = needle_ranks(base_vecs, qv, nv, mask=mask, block_size=block_size)
    else:
        ranks = needle_ranks(base_vecs, qv, nv, mask=mask, extra=pool_vecs,
                             extra_self=[(a, b) for a, b in zip(ia, ib)], block_size=block_size)
    return ranks, int(np.count_nonzero(zero_rows(qv)))


def needle_in_haystack(embedders: Mapping[str, Any], corpus: SentenceCorpus, pairs: pd.DataFrame, *,
                       vectors: Mapping[str, Any] | None = None, protocol: str = "one-at-a-time",
                       engine: ScoringEngine | None = None, block_size: int = DEFAULTS.block_size,
                       notes: tuple[str, ...] = ()) -> Result:
    """Rank of each pair's second sentence among the neighbours of its first (module docstring).

    Args:
        embedders: name -> embedder (encodes the pair sentences).
        pairs: the selected pairs (:func:`select_pairs`): ``pair_id, text_a, text_b, score``.
        vectors: name -> vectors of ``corpus`` (the haystack); default: encoded here.

    Returns:
        ``Result(kind="neighbors-needle")``: table ``model, mrr, ci_low, ci_high, n_top1, n_top5, n_pairs``
        (bootstrap CI of the MRR over pairs); table ``per_pair``: ``model, pair_id, rank``.
    """
    from ..stats import bootstrap_ci

    if protocol not in PROTOCOLS:
        raise ValidationError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    if "overlap" not in pairs:  # not selected yet: the paper's selection (select_pairs defaults)
        pairs, more = select_pairs(pairs)
        notes = (*notes, *more)
    vectors = vectors if vectors is not None else {n: corpus_vectors(e, corpus.texts, engine=engine)
                                                   for n, e in embedders.items()}
    pair_texts = set(p for p in [*pairs["text_a"], *pairs["text_b"]])
    mask = np.array([t in pair_texts for t in corpus.texts], bool)
    per, rows, warn = [], [], list(notes)
    for name, e in embedders.items():
        ranks, n_zero = _ranks_for(e, vectors[name], pairs, mask, protocol, engine, block_size)
        if n_zero:
            warn.append(f"{name}: {n_zero} queries are zero vectors (ranked last)")
        per.append(pd.DataFrame({"model": name, "pair_id": pairs["pair_id"].astype(str), "rank": ranks}))
        ci = bootstrap_ci(1.0 / ranks, seed=0)
        rows.append((name, float(np.mean(1.0 / ranks)), ci.low, ci.high, int((ranks == 1).sum()),
                     int((ranks <= 5).sum()), len(ranks)))
    table = pd.DataFrame(rows, columns=["model", "mrr", "ci_low", "ci_high", "n_top1", "n_top5", "n_pairs"])
    summary = {"n_pairs": len(pairs), "n_haystack": int(len(corpus) - mask.sum()),
               "n_corpus_sentences_taken_out": int(mask.sum()), "protocol": protocol,
               "best_mrr": str(table.loc[table["mrr"].idxmax(), "model"]),
               "mrr": {r.model: round(r.mrr, 4) for r in table.itertuples()}}
    params = {"protocol": protocol, "overlap": "Jaccard of lower-cased token sets", "metric": "cosine",
              "rank_ties": "pessimistic (1 + #candidates with similarity >= needle - 1e-6)",
              "haystack": "corpus minus every pair sentence, plus the needle (one-at-a-time) or plus every "
                          "pair sentence but the query and its needle (all-at-once)",
              "mrr_ci": "percentile bootstrap over pairs, 2000 resamples, 0.95, seed 0"}
    cols = [c for c in ("pair_id", "genre", "score", "overlap", "text_a", "text_b") if c in pairs]
    return Result(kind="neighbors-needle", summary=summary, table=table,
                  tables={"per_pair": pd.concat(per, ignore_index=True), "pairs": pairs[cols]},
                  provenance=make_provenance(params=params, components={n: e.fingerprint for n, e in embedders.items()},
                                             inputs={"corpus": f"sha256:{corpus.hash}"}),
                  warnings=tuple(warn))
