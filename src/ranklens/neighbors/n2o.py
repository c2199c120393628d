"""N2O between embedders (paper §2, §5), its robustness (§6) and statistics on the differences.

N2O of embedders A and B for query q at depth k = ``|nearest_A(q, k) ∩ nearest_B(q, k)| / k``,
averaged over the ``n_queries`` queries of a sample; the paper reports the mean over
``n_samples`` samples. Queries an embedder maps to the zero vector have no neighbour set for it
and are left out of the average of every pair involving it (counting them as 0 would penalise
the *other* embedder); ``n_queries`` in the tables says how many were used.

Statistics (not in the paper, which gives the SD over five samples only): each pair's N2O gets a
percentile bootstrap CI over its distinct sampled queries (:func:`ranklens.stats.bootstrap_ci`),
and every question "is A closer to B than to C?" a paired sign-flip randomization test on the
per-query differences (:func:`ranklens.stats.randomization_test`), Holm-corrected over all such
triples.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..results import Result, make_provenance
from ..search.overlap import knn_overlap
from .corpus import SentenceCorpus
from ..engine import ScoringEngine
from .search import NeighborSearch, as_vectors, neighbors_of, sample_queries
from .declaration import Params

__all__ = ["n2o_matrix", "n2o_per_sample", "n2o_robustness", "pair_matrix", "paired_tests", "per_query_n2o"]

DEFAULTS = Params()  # kernel defaults are the declared ones


def pair_matrix(names: list[str], values: Mapping[tuple[str, str], float], diag: float) -> pd.DataFrame:
    """Square symmetric frame (column ``model`` then one column per model) from pair values."""
    m = pd.DataFrame(np.full((len(names), len(names)), diag), index=names, columns=names)
    for (a, b), v in values.items():
        m.loc[a, b] = v
        m.loc[b, a] = v
    m.index.name = "model"
    return m.reset_index()


def n2o_per_sample(nn: Mapping[str, np.ndarray], positions: Sequence[np.ndarray], k: int, *,
                   zero: Mapping[str, np.ndarray] | None = None) -> pd.DataFrame:
    """Kernel: N2O of every embedder pair on every sample.

    Args:
        nn: name -> ``(n_queries_total, >=k)`` neighbour indices.
        positions: per sample, the rows of the ``nn`` arrays that belong to it.
        k: neighbourhood size.
        zero: name -> mask of the queries the embedder maps to the zero vector (left out).

    Returns:
        DataFrame ``sample, model, other_model, n2o, n_queries`` (NaN when no query is left).
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
    return pd.DataFrame(rows, columns=["sample", "model", "other_model", "n2o", "n_queries"])


