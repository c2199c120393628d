"""Token overlap between queries and their neighbours (paper Fig. 5) and popular / outlier
neighbours of one query (paper Table 2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..results import Result, make_provenance
from ..text import content_terms, tokenize
from .corpus import SentenceCorpus
from .n2o import base_params, degenerate_warnings, tie_rule
from ..engine import ScoringEngine
from .search import NeighborSearch, as_vectors, neighbors_of, sample_queries
from .declaration import Params

__all__ = ["TERMS", "popular_outliers", "token_overlap"]

DEFAULTS = Params()  # kernel defaults are the declared ones

TERMS = ("content", "tokens")
_TERM_DOC = {
    "content": "Jaccard of the sets of content terms (non-stopword tokens, Porter-stemmed; "
               "ranklens.text.content_terms)",
    "tokens": "Jaccard of the sets of all lower-cased tokens, stopwords included (ranklens.text.tokenize)",
}


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


def _per_query(lists: Mapping[str, np.ndarray], qidx: np.ndarray, zero: Mapping[str, np.ndarray],
               corpus: SentenceCorpus, terms: str) -> pd.DataFrame:
    split = tokenize if terms == "tokens" else content_terms
    cache: dict[int, frozenset[str]] = {}

    def tset(i: int) -> frozenset[str]:
        if i not in cache:
            cache[i] = frozenset(split(corpus.texts[i]))
        return cache[i]

    def jac(a: frozenset[str], b: frozenset[str]) -> float:
        u = len(a | b)
        return len(a & b) / u if u else 0.0

    per = []
    for name, arr in lists.items():
        for r, q in enumerate(qidx):
            if name in zero and zero[name][r]:
                continue  # no neighbours for this embedder (zero vector): not an overlap of 0
            qt = tset(int(q))
            ov = [jac(qt, tset(int(j))) for j in arr[r] if j >= 0 and j != q]
            per.append((name, corpus.ids[q], float(np.mean(ov)) if ov else 0.0))
    return pd.DataFrame(per, columns=["model", "query_id", "overlap"])


def token_overlap(vectors: Mapping[str, Any], corpus: SentenceCorpus, *, k: int = DEFAULTS.k, n_queries: int = DEFAULTS.n_queries,
                  n_samples: int = DEFAULTS.n_samples, seed: int = 0, confidence: float = DEFAULTS.confidence, terms: str = DEFAULTS.terms,
                  search: NeighborSearch | None = None, pool: Any = None, pool_name: str = "every corpus sentence",
                  components: Mapping[str, str] | None = None,
                  engine: ScoringEngine | None = None) -> Result:
    """Token overlap between each query and its k neighbours, per embedder, with a t-based CI.

    Overlap of a query and a neighbour = Jaccard of their term sets; ``terms="content"`` (default)
    counts content terms, ``"tokens"`` every token. The paper does not spell its measure out; it
    reports tf-idf's neighbours with "by far the largest token overlap" and subword fastText's
    with the lowest: counting stopwords lets function-word matches dominate (word2vec then
    scores above tf-idf at k = 50 on STS-B), so content terms are the default and all tokens the
    named variant. A query's value is the mean over its k neighbours; the CI is over queries
    (Student t). A ``random`` row gives chance level (k random corpus sentences per query).

    Queries: the paper averages "over all queries" (Fig. 5), i.e. those of the N2O matrix. They
    are the distinct queries of ``n_samples`` samples of ``n_queries`` drawn exactly as
    :func:`~ranklens.neighbors.n2o.n2o_matrix` draws them (same ``seed`` and pool), each counted
    once; ``n_samples=1`` uses the first sample only.

    Returns:
        ``Result(kind="neighbors-token-overlap")``: table ``model, mean, ci_low, ci_high, n_queries``;
        table ``per_query``: ``model, query_id, overlap``.
    """
    if terms not in TERMS:
        raise ValidationError(f"terms must be one of {TERMS}, got {terms!r}")
    vectors, components = as_vectors(vectors, corpus.texts, engine, components)
    search = search or NeighborSearch()
    qidx = np.unique(np.concatenate(sample_queries(len(corpus), n_queries, n_samples, seed, pool)))
    nn, _, zero = neighbors_of(vectors, qidx, k, search, seed)
    rng = np.random.default_rng(seed + 1)
    rand = np.stack([rng.choice(len(corpus), size=k, replace=False) for _ in qidx])
    per_df = _per_query({**nn, "random": rand}, qidx, zero, corpus, terms)
    rows = []
    for name, g in per_df.groupby("model", sort=False):
        m, lo, hi = _mean_ci(g["overlap"].to_numpy(), confidence)
        rows.append((name, m, lo, hi, len(g)))
    table = pd.DataFrame(rows, columns=["model", "mean", "ci_low", "ci_high", "n_queries"])
    real = table[table["model"] != "random"]
    summary = {
        "k": k, "n_queries": int(len(qidx)), "n_samples": n_samples, "confidence": confidence, "terms": terms,
        "highest": str(real.loc[real["mean"].idxmax(), "model"]) if len(real) else "n/a",
        "lowest": str(real.loc[real["mean"].idxmin(), "model"]) if len(real) else "n/a",
        "means": {r.model: round(float(r.mean), 4) for r in table.itertuples()},
        "n_zero_vector_queries": {n: int(np.count_nonzero(z)) for n, z in zero.items()},
    }
    params = base_params(corpus, k, n_queries, n_samples, search, pool_name) | {
        "queries": f"the {len(qidx)} distinct queries of the N2O matrix's samples ({n_samples} x {n_queries}, same "
                   "seed and pool), each once: the paper averages over all queries (Fig. 5)",
        "overlap": _TERM_DOC[terms], "terms": terms, "ci": f"Student t over per-query means, {confidence}",
        "random_baseline": "k corpus rows drawn uniformly per query, default_rng(seed + 1)"}
    return Result(kind="neighbors-token-overlap", summary=summary, table=table, tables={"per_query": per_df},
                  warnings=tuple(degenerate_warnings(k, len(corpus), zero, "token overlap",
                                                     "every embedder's token overlap is that of the whole corpus")),
                  provenance=make_provenance(params=params, components=dict(components or {}),
                                             inputs={"corpus": f"sha256:{corpus.hash}"}, seed=seed))


def resolve_query(corpus: SentenceCorpus, query: str | int) -> int:
    """Corpus index of a query given as an index, a corpus id or an exact corpus text."""
    if isinstance(query, (int, np.integer)):
        if not 0 <= int(query) < len(corpus):
            raise ValidationError(f"query index {query} outside the corpus (size {len(corpus)})")
        return int(query)
    if query in corpus.ids:
        return corpus.ids.index(query)
    i = corpus.index_of_text(query)
    if i is None:
        raise ValidationError(f"query {query[:80]!r} is neither a corpus id nor a corpus text; give an id "
                              "(DOC#i for the i-th sentence of DOC) or a sentence of the corpus")
    return i


def _outlier_rows(lists: Mapping[str, list[int]], m: int, k: int, corpus: SentenceCorpus) -> list[tuple]:
    topm = {n: set(v[:m]) for n, v in lists.items()}
    topk = {n: set(v[:k]) for n, v in lists.items()}
    popular = set.intersection(*topm.values())
    ranks = {j: np.mean([lists[n].index(j) + 1 for n in lists]) for j in popular}
    rows = [("popular", "all", float(ranks[j]), corpus.ids[j], corpus.texts[j])
            for j in sorted(popular, key=lambda j: (ranks[j], j))]
    for n, v in lists.items():
        others = set().union(*(topk[o] for o in lists if o != n))
        rows += [("outlier", n, float(r), corpus.ids[j], corpus.texts[j])
                 for r, j in enumerate(v[:m], start=1) if j not in others]
    return rows


def popular_outliers(vectors: Mapping[str, Any], corpus: SentenceCorpus, query: str | int, *, m: int = DEFAULTS.m,
                     k: int = DEFAULTS.k, search: NeighborSearch | None = None,
                     components: Mapping[str, str] | None = None,
                  engine: ScoringEngine | None = None) -> Result:
    """Popular and outlier neighbours of one query (paper Table 2).

    Popular: in every embedder's top-``m`` (default 5: the paper's "in the 5-nearest neighborhood
    for all embedders", Table 2). Outlier for embedder e: in e's top-``m`` but outside every other
    embedder's top-``k`` (paper: 50).

    Returns:
        ``Result(kind="neighbors-popular-outliers")``: table ``kind, model, rank, corpus_id, text``
        (rank = the embedder's rank, or the mean rank over embedders for popular neighbours).
    """
    vectors, components = as_vectors(vectors, corpus.texts, engine, components)
    if len(vectors) < 2:
        raise ValidationError("popular/outlier neighbours need at least two embedders")
    if m > k:
        raise ValidationError(f"m ({m}) must be <= k ({k})")
    search = search or NeighborSearch()
    qi = resolve_query(corpus, query)
    nn, _, zero = neighbors_of(vectors, np.array([qi]), k, search, 0)
    lists = {n: [int(j) for j in a[0] if j >= 0] for n, a in nn.items()}
    table = pd.DataFrame(_outlier_rows(lists, m, k, corpus), columns=["kind", "model", "rank", "corpus_id", "text"])
    summary = {"query_id": corpus.ids[qi], "query": corpus.texts[qi], "m": m, "k": k,
               "n_popular": int((table["kind"] == "popular").sum()),
               "zero_vector_models": [n for n, z in zero.items() if z[0]],
               "n_outliers": {n: int(((table["kind"] == "outlier") & (table["model"] == n)).sum()) for n in lists}}
    params = {"m": m, "k": k, "metric": "cosine", "search": search.__dict__, "self_exclusion": "query index",
              "popular": "in every embedder's top-m (paper Table 2: the 5-nearest neighbourhood, m = 5)",
              "tie_break": tie_rule(search)}
    return Result(kind="neighbors-popular-outliers", summary=summary, table=table,
                  provenance=make_provenance(params=params, components=dict(components or {}),
                                             inputs={"corpus": f"sha256:{corpus.hash}"}))
