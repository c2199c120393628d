"""N2O analyses: each a pure kernel on neighbour arrays plus a driver returning a ``Result``.

Conventions (all recorded in provenance):

- Similarity: cosine (``metric="cosine"``); zero vectors (e.g. a sentence with no known word
  for a word2vec model) have similarity 0 to everything.
- Queries are sampled uniformly without replacement from the corpus with
  ``numpy.random.default_rng(seed)``; the ``n_samples`` samples are drawn independently.
- Self-exclusion: a query never counts as its own neighbour. The corpus is deduplicated by
  exact text (:func:`~ranklens.neighbors.corpus.build_corpus`), so excluding the query's own
  corpus index (by id) also excludes every exact duplicate of its text.
- Neighbour ties are broken by the lower corpus index (input order).
- Approximate search (``search=NeighborSearch(backend="hnsw")``) reports its recall@k against
  exact search on ``n_holdout`` held-out queries (not in any sample) per embedder.
- Zero-vector queries: a query that an embedder maps to the zero vector (TF-IDF of a text with
  only unknown or stop words, averaged word vectors with no known token) has no neighbours for
  that embedder (:func:`~ranklens.neighbors.knn.exact_knn`). Every summary reports
  ``n_zero_vector_queries`` per embedder. Such a query is left out of the N2O average of every
  pair that involves that embedder (and out of that embedder's token-overlap mean): its
  neighbour set is undefined, and counting it as 0 overlap would penalise the *other* embedder
  of the pair for a failure that is not its own, while the previous behaviour (the first k
  corpus rows as neighbours) made two zero-vector embedders look identical. The per-sample
  table keeps the number of queries each pair was averaged over (``n_queries``).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..engine import ScoringEngine, encode_texts
from ..errors import ValidationError
from ..results import Result, make_provenance
from ..text import content_terms, tokenize
from .corpus import SentenceCorpus
from .knn import KnnResult, build_hnsw, exact_knn, faiss_knn, hnsw_knn, l2_normalize, recall_at_k, zero_rows
from .overlap import knn_overlap, rbo
from .store import EmbeddingStore

__all__ = [
    "NeighborSearch",
    "corpus_neighbors",
    "n2o_matrix",
    "n2o_robustness",
    "needle_in_haystack",
    "popular_outliers",
    "ranker_overlap",
    "run_from_ranker",
    "sample_queries",
    "token_overlap",
]


@dataclass(frozen=True)
class NeighborSearch:
    """How neighbours are searched.

    Args:
        backend: ``"auto"`` / ``"numpy"`` / ``"torch"`` (exact, blocked; auto = FAISS's BLAS
            k-NN per block when installed), ``"faiss"`` (exact ``IndexFlatIP``) or ``"hnsw"``
            (FAISS HNSW, approximate; recall reported).
        block_size: corpus rows per block for exact search.
        M, ef_construction, ef_search: HNSW parameters.
        n_holdout: held-out queries for measuring HNSW recall@k against exact search.
    """

    backend: Literal["auto", "numpy", "torch", "faiss", "hnsw"] = "auto"
    block_size: int = 65_536
    M: int = 16
    ef_construction: int = 40
    ef_search: int = 256
    n_holdout: int = 100


def _named(embedders: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    if isinstance(embedders, Mapping):
        out = {str(k): v for k, v in embedders.items()}
    else:
        out = {}
        for e in embedders:
            name = str(getattr(e, "name", None) or e.fingerprint)
            if name in out:
                raise ValidationError(f"two embedders are named {name!r}; pass a dict name -> embedder")
            out[name] = e
    if not out:
        raise ValidationError("no embedders given")
    return out


def sample_queries(n_corpus: int, n_queries: int, n_samples: int, seed: int) -> list[np.ndarray]:
    """``n_samples`` independent samples of ``n_queries`` distinct corpus indices (seeded)."""
    if n_queries < 1 or n_samples < 1:
        raise ValidationError("n_queries and n_samples must be >= 1")
    if n_queries > n_corpus:
        raise ValidationError(f"n_queries={n_queries} exceeds the corpus size {n_corpus}")
    rng = np.random.default_rng(seed)
    return [np.sort(rng.choice(n_corpus, size=n_queries, replace=False)) for _ in range(n_samples)]


def _vectors(embedder: Any, corpus: SentenceCorpus, engine: ScoringEngine | None,
             store: EmbeddingStore | None) -> np.ndarray:
    if store is not None:
        return store.get(embedder, corpus.texts, engine=engine, corpus_hash=corpus.hash)
    return encode_texts(embedder, list(corpus.texts), engine=engine)


def corpus_neighbors(
    vectors: np.ndarray,
    query_idx: np.ndarray,
    k: int,
    *,
    search: NeighborSearch | None = None,
    seed: int = 0,
) -> tuple[KnnResult, dict[str, float]]:
    """Neighbours of corpus rows ``query_idx`` among all corpus rows, excluding each query itself.

    Returns:
        (neighbours, info) where info has ``search_seconds`` and, for HNSW, ``recall_at_k``
        (exact vs. approximate on held-out queries) and ``build_seconds``.
    """
    search = search or NeighborSearch()
    q = np.asarray(vectors[np.asarray(query_idx)], dtype=np.float32)
    excl = [[int(i)] for i in query_idx]
    info: dict[str, float] = {}
    t0 = time.perf_counter()
    if search.backend in ("auto", "numpy", "torch"):
        res = exact_knn(vectors, q, k, block_size=search.block_size, exclude=excl, backend=search.backend)
    elif search.backend == "faiss":
        res = faiss_knn(vectors, q, k, exclude=excl)
    elif search.backend == "hnsw":
        index = build_hnsw(vectors, M=search.M, ef_construction=search.ef_construction)
        info["build_seconds"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = hnsw_knn(index, q, k, ef_search=search.ef_search, exclude=excl)
        # recall on held-out corpus rows (not queries of any sample)
        rng = np.random.default_rng(seed + 7919)
        pool = np.setdiff1d(np.arange(vectors.shape[0]), query_idx)
        hold = rng.choice(pool, size=min(search.n_holdout, len(pool)), replace=False)
        if len(hold):
            hq = np.asarray(vectors[hold], dtype=np.float32)
            hx = [[int(i)] for i in hold]
            approx = hnsw_knn(index, hq, k, ef_search=search.ef_search, exclude=hx)
            exact = exact_knn(vectors, hq, k, block_size=search.block_size, exclude=hx)
            info["recall_at_k"] = recall_at_k(approx.indices, exact.indices)
    else:
        raise ValidationError(f"unknown search backend {search.backend!r}")
    info["search_seconds"] = time.perf_counter() - t0
    return res, info


def _all_neighbors(embedders, corpus, query_idx, k, engine, store, search, seed):
    """Neighbours per embedder, search info, and per embedder the mask of zero-vector queries."""
    nn: dict[str, np.ndarray] = {}
    info: dict[str, dict[str, float]] = {}
    zero: dict[str, np.ndarray] = {}
    for name, emb in embedders.items():
        vecs = _vectors(emb, corpus, engine, store)
        res, inf = corpus_neighbors(vecs, query_idx, k, search=search, seed=seed)
        nn[name] = res.indices
        zero[name] = zero_rows(np.asarray(vecs[np.asarray(query_idx)]))
        info[name] = inf
    return nn, info, zero


def _zero_counts(zero: Mapping[str, np.ndarray]) -> dict[str, int]:
    return {name: int(np.count_nonzero(z)) for name, z in zero.items()}


def _provenance(embedders, corpus, params, seed):
    return make_provenance(
        params=params,
        components={name: e.fingerprint for name, e in embedders.items()},
        inputs={"corpus": f"sha256:{corpus.hash}"},
        seed=seed,
    )


def _pair_matrix(names: list[str], values: Mapping[tuple[str, str], float], diag: float) -> pd.DataFrame:
    m = pd.DataFrame(np.full((len(names), len(names)), diag), index=names, columns=names)
    for (a, b), v in values.items():
        m.loc[a, b] = v
        m.loc[b, a] = v
    m.index.name = "embedder"
    return m.reset_index()


def _base_params(corpus, k, n_queries, n_samples, search):
    return {
        "k": k, "n_queries": n_queries, "n_samples": n_samples, "metric": "cosine",
        "self_exclusion": "query's own corpus index; corpus deduplicated by exact text, so exact "
                          "duplicates of the query are excluded too",
        "query_sampling": "uniform without replacement per sample, numpy default_rng(seed)",
        "tie_break": "lower corpus index", "search": asdict(search),
        "n_corpus": len(corpus), "n_duplicates_removed": corpus.n_duplicates,
    }


def n2o_per_sample(nn: Mapping[str, np.ndarray], positions: Sequence[np.ndarray], k: int, *,
                   zero: Mapping[str, np.ndarray] | None = None) -> pd.DataFrame:
    """Kernel: N2O of every embedder pair on every sample.

    Args:
        nn: name -> ``(n_queries_total, >=k)`` neighbour indices.
        positions: per sample, the rows of the ``nn`` arrays that belong to it.
        k: neighbourhood size.
        zero: name -> boolean ``(n_queries_total,)`` mask of the queries the embedder maps to the
            zero vector. A pair's average leaves out the queries that are zero for either of its
            embedders. ``None``: no query is left out.

    Returns:
        DataFrame ``sample, embedder_a, embedder_b, n2o, n_queries`` (a before b in ``nn``
        order; ``n_queries`` = queries averaged over; ``n2o`` is NaN when that is 0).
    """
    rows = []
    for s, pos in enumerate(positions):
        pos = np.asarray(pos)
        for a, b in itertools.combinations(list(nn), 2):
            use = pos
            if zero is not None:
                use = pos[~(np.asarray(zero[a])[pos] | np.asarray(zero[b])[pos])]
            ov = knn_overlap(nn[a][use], nn[b][use], k)
            rows.append((s, a, b, float(ov.mean()) if len(ov) else float("nan"), len(use)))
    return pd.DataFrame(rows, columns=["sample", "embedder_a", "embedder_b", "n2o", "n_queries"])


def n2o_matrix(
    embedders: Mapping[str, Any] | Sequence[Any],
    corpus: SentenceCorpus,
    *,
    k: int = 50,
    n_queries: int = 100,
    n_samples: int = 5,
    seed: int = 0,
    engine: ScoringEngine | None = None,
    store: EmbeddingStore | None = None,
    search: NeighborSearch | None = None,
) -> Result:
    """All-pairs N2O matrix averaged over query samples, with the standard deviation.

    Returns:
        ``Result(kind="n2o-matrix")``: table ``embedder_a, embedder_b, n2o_mean, n2o_std``
        (std over samples, ddof=1), tables ``matrix`` / ``std_matrix`` (square, diagonal 1 / 0),
        ``per_sample`` and ``search`` (timings, HNSW recall, zero-vector queries). Queries an
        embedder maps to the zero vector are left out of its pairs' averages (module docstring);
        ``summary["n_zero_vector_queries"]`` counts them per embedder over the sampled queries.
    """
    emb = _named(embedders)
    if len(emb) < 2:
        raise ValidationError("N2O compares embedders: pass at least two")
    search = search or NeighborSearch()
    samples = sample_queries(len(corpus), n_queries, n_samples, seed)
    union, inverse = np.unique(np.concatenate(samples), return_inverse=True)
    positions = np.split(inverse, np.cumsum([len(s) for s in samples])[:-1])
    nn, info, zero = _all_neighbors(emb, corpus, union, k, engine, store, search, seed)
    per = n2o_per_sample(nn, positions, k, zero=zero)
    agg = per.groupby(["embedder_a", "embedder_b"], sort=False)["n2o"].agg(["mean", "std"]).reset_index()
    agg = agg.rename(columns={"mean": "n2o_mean", "std": "n2o_std"})
    agg["n2o_std"] = agg["n2o_std"].fillna(0.0)
    names = list(emb)
    matrix = _pair_matrix(names, {(r.embedder_a, r.embedder_b): r.n2o_mean for r in agg.itertuples()}, 1.0)
    std = _pair_matrix(names, {(r.embedder_a, r.embedder_b): r.n2o_std for r in agg.itertuples()}, 0.0)
    n_zero = _zero_counts(zero)
    search_tab = pd.DataFrame([{"embedder": n, **info[n], "n_zero_vector_queries": n_zero[n]} for n in names])
    defined = agg.dropna(subset=["n2o_mean"])
    if defined.empty:
        raise ValidationError(
            "every sampled query is a zero vector for some embedder, so no N2O is defined; check "
            f"the embedders (zero-vector queries per embedder: {n_zero}) or sample more queries"
        )
    best = defined.loc[defined["n2o_mean"].idxmax()]
    worst = defined.loc[defined["n2o_mean"].idxmin()]
    summary = {
        "k": k, "n_queries": n_queries, "n_samples": n_samples, "n_corpus": len(corpus),
        "n_duplicates_removed": corpus.n_duplicates, "embedders": names,
        "mean_n2o": float(defined["n2o_mean"].mean()),
        "most_similar": f"{best.embedder_a} ~ {best.embedder_b} ({best.n2o_mean:.3f})",
        "least_similar": f"{worst.embedder_a} ~ {worst.embedder_b} ({worst.n2o_mean:.3f})",
        "n_zero_vector_queries": n_zero,
    }
    if "recall_at_k" in search_tab:
        summary["hnsw_recall_at_k"] = {n: float(info[n]["recall_at_k"]) for n in names}
    return Result(
        kind="n2o-matrix", summary=summary, table=agg,
        tables={"matrix": matrix, "std_matrix": std, "per_sample": per, "search": search_tab},
        provenance=_provenance(emb, corpus, _base_params(corpus, k, n_queries, n_samples, search), seed),
    )


def n2o_robustness(
    embedders: Mapping[str, Any] | Sequence[Any],
    corpus: SentenceCorpus,
    *,
    ks: Sequence[int] = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50),
    n_queries: int = 100,
    n_samples: int = 5,
    seed: int = 0,
    engine: ScoringEngine | None = None,
    store: EmbeddingStore | None = None,
    search: NeighborSearch | None = None,
) -> Result:
    """Spearman ρ between the rankings of embedder pairs by N2O, across k and across samples.

    For every pair of k values, the pairs' N2O (averaged over samples) are correlated; for every
    pair of samples, the pairs' N2O at ``max(ks)`` are correlated (paper §6).

    Returns:
        ``Result(kind="n2o-robustness")``: table ``comparison ("k"|"sample"), a, b, spearman_rho``;
        table ``values``: ``k, sample, embedder_a, embedder_b, n2o, n_queries`` (zero-vector
        queries left out of a pair's N2O as in :func:`n2o_matrix`).
    """
    from scipy.stats import spearmanr

    emb = _named(embedders)
    if len(emb) < 3:
        raise ValidationError("robustness ranks embedder pairs: pass at least three embedders")
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 1:
        raise ValidationError(f"ks must be positive integers, got {ks}")
    search = search or NeighborSearch()
    samples = sample_queries(len(corpus), n_queries, n_samples, seed)
    union, inverse = np.unique(np.concatenate(samples), return_inverse=True)
    positions = np.split(inverse, np.cumsum([len(s) for s in samples])[:-1])
    nn, _, zero = _all_neighbors(emb, corpus, union, max(ks), engine, store, search, seed)
    vals = pd.concat([n2o_per_sample(nn, positions, k, zero=zero).assign(k=k) for k in ks], ignore_index=True)
    vals = vals[["k", "sample", "embedder_a", "embedder_b", "n2o", "n_queries"]]
    by_k = vals.groupby(["k", "embedder_a", "embedder_b"], sort=False)["n2o"].mean()
    rows = []
    for k1, k2 in itertools.combinations(ks, 2):
        rho = spearmanr(by_k.loc[k1].to_numpy(), by_k.loc[k2].to_numpy()).statistic
        rows.append(("k", str(k1), str(k2), float(rho)))
    top = vals[vals["k"] == ks[-1]]
    for s1, s2 in itertools.combinations(range(n_samples), 2):
        x = top[top["sample"] == s1]["n2o"].to_numpy()
        y = top[top["sample"] == s2]["n2o"].to_numpy()
        rows.append(("sample", str(s1), str(s2), float(spearmanr(x, y).statistic)))
    table = pd.DataFrame(rows, columns=["comparison", "a", "b", "spearman_rho"])
    rk = table[table["comparison"] == "k"]["spearman_rho"]
    rs = table[table["comparison"] == "sample"]["spearman_rho"]
    summary = {
        "ks": ks, "n_queries": n_queries, "n_samples": n_samples, "n_pairs": len(emb) * (len(emb) - 1) // 2,
        "k_rho_min": float(rk.min()), "k_rho_mean": float(rk.mean()),
        "sample_rho_min": float(rs.min()) if len(rs) else None,
        "sample_rho_mean": float(rs.mean()) if len(rs) else None,
        "n_zero_vector_queries": _zero_counts(zero),
    }
    params = _base_params(corpus, max(ks), n_queries, n_samples, search) | {"ks": ks,
                                                                            "sample_comparison_k": ks[-1]}
    return Result(kind="n2o-robustness", summary=summary, table=table, tables={"values": vals},
                  provenance=_provenance(emb, corpus, params, seed))


def _mean_ci(x: np.ndarray, confidence: float) -> tuple[float, float, float]:
    from scipy import stats

    m = float(np.mean(x))
    if len(x) < 2:
        return m, float("nan"), float("nan")
    sem = float(stats.sem(x))
    if sem == 0:
        return m, m, m
    lo, hi = stats.t.interval(confidence, len(x) - 1, loc=m, scale=sem)
    return m, float(lo), float(hi)


def token_overlap(
    embedders: Mapping[str, Any] | Sequence[Any],
    corpus: SentenceCorpus,
    *,
    k: int = 50,
    n_queries: int = 100,
    seed: int = 0,
    confidence: float = 0.95,
    terms: Literal["tokens", "content"] = "tokens",
    engine: ScoringEngine | None = None,
    store: EmbeddingStore | None = None,
    search: NeighborSearch | None = None,
) -> Result:
    """Token overlap between each query and its k neighbours, per embedder, with a t-based CI.

    Overlap of a query and a neighbour = Jaccard of their lower-cased word-token sets
    (``terms="tokens"``) or of their Porter-stemmed non-stopword terms (``terms="content"``,
    :func:`ranklens.text.content_terms`); a query's
    value is the mean over its k neighbours; the CI is over queries (Student t, ``confidence``).
    A ``random`` row gives the same figure for k random corpus sentences (chance level).
    Queries an embedder maps to the zero vector have no neighbours for it and are left out of
    its mean (``n_queries`` says how many were used; ``summary["n_zero_vector_queries"]``).

    Returns:
        ``Result(kind="n2o-token-overlap")``: table ``embedder, mean, ci_low, ci_high, n_queries``;
        table ``per_query``: ``embedder, query_id, overlap``.
    """
    emb = _named(embedders)
    if terms not in ("tokens", "content"):
        raise ValidationError(f"terms must be 'tokens' or 'content', got {terms!r}")
    split = tokenize if terms == "tokens" else content_terms
    search = search or NeighborSearch()
    qidx = sample_queries(len(corpus), n_queries, 1, seed)[0]
    nn, _, zero = _all_neighbors(emb, corpus, qidx, k, engine, store, search, seed)
    toks: dict[int, frozenset[str]] = {}

    def tset(i: int) -> frozenset[str]:
        t = toks.get(i)
        if t is None:
            t = toks[i] = frozenset(split(corpus.texts[i]))
        return t

    def jac(a: frozenset[str], b: frozenset[str]) -> float:
        u = len(a | b)
        return len(a & b) / u if u else 0.0

    rng = np.random.default_rng(seed + 1)
    rand = np.stack([rng.choice(len(corpus), size=k, replace=False) for _ in qidx])
    per = []
    for name, arr in [*nn.items(), ("random", rand)]:
        for r, q in enumerate(qidx):
            if name in zero and zero[name][r]:
                continue  # no neighbours for this embedder (zero vector): not an overlap of 0
            qt = tset(int(q))
            ov = [jac(qt, tset(int(j))) for j in arr[r] if j >= 0 and j != q]
            per.append((name, corpus.ids[q], float(np.mean(ov)) if ov else 0.0))
    per_df = pd.DataFrame(per, columns=["embedder", "query_id", "overlap"])
    rows = []
    for name, g in per_df.groupby("embedder", sort=False):
        m, lo, hi = _mean_ci(g["overlap"].to_numpy(), confidence)
        rows.append((name, m, lo, hi, len(g)))
    table = pd.DataFrame(rows, columns=["embedder", "mean", "ci_low", "ci_high", "n_queries"])
    real = table[table["embedder"] != "random"]
    summary = {
        "k": k, "n_queries": n_queries, "confidence": confidence, "terms": terms,
        "highest": str(real.loc[real["mean"].idxmax(), "embedder"]) if len(real) else "n/a",
        "lowest": str(real.loc[real["mean"].idxmin(), "embedder"]) if len(real) else "n/a",
        "means": {r.embedder: round(float(r.mean), 4) for r in table.itertuples()},
        "n_zero_vector_queries": _zero_counts(zero),
    }
    params = _base_params(corpus, k, n_queries, 1, search) | {
        "overlap": "Jaccard of lower-cased token sets (ranklens.text.tokenize)" if terms == "tokens"
        else "Jaccard of stemmed non-stopword term sets (ranklens.text.content_terms)",
        "terms": terms,
        "ci": f"Student t over per-query means, {confidence}",
        "random_baseline": "k corpus rows drawn uniformly per query, default_rng(seed + 1)",
    }
    return Result(kind="n2o-token-overlap", summary=summary, table=table, tables={"per_query": per_df},
                  provenance=_provenance(emb, corpus, params, seed))


def _resolve_query(corpus: SentenceCorpus, query: str | int) -> int:
    if isinstance(query, (int, np.integer)):
        if not 0 <= int(query) < len(corpus):
            raise ValidationError(f"query index {query} outside the corpus (size {len(corpus)})")
        return int(query)
    if query in corpus.ids:
        return corpus.ids.index(query)
    i = corpus.index_of_text(query)
    if i is None:
        raise ValidationError(
            f"query {query[:80]!r} is neither a corpus id nor a corpus text; add it with "
            "corpus.with_texts([...]) first"
        )
    return i


def popular_outliers(
    embedders: Mapping[str, Any] | Sequence[Any],
    corpus: SentenceCorpus,
    query: str | int,
    *,
    m: int = 10,
    k: int = 50,
    engine: ScoringEngine | None = None,
    store: EmbeddingStore | None = None,
    search: NeighborSearch | None = None,
) -> Result:
    """Popular and outlier neighbours of one query (paper Table 2).

    Popular: in every embedder's top-``m``. Outlier for embedder e: in e's top-``m`` but outside
    every other embedder's top-``k``.

    Returns:
        ``Result(kind="n2o-popular-outliers")``: table ``kind, embedder, rank, corpus_id, text``
        (rank = the embedder's rank, or the mean rank over embedders for popular neighbours).
    """
    emb = _named(embedders)
    if len(emb) < 2:
        raise ValidationError("popular/outlier neighbours need at least two embedders")
    if m > k:
        raise ValidationError(f"m ({m}) must be <= k ({k})")
    search = search or NeighborSearch()
    qi = _resolve_query(corpus, query)
    nn, _, zero = _all_neighbors(emb, corpus, np.array([qi]), k, engine, store, search, 0)
    lists = {n: [int(j) for j in a[0] if j >= 0] for n, a in nn.items()}
    topm = {n: set(v[:m]) for n, v in lists.items()}
    topk = {n: set(v[:k]) for n, v in lists.items()}
    rows = []
    popular = set.intersection(*topm.values())
    ranks = {j: np.mean([lists[n].index(j) + 1 for n in lists]) for j in popular}
    for j in sorted(popular, key=lambda j: (ranks[j], j)):
        rows.append(("popular", "all", float(ranks[j]), corpus.ids[j], corpus.texts[j]))
    for n, v in lists.items():
        others = set().union(*(topk[o] for o in lists if o != n))
        for r, j in enumerate(v[:m], start=1):
            if j not in others:
                rows.append(("outlier", n, float(r), corpus.ids[j], corpus.texts[j]))
    table = pd.DataFrame(rows, columns=["kind", "embedder", "rank", "corpus_id", "text"])
    summary = {"query_id": corpus.ids[qi], "query": corpus.texts[qi], "m": m, "k": k,
               "n_popular": len(popular),
               "zero_vector_embedders": [n for n, z in zero.items() if z[0]],
               "n_outliers": {n: int(((table["kind"] == "outlier") & (table["embedder"] == n)).sum())
                              for n in lists}}
    params = {"m": m, "k": k, "metric": "cosine", "search": asdict(search), "self_exclusion": "query index"}
    return Result(kind="n2o-popular-outliers", summary=summary, table=table,
                  provenance=_provenance(emb, corpus, params, None))


def needle_ranks(vectors: np.ndarray, query_idx: np.ndarray, needle_idx: np.ndarray,
                 *, block_size: int = 65_536) -> np.ndarray:
    """Kernel: rank of ``needle_idx[i]`` among the neighbours of corpus row ``query_idx[i]``.

    Cosine similarity; the query row itself is excluded; rank = 1 + #rows with a higher
    similarity or the *same* similarity within 1e-6 (pessimistic ties, so a degenerate
    embedder that gives everything the same vector gets no credit). Blocked over the corpus.
    """
    q = l2_normalize(np.asarray(vectors[query_idx], dtype=np.float32))
    nd = l2_normalize(np.asarray(vectors[needle_idx], dtype=np.float32))
    target = np.einsum("ij,ij->i", q, nd)
    at_least = np.zeros(len(q), np.int64)
    rows = np.arange(len(q))
    for start in range(0, vectors.shape[0], block_size):
        block = l2_normalize(np.asarray(vectors[start : start + block_size], dtype=np.float32))
        s = q @ block.T
        # the query and the needle do not compete
        for cols in (query_idx, needle_idx):
            inb = (cols >= start) & (cols < start + block.shape[0])
            s[rows[inb], cols[inb] - start] = -np.inf
        # ">= target - 1e-6": float rounding differs between einsum and matmul, and ties count
        # against the needle (pessimistic)
        at_least += (s >= target[:, None] - 1e-6).sum(axis=1)
    return 1 + at_least


def needle_in_haystack(
    embedders: Mapping[str, Any] | Sequence[Any],
    corpus: SentenceCorpus,
    pairs: pd.DataFrame,
    *,
    min_score: float = 4.0,
    max_score: float = 5.0,
    max_overlap: float = 0.6,
    engine: ScoringEngine | None = None,
    store: EmbeddingStore | None = None,
    block_size: int = 65_536,
) -> Result:
    """Paraphrase needle in a haystack (paper §8).

    Pairs with ``min_score <= score <= max_score`` and token-set Jaccard overlap ``< max_overlap``
    are kept; both sentences are added to the corpus if absent; for each pair the rank of
    ``text_b`` among the neighbours of ``text_a`` (query excluded) is computed exactly.

    Args:
        pairs: DataFrame with ``text_a``, ``text_b``, ``score`` (and optionally ``pair_id``).

    Returns:
        ``Result(kind="n2o-needle")``: table ``embedder, mrr, n_top1, n_top5, n_pairs``;
        table ``per_pair``: ``embedder, pair_id, rank``.
    """
    emb = _named(embedders)
    missing = {"text_a", "text_b", "score"} - set(pairs.columns)
    if missing:
        raise ValidationError(f"pairs lack column(s) {sorted(missing)}; expected text_a, text_b, score")
    from .overlap import token_jaccard

    p = pairs.copy()
    if "pair_id" not in p:
        p["pair_id"] = [str(i) for i in range(len(p))]
    p["text_a"] = p["text_a"].astype(str).str.strip()
    p["text_b"] = p["text_b"].astype(str).str.strip()
    p["overlap"] = [token_jaccard(a, b) for a, b in zip(p["text_a"], p["text_b"])]
    keep = (p["score"] >= min_score) & (p["score"] <= max_score) & (p["overlap"] < max_overlap)
    keep &= p["text_a"] != p["text_b"]
    p = p[keep].reset_index(drop=True)
    if p.empty:
        raise ValidationError("no pair passes the score/overlap thresholds")
    big = corpus.with_texts([*p["text_a"], *p["text_b"]], id_prefix="needle")
    qi = np.array([big.index_of_text(t) for t in p["text_a"]], np.int64)
    ni = np.array([big.index_of_text(t) for t in p["text_b"]], np.int64)
    per = []
    rows = []
    for name, e in emb.items():
        vecs = _vectors(e, big, engine, store)
        ranks = needle_ranks(vecs, qi, ni, block_size=block_size)
        per.append(pd.DataFrame({"embedder": name, "pair_id": p["pair_id"].astype(str), "rank": ranks}))
        rows.append((name, float(np.mean(1.0 / ranks)), int((ranks == 1).sum()), int((ranks <= 5).sum()),
                     len(ranks)))
    table = pd.DataFrame(rows, columns=["embedder", "mrr", "n_top1", "n_top5", "n_pairs"])
    summary = {"n_pairs": len(p), "n_corpus": len(big),
               "best_mrr": str(table.loc[table["mrr"].idxmax(), "embedder"]),
               "mrr": {r.embedder: round(r.mrr, 4) for r in table.itertuples()}}
    params = {"min_score": min_score, "max_score": max_score, "max_overlap": max_overlap,
              "overlap": "Jaccard of lower-cased token sets", "metric": "cosine",
              "rank_ties": "pessimistic (1 + #rows with similarity >= needle - 1e-6)", "self_exclusion": "query row",
              "n_corpus": len(big)}
    return Result(kind="n2o-needle", summary=summary, table=table,
                  tables={"per_pair": pd.concat(per, ignore_index=True),
                          "pairs": p[["pair_id", "score", "overlap", "text_a", "text_b"]]},
                  provenance=make_provenance(params=params,
                                             components={n: e.fingerprint for n, e in emb.items()},
                                             inputs={"corpus": f"sha256:{big.hash}"}))


# ----------------------------------------------------------------------------- rankers
def _topk_lists(run: pd.DataFrame, k: int, name: str) -> dict[str, list[str]]:
    missing = {"query_id", "doc_id", "score"} - set(run.columns)
    if missing:
        raise ValidationError(f"run {name!r} lacks column(s) {sorted(missing)}")
    r = run[["query_id", "doc_id", "score"]].copy()
    r["query_id"] = r["query_id"].astype(str)
    r["doc_id"] = r["doc_id"].astype(str)
    # trec_eval order: score descending, ties by doc_id descending
    r = r.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="mergesort")
    return {q: list(g["doc_id"].iloc[:k]) for q, g in r.groupby("query_id", sort=False)}


def _run_hash(run: pd.DataFrame) -> str:
    # order-independent digest of the (query_id, doc_id, score) rows
    from .._hashing import sha256_texts

    rows = sorted(f"{q}\t{d}\t{float(x)!r}" for q, d, x in
                  zip(run["query_id"].astype(str), run["doc_id"].astype(str), run["score"]))
    return sha256_texts(rows)


def run_from_ranker(ranker: Any, queries: pd.DataFrame, docs: Mapping[str, str], *,
                    engine: ScoringEngine | None = None) -> pd.DataFrame:
    """Exhaustive run: ``ranker`` scores every (query, document) pair through the engine.

    Only for small collections (n_queries × n_docs model calls, cached).
    """
    from ..engine import score_pairs

    ids = list(docs)
    texts = [docs[d] for d in ids]
    qs, ts, qid, did = [], [], [], []
    for q, text in zip(queries["query_id"].astype(str), queries["text"]):
        qs += [text] * len(ids)
        ts += texts
        qid += [q] * len(ids)
        did += ids
    scores = score_pairs(ranker, qs, ts, engine=engine)
    return pd.DataFrame({"query_id": qid, "doc_id": did, "score": scores})


def ranker_overlap(runs: Mapping[str, pd.DataFrame], *, k: int = 10, p: float = 0.9) -> Result:
    """Overlap of the top-k documents of rankers (N2O for retrieval) plus rank-biased overlap.

    Only queries present in every run are compared (the number dropped is reported). Each run is
    ordered by score descending, ties by doc_id descending (trec_eval's convention).

    Returns:
        ``Result(kind="ranker-overlap")``: table ``ranker_a, ranker_b, overlap_mean, rbo_mean``;
        tables ``per_query`` and ``matrix`` (overlap, diagonal 1).
    """
    if len(runs) < 2:
        raise ValidationError("ranker overlap compares runs: pass at least two")
    if k < 1:
        raise ValidationError(f"k must be >= 1, got {k}")
    lists = {n: _topk_lists(r, k, n) for n, r in runs.items()}
    common = sorted(set.intersection(*(set(v) for v in lists.values())))
    all_q = set().union(*(set(v) for v in lists.values()))
    if not common:
        raise ValidationError("the runs share no query id")
    per = []
    for a, b in itertools.combinations(list(lists), 2):
        for q in common:
            la, lb = lists[a][q], lists[b][q]
            per.append((a, b, q, len(set(la) & set(lb)) / k, rbo(la, lb, p)))
    per_df = pd.DataFrame(per, columns=["ranker_a", "ranker_b", "query_id", "overlap", "rbo"])
    table = per_df.groupby(["ranker_a", "ranker_b"], sort=False)[["overlap", "rbo"]].mean().reset_index()
    table = table.rename(columns={"overlap": "overlap_mean", "rbo": "rbo_mean"})
    matrix = _pair_matrix(list(lists), {(r.ranker_a, r.ranker_b): r.overlap_mean for r in table.itertuples()}, 1.0)
    matrix = matrix.rename(columns={"embedder": "ranker"})
    summary = {"k": k, "p": p, "n_queries": len(common), "n_queries_dropped": len(all_q) - len(common),
               "rankers": list(lists), "mean_overlap": float(table["overlap_mean"].mean()),
               "mean_rbo": float(table["rbo_mean"].mean())}
    return Result(kind="ranker-overlap", summary=summary, table=table,
                  tables={"per_query": per_df, "matrix": matrix},
                  provenance=make_provenance(
                      params={"k": k, "p": p, "ties": "score desc, doc_id desc (trec_eval)",
                              "rbo": "extrapolated RBO_ext, Webber et al. 2010 eq. 32",
                              "queries": "intersection of the runs' query ids"},
                      inputs={n: f"sha256:{_run_hash(r)}"
                              for n, r in runs.items()}))