def per_query_n2o(nn: Mapping[str, np.ndarray], k: int, zero: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Kernel: overlap of every pair on every (distinct) query: ``model, other_model, query, n2o``
    (NaN where either embedder maps the query to the zero vector)."""
    rows = []
    for a, b in itertools.combinations(list(nn), 2):
        ov = knn_overlap(nn[a], nn[b], k).astype(np.float64)
        ov[np.asarray(zero[a]) | np.asarray(zero[b])] = np.nan
        rows.append(pd.DataFrame({"model": a, "other_model": b, "query": np.arange(len(ov)), "n2o": ov}))
    return pd.concat(rows, ignore_index=True)


def _pair_series(perq: pd.DataFrame, a: str, b: str) -> np.ndarray:
    hit = perq[((perq["model"] == a) & (perq["other_model"] == b)) | ((perq["model"] == b) & (perq["other_model"] == a))]
    return hit.sort_values("query")["n2o"].to_numpy()


def paired_tests(perq: pd.DataFrame, names: Sequence[str], *, n_resamples: int = DEFAULTS.n_resamples,
                 seed: int = 0) -> pd.DataFrame:
    """For every model A and two others B, C: is N2O(A, B) different from N2O(A, C)?

    Paired randomization test on the queries where all three have neighbours; Holm-corrected
    over the family. Columns ``model, vs, than, diff, p_value, p_holm, n_queries`` (``diff`` =
    mean N2O(A, vs) - mean N2O(A, than)).
    """
    from ..stats import correct_pvalues, randomization_test

    rows = []
    for a in names:
        for b, c in itertools.combinations([n for n in names if n != a], 2):
            x, y = _pair_series(perq, a, b), _pair_series(perq, a, c)
            ok = ~(np.isnan(x) | np.isnan(y))
            t = randomization_test(x[ok], y[ok], n_resamples=n_resamples, seed=seed)
            rows.append((a, b, c, t.mean_diff, t.pvalue, int(ok.sum())))
    out = pd.DataFrame(rows, columns=["model", "vs", "than", "diff", "p_value", "n_queries"])
    p = out["p_value"].to_numpy(dtype=float)
    holm = np.full(len(p), np.nan)
    finite = ~np.isnan(p)
    if finite.any():
        holm[finite] = correct_pvalues(p[finite], "holm")
    out.insert(5, "p_holm", holm)
    return out


def _aggregate(per: pd.DataFrame, perq: pd.DataFrame, confidence: float, n_boot: int, seed: int) -> pd.DataFrame:
    from ..stats import bootstrap_ci

    agg = per.groupby(["model", "other_model"], sort=False)["n2o"].agg(["mean", "std"]).reset_index()
    agg = agg.rename(columns={"mean": "n2o_mean", "std": "n2o_std"})
    agg["n2o_std"] = agg["n2o_std"].fillna(0.0)
    cis = [bootstrap_ci(_pair_series(perq, r.model, r.other_model), confidence=confidence, n_resamples=n_boot,
                        seed=seed) for r in agg.itertuples()]
    agg["ci_low"] = [c.low for c in cis]
    agg["ci_high"] = [c.high for c in cis]
    agg["n_queries"] = [c.n for c in cis]
    return agg


def _samples(corpus: SentenceCorpus, n_queries: int, n_samples: int, seed: int, pool: Any
             ) -> tuple[np.ndarray, list[np.ndarray]]:
    samples = sample_queries(len(corpus), n_queries, n_samples, seed, pool)
    union, inverse = np.unique(np.concatenate(samples), return_inverse=True)
    return union, np.split(inverse, np.cumsum([len(s) for s in samples])[:-1])


TIE_RULE = ("lower corpus index among equal similarities; similarities are ranked as the float64 inner product "
            "of the float32 unit vectors (near-tied float32 candidates recomputed), so identical vectors always tie "
            "on every exact backend (sparse tf-idf: its float32 sparse product, summed in one fixed order per pair)")
TIE_RULE_APPROX = ("lower corpus index among equal float32 scores of the candidates the approximate index returns: "
                   "not guaranteed (a tied row it did not return, or scored differently in the last bit, can take "
                   "the place of a lower index); sparse tf-idf vectors are searched exactly")


def tie_rule(search: NeighborSearch) -> str:
    """The neighbour tie rule for provenance: exact for the exact backends, best effort for
    HNSW / IVF (their candidates are FAISS's float32 scores)."""
    return TIE_RULE_APPROX if search.backend in ("hnsw", "ivf") else TIE_RULE


def base_params(corpus: SentenceCorpus, k: int, n_queries: int, n_samples: int, search: NeighborSearch,
                pool_name: str) -> dict[str, Any]:
    return {
        "k": k, "n_queries": n_queries, "n_samples": n_samples, "metric": "cosine",
        "self_exclusion": "query's own corpus index; corpus deduplicated by exact text, so exact "
                          "duplicates of the query are excluded too",
        "query_sampling": f"uniform without replacement per sample from {pool_name}, numpy default_rng(seed)",
        "tie_break": tie_rule(search), "search": asdict(search),
        "n_corpus": len(corpus), "n_duplicates_removed": corpus.n_duplicates,
    }


CHANCE_WARNING = 0.1
"""N2O that random neighbour sets reach on average, ``k / (corpus - 1)``, from which on a result
says that its N2O values are inflated by a corpus small for ``k``."""


def degenerate_warnings(k: int, n_corpus: int, zero: Mapping[str, np.ndarray], what: str = "N2O",
                        whole: str = "every N2O is 1 by construction") -> list[str]:
    """The warnings of a neighbour result whose numbers say little: ``k`` close to (or at) the
    corpus size, where every neighbour set is most (or all) of the corpus, and queries an embedder
    maps to the zero vector (no neighbour set; left out, counted)."""
    out = []
    others = max(n_corpus - 1, 1)
    if k >= others:
        out.append(f"k = {k} neighbours of a corpus of {n_corpus} sentences: every neighbour set is the whole corpus "
                   f"but the query, so {whole} (it says nothing about the embedders); give "
                   "a corpus much larger than k (the paper: k = 50 among ~10^5 sentences)")
    elif k / others >= CHANCE_WARNING:
        out.append(f"k = {k} neighbours of a corpus of {n_corpus} sentences: random neighbour sets already overlap "
                   f"{k / others:.2f} on average (k / (corpus - 1)), so {what} values are inflated; give a corpus much "
                   "larger than k or a smaller k")
    for name, z in zero.items():
        n = int(np.count_nonzero(z))
        if n:
            out.append(f"model {name}: {n} of {len(z)} sampled queries are zero vectors (no word it knows): they "
                       f"have no neighbours and are left out of every {what} with {name} (n_queries counts the rest)")
    return out


def _summary(agg: pd.DataFrame, names: list[str], n_zero: dict[str, int], tests: pd.DataFrame) -> dict[str, Any]:
    defined = agg.dropna(subset=["n2o_mean"])
    if defined.empty:
        raise ValidationError(
            "every sampled query is a zero vector for some embedder, so no N2O is defined; check "
            f"the embedders (zero-vector queries per embedder: {n_zero}) or sample more queries")
    best = defined.loc[defined["n2o_mean"].idxmax()]
    worst = defined.loc[defined["n2o_mean"].idxmin()]
    return {"models": names, "mean_n2o": float(defined["n2o_mean"].mean()),
            "most_similar": f"{best.model} ~ {best.other_model} ({best.n2o_mean:.3f})",
            "least_similar": f"{worst.model} ~ {worst.other_model} ({worst.n2o_mean:.3f})",
            "n_zero_vector_queries": n_zero,
            "n_significant_differences": int((tests["p_holm"] < 0.05).sum()) if len(tests) else 0}


def n2o_matrix(vectors: Mapping[str, Any] | Sequence[Any], corpus: SentenceCorpus, *, k: int = DEFAULTS.k, n_queries: int = DEFAULTS.n_queries,
               n_samples: int = DEFAULTS.n_samples, seed: int = 0, search: NeighborSearch | None = None, pool: Any = None,
               pool_name: str = "every corpus sentence", confidence: float = DEFAULTS.confidence, n_bootstrap: int = DEFAULTS.n_bootstrap,
               n_resamples: int = DEFAULTS.n_resamples,
               components: Mapping[str, str] | None = None, engine: ScoringEngine | None = None) -> Result:
    """All-pairs N2O averaged over query samples, with the SD over samples (paper), a bootstrap CI
    over queries and the paired tests (module docstring).

    Args:
        vectors: name -> corpus vectors (dense array or CSR), from
            :func:`~ranklens.neighbors.search.corpus_vectors`.

    Returns:
        ``Result(kind="neighbors-matrix")``: table ``model, other_model, n2o_mean, n2o_std, ci_low,
        ci_high, n_queries``; tables ``matrix`` / ``std_matrix``, ``per_sample``, ``per_query``,
        ``paired_tests`` and ``search``.
    """
    vectors, components = as_vectors(vectors, corpus.texts, engine, components)
    if len(vectors) < 2:
        raise ValidationError("N2O compares embedders: pass at least two")
    search = search or NeighborSearch()
    union, positions = _samples(corpus, n_queries, n_samples, seed, pool)
    nn, info, zero = neighbors_of(vectors, union, k, search, seed)
    per = n2o_per_sample(nn, positions, k, zero=zero)
    perq = per_query_n2o(nn, k, zero)
    agg = _aggregate(per, perq, confidence, n_bootstrap, seed)
    names = list(vectors)
    tests = paired_tests(perq, names, n_resamples=n_resamples, seed=seed)
    n_zero = {n: int(np.count_nonzero(z)) for n, z in zero.items()}
    summary = {"k": k, "n_queries": n_queries, "n_samples": n_samples, "n_corpus": len(corpus),
               "n_duplicates_removed": corpus.n_duplicates, **_summary(agg, names, n_zero, tests)}
    search_tab = pd.DataFrame([{"model": n, **info[n], "n_zero_vector_queries": n_zero[n]} for n in names])
    if "recall_at_k" in search_tab:
        summary[f"{search.backend}_recall_at_k"] = {n: float(info[n]["recall_at_k"]) for n in names}
    perq = perq.assign(query_id=[corpus.ids[int(union[i])] for i in perq["query"]]).drop(columns="query")
    params = base_params(corpus, k, n_queries, n_samples, search, pool_name) | {
        "ci": f"percentile bootstrap over distinct sampled queries, {n_bootstrap} resamples, {confidence}",
        "paired_tests": f"sign-flip randomization ({n_resamples} resamples), Holm over all (A, B, C)"}
    return Result(
        kind="neighbors-matrix", summary=summary, table=agg, warnings=tuple(degenerate_warnings(k, len(corpus), zero)),
        tables={"matrix": pair_matrix(names, {(r.model, r.other_model): r.n2o_mean for r in agg.itertuples()}, 1.0),
                "std_matrix": pair_matrix(names, {(r.model, r.other_model): r.n2o_std for r in agg.itertuples()}, 0.0),
                "per_sample": per, "per_query": perq, "paired_tests": tests, "search": search_tab},
        provenance=make_provenance(params=params, components=dict(components or {}),
                                   inputs={"corpus": f"sha256:{corpus.hash}"}, seed=seed))


def _rho_rows(vals: pd.DataFrame, ks: list[int], n_samples: int) -> list[tuple[str, str, str, float]]:
    from scipy.stats import spearmanr

    by_k = vals.groupby(["k", "model", "other_model"], sort=False)["n2o"].mean()
    rows = [("k", str(k1), str(k2), float(spearmanr(by_k.loc[k1].to_numpy(), by_k.loc[k2].to_numpy()).statistic))
            for k1, k2 in itertools.combinations(ks, 2)]
    top = vals[vals["k"] == ks[-1]]
    for s1, s2 in itertools.combinations(range(n_samples), 2):
        x = top[top["sample"] == s1]["n2o"].to_numpy()
        y = top[top["sample"] == s2]["n2o"].to_numpy()
        rows.append(("sample", str(s1), str(s2), float(spearmanr(x, y).statistic)))
    return rows


def n2o_robustness(vectors: Mapping[str, Any], corpus: SentenceCorpus, *,
                   ks: Sequence[int] = DEFAULTS.ks, n_queries: int = DEFAULTS.n_queries,
                   n_samples: int = DEFAULTS.n_samples, seed: int = 0, search: NeighborSearch | None = None, pool: Any = None,
                   pool_name: str = "every corpus sentence",
               components: Mapping[str, str] | None = None, engine: ScoringEngine | None = None) -> Result:
    """Spearman ρ between the rankings of embedder pairs by N2O, across k and across samples (§6).

    Returns:
        ``Result(kind="neighbors-robustness")``: table ``comparison ("k"|"sample"), a, b, spearman_rho``;
        table ``values``: ``k, sample, model, other_model, n2o, n_queries``.
    """
    vectors, components = as_vectors(vectors, corpus.texts, engine, components)
    if len(vectors) < 3:
        raise ValidationError("robustness ranks embedder pairs: pass at least three embedders")
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 1:
        raise ValidationError(f"ks must be positive integers, got {ks}")
    search = search or NeighborSearch()
    union, positions = _samples(corpus, n_queries, n_samples, seed, pool)
    nn, _, zero = neighbors_of(vectors, union, max(ks), search, seed)
    vals = pd.concat([n2o_per_sample(nn, positions, k, zero=zero).assign(k=k) for k in ks], ignore_index=True)
    vals = vals[["k", "sample", "model", "other_model", "n2o", "n_queries"]]
    table = pd.DataFrame(_rho_rows(vals, ks, n_samples), columns=["comparison", "a", "b", "spearman_rho"])
    rk = table[table["comparison"] == "k"]["spearman_rho"]
    rs = table[table["comparison"] == "sample"]["spearman_rho"]
    summary = {
        "ks": ks, "n_queries": n_queries, "n_samples": n_samples, "n_pairs": len(vectors) * (len(vectors) - 1) // 2,
        "k_rho_min": float(rk.min()), "k_rho_mean": float(rk.mean()),
        "sample_rho_min": float(rs.min()) if len(rs) else None,
        "sample_rho_mean": float(rs.mean()) if len(rs) else None,
        "n_zero_vector_queries": {n: int(np.count_nonzero(z)) for n, z in zero.items()},
    }
    params = base_params(corpus, max(ks), n_queries, n_samples, search, pool_name) | {
        "ks": ks, "sample_comparison_k": ks[-1]}
    return Result(kind="neighbors-robustness", summary=summary, table=table, tables={"values": vals},
                  warnings=tuple(degenerate_warnings(max(ks), len(corpus), zero)),
                  provenance=make_provenance(params=params, components=dict(components or {}),
                                             inputs={"corpus": f"sha256:{corpus.hash}"}, seed=seed))
