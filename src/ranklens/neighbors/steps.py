"""One function per analysis of ``neighbors``: each takes the shared context (corpus, query pool,
vectors ...) and returns a ``Result`` or the reason it was skipped."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["run_steps"]


def _components(ctx: Mapping[str, Any]) -> dict[str, str]:
    return {n: e.fingerprint for n, e in ctx["embedders"].items()}


def _common(ctx: Mapping[str, Any]) -> dict[str, Any]:
    return {"search": ctx["search"], "pool": ctx["pool"], "pool_name": ctx["pool_name"],
            "components": _components(ctx)}


def _matrix(ctx: Mapping[str, Any], collection: Any, models: Any, p: Any) -> Any:
    from .n2o import n2o_matrix

    if len(ctx["vectors"]) < 2:
        return "matrix skipped: N2O needs at least two embedders"
    return n2o_matrix(ctx["vectors"], ctx["corpus"], k=ctx["k"], n_queries=ctx["n_queries"], n_samples=p.n_samples,
                      seed=ctx["seed"], confidence=p.confidence, n_bootstrap=p.n_bootstrap,
                      n_resamples=p.n_resamples, **_common(ctx))


def _robustness(ctx: Mapping[str, Any], collection: Any, models: Any, p: Any) -> Any:
    from .n2o import n2o_robustness

    if len(ctx["vectors"]) < 3:
        return "robustness skipped: ranking embedder pairs needs at least three embedders"
    ks = sorted({min(k, ctx["k"]) for k in p.ks})
    return n2o_robustness(ctx["vectors"], ctx["corpus"], ks=ks, n_queries=ctx["n_queries"], n_samples=p.n_samples,
                          seed=ctx["seed"], **_common(ctx))


def _tokens(ctx: Mapping[str, Any], collection: Any, models: Any, p: Any) -> Any:
    from .tokens import token_overlap

    if not ctx["vectors"]:
        return "tokens skipped: no embedder"
    return token_overlap(ctx["vectors"], ctx["corpus"], k=ctx["k"], n_queries=ctx["n_queries"],
                         n_samples=p.n_samples, seed=ctx["seed"],
                         confidence=p.confidence, terms=p.terms, **_common(ctx))


def _outliers(ctx: Mapping[str, Any], collection: Any, models: Any, p: Any) -> Any:
    from .tokens import popular_outliers

    if len(ctx["vectors"]) < 2:
        return "outliers skipped: popular/outlier neighbours need at least two embedders"
    query = p.outlier_query if p.outlier_query is not None else ctx["first_query"]
    return popular_outliers(ctx["vectors"], ctx["corpus"], query, m=min(p.m, ctx["k"]), k=ctx["k"],
                            search=ctx["search"], components=_components(ctx))


def _needle(ctx: Mapping[str, Any], collection: Any, models: Any, p: Any) -> Any:
    import pandas as pd

    from ..io.pairs import read_pairs
    from .needle import needle_in_haystack, select_pairs

    if not p.pairs:
        return "needle skipped: no pairs given (pairs = STS-B dev and test files in the paper)"
    if not ctx["vectors"]:
        return "needle skipped: no embedder"
    pairs = pd.concat([read_pairs(f) for f in p.pairs], ignore_index=True)
    chosen, notes = select_pairs(pairs, min_score=p.min_score, max_score=p.max_score, max_overlap=p.max_overlap,
                                 genre=p.genre, max_pairs=p.max_pairs, seed=ctx["seed"])
    return needle_in_haystack(ctx["embedders"], ctx["corpus"], chosen, vectors=ctx["vectors"], protocol=p.needle_protocol,
                              engine=ctx["engine"], block_size=p.block_size, notes=tuple(notes))


def _rankers(ctx: Mapping[str, Any], collection: Any, models: Any, p: Any) -> Any:
    from ..specs import runs_for_models
    from ..io import read_runs
    from .rankers import ranker_overlap

    runs: dict[str, Any] = {}
    if collection.meta.get("runs"):
        runs.update(read_runs(collection.meta["runs"]))
    if len(collection.queries):
        made, _ = runs_for_models(collection, models, p.ranker_k, ctx["engine"])
        runs.update(made)
    if len(runs) < 2:
        return "rankers skipped: the top-k overlap needs at least two runs (models or --runs)"
    return ranker_overlap(runs, k=p.ranker_k, p=p.rbo_p)


_STEPS: dict[str, Callable[..., Any]] = {"matrix": _matrix, "robustness": _robustness, "tokens": _tokens,
                                         "outliers": _outliers, "needle": _needle, "rankers": _rankers}


def run_steps(ctx: Mapping[str, Any], collection: Any, models: Any, p: Any) -> tuple[list[Any], list[str]]:
    """Results of the requested analyses (paper order), and why any was skipped."""
    results, skipped = [], []
    for name in _STEPS:
        if name not in p.analyses:
            continue
        out = _STEPS[name](ctx, collection, models, p)
        (skipped if isinstance(out, str) else results).append(out)
    return results, skipped
