"""ReSTrain and ReSTTest resampling (Zhan et al., §4.1) and the :class:`Split` record.

A :class:`Split` maps each *regime* (``"interpolation"``, ``"extrapolation"``) to a pair of
query-id lists ``(train_ids, test_ids)``:

- **ReSTrain** keeps the test set; the interpolation training set is the union of the top-k most
  similar training queries of every test query, the extrapolation training set is all training
  queries minus the top-k' most similar of every test query, subsampled (seeded) to the size of
  the interpolation set. One split.
- **ReSTTest** clusters training and test queries together with k-means (K buckets); fold ``i``
  trains on the training queries outside bucket ``i``, its extrapolation test set is the test
  queries in bucket ``i`` and its interpolation test set the other test queries. K splits.

Both splitters follow scikit-learn's splitter protocol once fitted (``split(X=None)`` yields
``(train_idx, test_idx)`` index arrays, ``get_n_splits()``), and every :class:`Split` does too.
``fit(train_queries, test_queries)`` must come first: the splits depend on the query texts,
which a feature matrix ``X`` does not carry. ``X`` may then be

- *id-like*: a DataFrame with a ``query_id`` column, or a 1-D sequence of string query ids;
  the index arrays point into it (any order, extra ids allowed);
- anything else with one row per pooled query (a feature matrix, an array, a DataFrame without
  ``query_id``, a sparse matrix): its rows are taken to be in the pool order, i.e. the
  training queries then the test queries as given to ``fit`` (``splitter.pool_``), so
  ``cross_val_score(model, X, y, cv=splitter.fit(train, test))`` works when ``X`` and ``y``
  are built from ``splitter.pool_``.

Query ids are strings: a 1-D array of numbers is read as features, not ids.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._hashing import sha256_json
from ..errors import DataFormatError, ValidationError
from .declaration import Params
from .names import EXTRAPOLATION, INTERPOLATION, REGIMES
from .similarity import PlaneVectors, _check_queries, nearest_queries, similarity_name, tfidf_vectors

__all__ = [
    "EXTRAPOLATION",
    "INTERPOLATION",
    "REGIMES",
    "FittedSplits",
    "ReSTTest",
    "ReSTrain",
    "SIZE_RULES",
    "Split",
    "queries_with_positives",
    "read_published_split",
    "read_published_splits",
    "split_similarity_stats",
]

DEFAULTS = Params()


def queries_with_positives(queries: pd.DataFrame, qrels: pd.DataFrame, *, rel: int = 1) -> pd.DataFrame:
    """The rows of ``queries`` that have at least one qrels entry with ``relevance >= rel``."""
    pos = set(qrels.loc[qrels["relevance"].astype("int64") >= rel, "query_id"].astype(str))
    keep = queries["query_id"].astype(str).isin(pos).to_numpy()
    return queries.loc[keep].reset_index(drop=True)


@dataclass(frozen=True)
class Split:
    """One resampled train/test configuration with an interpolation and an extrapolation regime.

    Attributes:
        name: e.g. ``"restrain-k1"`` or ``"resttest-fold2"``.
        method: ``"restrain"`` or ``"resttest"``.
        regimes: ``{regime: (train_ids, test_ids)}`` (tuples of query-id strings).
        params: the splitter's parameters (recorded in provenance and in saved files).
        fold: the ReSTTest fold number (``None`` for ReSTrain).
    """

    name: str
    method: str
    regimes: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]
    params: Mapping[str, Any] = field(default_factory=dict)
    fold: int | None = None

    # ------------------------------------------------------------------ access
    def train_ids(self, regime: str) -> tuple[str, ...]:
        """Training query ids of ``regime``."""
        return self._regime(regime)[0]

    def test_ids(self, regime: str) -> tuple[str, ...]:
        """Test query ids of ``regime``."""
        return self._regime(regime)[1]

    def _regime(self, regime: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if regime not in self.regimes:
            raise ValidationError(f"split {self.name!r} has no regime {regime!r}; it has {sorted(self.regimes)}")
        return self.regimes[regime]

    @property
    def fingerprint(self) -> str:
        """Digest of the id lists and parameters: identifies the split in model fingerprints."""
        payload = {"name": self.name, "method": self.method, "params": dict(self.params),
                   "regimes": {r: [list(a), list(b)] for r, (a, b) in sorted(self.regimes.items())}}
        return sha256_json(payload)[:16]

    def sizes(self) -> pd.DataFrame:
        """One row per regime: ``regime``, ``n_train``, ``n_test``."""
        return pd.DataFrame({
            "split": [self.name] * len(self.regimes),
            "regime": list(self.regimes),
            "n_train": [len(a) for a, _ in self.regimes.values()],
            "n_test": [len(b) for _, b in self.regimes.values()],
        })

    def pool_ids(self) -> list[str]:
        """Every query id of the split once (training ids first, then test ids; first-seen order)."""
        seen: dict[str, None] = {}
        for a, _ in self.regimes.values():
            seen.update(dict.fromkeys(a))
        for _, b in self.regimes.values():
            seen.update(dict.fromkeys(b))
        return list(seen)

    # ------------------------------------------------------------------ sklearn protocol
    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:  # noqa: N803
        """Number of (train, test) pairs :meth:`split` yields: one per regime."""
        return len(self.regimes)

    def split(self, X: Any = None, y: Any = None, groups: Any = None) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]:  # noqa: N803
        """Yield ``(train_idx, test_idx)`` per regime (in :data:`REGIMES` order).

        Args:
            X: positions refer to this: a queries DataFrame (``query_id`` column) or a sequence of
                string query ids; or any other array-like with one row per query of
                :meth:`pool_ids`, in that order (e.g. a feature matrix). ``None``: :meth:`pool_ids`.
        """
        ids = _positions(X, self.pool_ids(), f"split {self.name!r}")
        pos = {q: i for i, q in enumerate(ids)}
        for regime in _ordered(self.regimes):
            tr, te = self.regimes[regime]
            missing = [q for q in (*tr, *te) if q not in pos]
            if missing:
                raise ValidationError(
                    f"split {self.name!r}: query id {missing[0]!r} ({len(missing)} in all) is not in X; "
                    "pass the queries the split was made from (training and test queries together)"
                )
            yield (np.array([pos[q] for q in tr], dtype=np.int64), np.array([pos[q] for q in te], dtype=np.int64))

    # ------------------------------------------------------------------ files
    def save(self, directory: str | os.PathLike[str], *, qrels: pd.DataFrame | None = None,
             stats: pd.DataFrame | None = None) -> Path:
        """Write ``split.json``, ``<regime>/{train,test}_ids.txt`` and, given ``qrels``, the
        matching ``<regime>/{train,test}_qrels.trec`` (TREC 4 columns).

        Returns:
            The directory.
        """
        from ..files import atomic_output, write_text_atomic

        d = Path(directory)
        meta = {"name": self.name, "method": self.method, "fold": self.fold, "params": dict(self.params),
                "fingerprint": self.fingerprint, "sizes": self.sizes().to_dict(orient="records")}
        for regime, (tr, te) in self.regimes.items():
            rd = d / regime
            write_text_atomic(rd / "train_ids.txt", "".join(f"{q}\n" for q in tr), what="split query ids")
            write_text_atomic(rd / "test_ids.txt", "".join(f"{q}\n" for q in te), what="split query ids")
            if qrels is not None:
                for part, ids in (("train", tr), ("test", te)):
                    sub = qrels.loc[qrels["query_id"].astype(str).isin(set(ids))]
                    lines = [f"{q} 0 {doc} {int(r)}\n" for q, doc, r in
                             zip(sub["query_id"].astype(str), sub["doc_id"].astype(str), sub["relevance"])]
                    write_text_atomic(rd / f"{part}_qrels.trec", "".join(lines), what="split qrels")
        if stats is not None:
            with atomic_output(d / "similarity_stats.tsv", what="split similarity table") as tmp:
                stats.to_csv(tmp, sep="\t", index=False)
        # written last: a folder without split.json is not read as a split
        write_text_atomic(d / "split.json", json.dumps(_json_safe(meta), indent=2, sort_keys=True),
                          what="split description")
        return d

    @classmethod
    def load(cls, directory: str | os.PathLike[str], *, test_ids: Any = None, test_set: str = "dev") -> Split:
        """Read a directory written by :meth:`save`, or one of the authors' published split
        directories (jingtaozhan/extrapolate-eval; ``test_ids`` / ``test_set`` as in
        :func:`read_published_split`)."""
        d = Path(directory)
        meta_path = d / "split.json"
        if not meta_path.is_file():
            from .published import is_published_split, published_split_fields

            if is_published_split(d):
                return cls(**published_split_fields(d, test_ids=test_ids, test_set=test_set))
            raise DataFormatError("not a split directory (no split.json, and not the authors' *-qrel.txt layout); "
                                  "write one with Split.save", path=d)
        try:
            meta = json.loads(meta_path.read_text())
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"invalid JSON: {exc.msg}", path=meta_path, line=exc.lineno) from exc
        regimes = {}
        for row in meta.get("sizes", []):
            regime = row["regime"]
            ids = []
            for part in ("train", "test"):
                p = d / regime / f"{part}_ids.txt"
                if not p.is_file():
                    raise DataFormatError(f"missing {part} id list of regime {regime!r}", path=p)
                ids.append(tuple(line.strip() for line in p.read_text().splitlines() if line.strip()))
            regimes[regime] = (ids[0], ids[1])
        return cls(name=meta["name"], method=meta["method"], regimes=regimes,
                   params=meta.get("params", {}), fold=meta.get("fold"))


def _json_safe(obj: Any) -> Any:
    from ..results import _jsonable

    return _jsonable(obj)


def _ordered(regimes: Mapping[str, Any]) -> list[str]:
    return [r for r in REGIMES if r in regimes] + [r for r in regimes if r not in REGIMES]


def _id_like(x: Any) -> bool:
    """True for a DataFrame with ``query_id`` or a 1-D sequence of strings (query ids)."""
    if isinstance(x, pd.DataFrame):
        return "query_id" in x.columns
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
        return False
    if hasattr(x, "ndim") and x.ndim != 1:
        return False
    try:
        return len(x) > 0 and all(isinstance(v, str) for v in x)
    except TypeError:  # e.g. sparse matrices are not iterable element-wise
        return False


def _n_rows(x: Any) -> int | None:
    shape = getattr(x, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    try:
        return len(x)
    except TypeError:
        return None


def _positions(x: Any, pool: list[str], who: str) -> list[str]:
    """The query id at each row of ``X`` (see the module docstring for what ``X`` may be)."""
    if x is None:
        return list(pool)
    if _id_like(x):
        if isinstance(x, pd.DataFrame):
            return x["query_id"].astype(str).tolist()
        return [str(q) for q in x]
    n = _n_rows(x)
    if n == len(pool):
        return list(pool)
    raise ValidationError(
        f"{who}: X is neither query ids (a DataFrame with a 'query_id' column, or a sequence of string "
        f"ids) nor one row per pooled query ({len(pool)} rows, training then test queries as given to "
        f"fit); it has {n if n is not None else 'an unknown number of'} rows. Build X from the "
        "splitter's pool_ (or pass the query ids)"
    )


class _SplitterMixin:
    """sklearn splitter protocol over the splits made by :meth:`fit`."""

    splits_: list[Split]

    def _fitted(self) -> list[Split]:
        splits = getattr(self, "splits_", None)
        if splits is None:
            raise ValidationError(f"{type(self).__name__} is not fitted; call .fit(train_queries, test_queries) first")
        return splits

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:  # noqa: N803
        """Total (train, test) pairs: regimes × splits."""
        return sum(s.get_n_splits() for s in self._fitted())

    def split(self, X: Any = None, y: Any = None, groups: Any = None) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]:  # noqa: N803
        """Yield ``(train_idx, test_idx)`` for every split and regime (interpolation first).

        :meth:`fit` must be called first (the splits are made from the query texts).

        Args:
            X: the pooled queries (``query_id`` column or a sequence of string ids), or any
                array-like with one row per pooled query in the order of ``self.pool_``
                (training queries, then test queries, as given to :meth:`fit`), e.g. a feature
                matrix; ``None`` uses ``self.pool_``.
        """
        splits = self._fitted()
        pool = self.pool_["query_id"].astype(str).tolist()  # type: ignore[attr-defined]
        ids = _positions(X, pool, type(self).__name__)
        for s in splits:
            yield from s.split(ids)


DEFAULT_K_EXCLUDE_FACTOR = 10
"""ReSTrain's default k' is this many times the interpolation depth k."""


def _check_disjoint(tr: pd.DataFrame, te: pd.DataFrame, who: str) -> None:
    overlap = sorted(set(tr["query_id"]) & set(te["query_id"]))
    if overlap:
        raise ValidationError(
            f"{who}: {len(overlap)} query id(s) occur in both the training and the test queries, e.g. "
            f"{overlap[0]!r}; a test query must not be in the training pool (it would be its own nearest "
            "training query). Remove the test queries from the training queries first, e.g. "
            "train[~train.query_id.isin(test.query_id)]"
        )


def _largest_k_exclude(idx: npt.NDArray[np.int64], interp: set[int], n_train: int, need: int,
                       k_max: int, k_min: int) -> tuple[int, bool]:
    """Largest k' in ``[k_min, k_max]`` that leaves at least ``need`` training queries outside the
    interpolation set and the top-k' of every test query; ``(k', lowered)``."""
    k_max = min(k_max, idx.shape[1])
    first = np.full(n_train, np.iinfo(np.int64).max, dtype=np.int64)  # first rank a query is met at
    for r in range(k_max - 1, -1, -1):
        col = idx[:, r]
        col = col[col >= 0]
        first[col] = r + 1
    outside = np.ones(n_train, dtype=bool)
    outside[list(interp)] = False
    ranks = first[outside]
    for k in range(k_max, k_min - 1, -1):
        if int(np.count_nonzero(ranks > k)) >= need:
            return k, k != k_max
    return k_min, k_min != k_max


def _round_robin_union(idx: npt.NDArray[np.int64], scores: npt.NDArray[np.float64], ok: npt.NDArray[np.bool_],
                       size: int) -> list[int]:
    """Union of neighbours taken rank by rank (all rank-1 neighbours, best scores first, then
    rank 2, ...) until ``size`` distinct ones are collected. Neighbours where ``ok`` is false
    (lexical similarity 0: no shared term) are never taken."""
    chosen: dict[int, None] = {}
    for r in range(idx.shape[1]):
        order = np.argsort(-scores[:, r], kind="stable")
        for i in order:
            if not ok[i, r]:
                continue
            chosen.setdefault(int(idx[i, r]), None)
            if len(chosen) >= size:
                return list(chosen)
    return list(chosen)


def _topk_union(idx: npt.NDArray[np.int64], ok: npt.NDArray[np.bool_], k: int) -> set[int]:
    """Union of every test query's top-``k`` neighbours (those where ``ok`` is true)."""
    return {int(j) for j in idx[:, :k][ok[:, :k]]}


def _largest_k_within(idx: npt.NDArray[np.int64], ok: npt.NDArray[np.bool_], size: int) -> tuple[int, int]:
    """The paper's size rule: the largest k (up to the searched depth ``idx.shape[1]``) whose top-k
    union has at most ``size`` queries; ``(k, union size)``; ``(0, n)`` when even the top-1 union
    exceeds ``size``. The caller searches deep enough (:meth:`ReSTrain._deep_enough`)."""
    union: set[int] = set()
    best = (0, 0)
    for k in range(1, idx.shape[1] + 1):
        union.update(int(j) for j in idx[:, k - 1][ok[:, k - 1]])
        if len(union) > size:
            return best if k > 1 else (0, len(union))
        best = (k, len(union))
    return best


def _lacking_nearest(idx: npt.NDArray[np.int64], ok: npt.NDArray[np.bool_], interp: set[int]) -> int:
    """Test queries whose nearest training query (an ``ok`` one) is not in ``interp``."""
    return int(sum(1 for i in range(idx.shape[0]) if ok[i, 0] and int(idx[i, 0]) not in interp))


#: the similarity methods that need no embedder (ReSTrain's ``similarity``; ReSTTest's ``vectors`` take ``"tfidf"``)
LEXICAL = ("bm25", "tfidf")


def _similarity_kind(similarity: Any) -> str:
    """``"lexical"`` (bm25/tfidf), ``"plane"`` (:class:`PlaneVectors`) or ``"embedding"``."""
    return "lexical" if _is_lexical(similarity) else "plane" if isinstance(similarity, PlaneVectors) else "embedding"


def _is_lexical(similarity: Any) -> bool:
    """``"bm25"`` / ``"tfidf"``: a score of 0 means no shared term, so such neighbours are not similar."""
    return isinstance(similarity, str)


@dataclass(frozen=True)
class FittedSplits(_SplitterMixin):
    """What :meth:`ReSTrain.fit` / :meth:`ReSTTest.fit` return: the splits, the pooled queries
    (training then test, ``pool_``), ReSTTest's ``bucket_`` frame, and ``warnings`` (degenerate
    input found while splitting). A value: sklearn's splitter protocol reads it, nothing mutates it."""

    splits_: list[Split]
    pool_: pd.DataFrame
    bucket_: pd.DataFrame | None = None
    warnings: tuple[str, ...] = ()


SIZE_RULES = ("topk", "fill")


@dataclass(frozen=True)
class ReSTrain(_SplitterMixin):
    """ReSTrain (Zhan et al. §4.1.2): same test set, similar vs. dissimilar training queries.

    Args:
        k: neighbours per test query that form the interpolation training set (their union).
            The paper's text leaves k open (it tunes k and k' for its 14k/45k/200k sets); 1 is
            the smallest and never fails.
        size: a target size of the interpolation set. How it is met is ``size_rule``.
        size_rule: ``"topk"`` (default, the paper's: the interpolation set is the union of every
            test query's top-k neighbours for the largest k whose union fits in ``size``; every
            test query keeps its nearest training query; refused, with the numbers, when even the
            top-1 union exceeds ``size``) or ``"fill"`` (ranklens: neighbours taken rank by rank
            until exactly ``size``; below the top-1 union some test queries lose their nearest
            training query -- counted and warned). The neighbour search is deepened (doubling, up
            to the whole training pool) until the union exceeds ``size`` or the pool's similar
            queries are exhausted, so the k chosen never depends on the search depth or on
            ``k_exclude``.
        k_exclude: k', neighbours per test query removed before drawing the extrapolation set.
            Default (``None``): ``10 x k`` lowered (never below k, warned) when the pool is too
            small. Recorded as ``params["k_exclude_used"]``.
        similarity: an embedder or an embedder spec (default ``Params.similarity``, ``"minilm"``:
            the paper computes query similarity with embeddings when it resamples, §4.1.1), or
            ``"bm25"`` / ``"tfidf"`` (no model download); resampling with a lexical similarity is
            a ranklens deviation, warned in ``warnings`` and recorded as
            ``params["similarity_kind"] == "lexical"``.
        seed: seeds the extrapolation subsample.
        backend: ``"exact"`` or ``"faiss"`` (embedders).

    With an embedder (the paper's), neighbours are the plain top-k by cosine, negative cosines
    included (still a valid ranking), and the test set is kept whole. With a lexical similarity
    (ranklens only), a score of 0 means no shared term and the listed neighbour is arbitrary, so
    neighbours with score <= 0 are never "similar" (``params["drop_nonpositive"]``): a test query
    without any is reported (``params["n_test_without_similar"]``,
    ``params["test_without_similar"]``), adds nothing to the interpolation set and is left out of
    the interpolation test set (it cannot be an interpolation query); it stays in the
    extrapolation test set, and paired comparisons use the queries in both.
    """

    k: int = DEFAULTS.k
    size: int | None = DEFAULTS.size
    k_exclude: int | None = DEFAULTS.k_exclude
    similarity: Any = DEFAULTS.similarity
    seed: int = 0
    backend: str = DEFAULTS.backend
    name: str | None = None
    size_rule: str = DEFAULTS.size_rule

    def __post_init__(self) -> None:
        if isinstance(self.similarity, str) and self.similarity not in LEXICAL:  # an embedder spec
            from ..specs import make_embedder

            object.__setattr__(self, "similarity", make_embedder(self.similarity))

    def params(self) -> dict[str, Any]:
        """Parameters as recorded in the split and in provenance."""
        return {"method": "restrain", "k": self.k, "size": self.size, "size_rule": self.size_rule,
                "k_exclude": self.k_exclude, "similarity": similarity_name(self.similarity), "seed": self.seed,
                "backend": self.backend}

    def _check(self, n_train: int) -> None:
        if self.k < 1:
            raise ValidationError(f"ReSTrain needs k >= 1, got {self.k}")
        if self.size_rule not in SIZE_RULES:
            raise ValidationError(f"ReSTrain size_rule must be one of {SIZE_RULES}, got {self.size_rule!r}")
        if self.k_exclude is not None and self.k_exclude < 1:
            raise ValidationError(
                f"ReSTrain needs k_exclude >= 1 (or None for the default 10 x k), got {self.k_exclude}")
        if self.size is not None and not 1 <= self.size <= n_train // 2:
            raise ValidationError(
                f"ReSTrain size must be between 1 and half the training pool ({n_train // 2}) so that an "
                f"equally large extrapolation set can exist; got size={self.size}"
            )

    def _search(self, te: pd.DataFrame, tr: pd.DataFrame, depth: int, engine: Any):
        return nearest_queries(te["text"].tolist(), tr["text"].tolist(), method=self.similarity,
                               k=min(depth, len(tr)), backend=self.backend, engine=engine)

    def _depth(self, n_test: int) -> int:
        """First search depth (a guess, deepened by :meth:`_deep_enough`; covers k' to save a search)."""
        depth = max(self.k, self.k_exclude or 0)
        if self.size is not None:
            depth = max(depth, int(np.ceil(self.size / max(n_test, 1))) * 4 + 1)
        if self.k_exclude is None:
            depth = max(depth, DEFAULT_K_EXCLUDE_FACTOR * self.k)  # one search for the default k'
        return depth

    def _similar(self, sc: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        """Which listed neighbours count as similar: score > 0 for lexical similarity, all for embedders."""
        return sc > 0 if _is_lexical(self.similarity) else np.ones(sc.shape, dtype=bool)

    def _deep_enough(self, idx: npt.NDArray[np.int64], ok: npt.NDArray[np.bool_], n_train: int) -> bool:
        """Whether the size rule can be decided at the searched depth: the whole pool is listed, no
        similar neighbour is left beyond it (lexical), or the union already passes ``size``."""
        if self.size is None or idx.shape[1] >= n_train or not ok[:, -1].any():
            return True
        n = len(_topk_union(idx, ok, idx.shape[1]))
        return n > self.size if self.size_rule == "topk" else n >= self.size

    def _interpolation(self, idx, sc, ok, n_test: int) -> tuple[list[int], int, list[str]]:
        """(interpolation set, k used, warnings)."""
        if self.size is None:
            return sorted(_topk_union(idx, ok, self.k)), self.k, []
        if self.size_rule == "topk":
            k, n = _largest_k_within(idx, ok, self.size)
            if k == 0:
                raise ValidationError(
                    f"ReSTrain size={self.size}: the nearest training queries of the {n_test} test queries are "
                    f"already {n} distinct queries, so no top-k interpolation set fits in {self.size} (the paper's "
                    f"rule gives every test query its top-k). Use size >= {n}, or size_rule='fill' to cut the "
                    "set rank by rank (some test queries then lack their nearest training query)")
            return sorted(_topk_union(idx, ok, k)), k, []
        interp = _round_robin_union(idx, sc, ok, self.size)
        if len(interp) < self.size:
            raise ValidationError(f"only {len(interp)} distinct similar neighbours found; lower size={self.size}")
        first_rank: dict[int, int] = {}
        for r in range(idx.shape[1]):
            for q in idx[:, r]:
                first_rank.setdefault(int(q), r + 1)
        lacking = _lacking_nearest(idx, ok, set(interp))
        warn = [] if not lacking else [
            f"ReSTrain size={self.size} (size_rule='fill'): {lacking} of {n_test} test queries "
            f"({lacking / max(n_test, 1):.0%}) lack their nearest training query in the interpolation set; "
            f"size_rule='topk' (the paper's) gives every test query its top-k neighbours"]
        return interp, max(first_rank[q] for q in interp), warn

    def _k_exclude(self, idx, interp: list[int], n_train: int, used_k: int) -> tuple[int, str, list[str]]:
        k_ex = self.k_exclude if self.k_exclude is not None else min(DEFAULT_K_EXCLUDE_FACTOR * used_k, n_train)
        rule = "given" if self.k_exclude is not None else f"default {DEFAULT_K_EXCLUDE_FACTOR} x k_used"
        if self.k_exclude is not None:
            return k_ex, rule, []
        k_ex, lowered = _largest_k_exclude(idx, set(interp), n_train, len(interp), k_ex, used_k)
        if not lowered:
            return k_ex, rule, []
        msg = (f"ReSTrain: removing the top-{min(DEFAULT_K_EXCLUDE_FACTOR * used_k, n_train)} training queries of "
               f"every test query (the default k' = {DEFAULT_K_EXCLUDE_FACTOR} x k) would leave fewer than the "
               f"{len(interp)} queries of the interpolation set; using k' = {k_ex}. Pass k_exclude=... to choose "
               "it, or use a smaller size/k")
        return k_ex, rule + f", lowered to {k_ex} (training pool too small)", [msg]

    def fit(self, train_queries: pd.DataFrame, test_queries: pd.DataFrame, *, engine: Any = None) -> FittedSplits:
        """Make the split; returns a :class:`FittedSplits` (``splits_``, ``pool_``, ``warnings``).

        Raises:
            ValidationError: a test query id is also a training query id (the test queries would
                be their own nearest training queries), or the sizes are impossible.
        """
        tr = _check_queries(train_queries, "train_queries")
        te = _check_queries(test_queries, "test_queries")
        _check_disjoint(tr, te, "ReSTrain")
        n_train = len(tr)
        self._check(n_train)
        idx, sc = self._search(te, tr, self._depth(len(te)), engine)
        ok = self._similar(sc)
        while not self._deep_enough(idx, ok, n_train):
            idx, sc = self._search(te, tr, 2 * idx.shape[1], engine)
            ok = self._similar(sc)
        lexical = _is_lexical(self.similarity)
        warns = [] if not lexical else [
            f"ReSTrain resamples with {self.similarity!r} similarity (lexical); the paper computes query "
            "similarity with embeddings when it resamples (§4.1.1). Pass an embedder as similarity= (the "
            "analysis default, similarity=minilm) to follow it"]
        interp, used_k, more = self._interpolation(idx, sc, ok, len(te))
        warns += more
        k_max = self.k_exclude if self.k_exclude is not None else DEFAULT_K_EXCLUDE_FACTOR * used_k
        if min(k_max, n_train) > idx.shape[1]:
            idx, sc = self._search(te, tr, k_max, engine)
            ok = self._similar(sc)
        k_ex, rule, more = self._k_exclude(idx, interp, n_train, used_k)
        warns += more
        excluded = set(np.unique(idx[:, :k_ex]).tolist()) | set(interp)
        remaining = np.array([i for i in range(n_train) if i not in excluded], dtype=np.int64)
        if len(remaining) < len(interp):
            raise ValidationError(
                f"ReSTrain: after removing the top-{k_ex} neighbours of every test query only "
                f"{len(remaining)} training queries remain, fewer than the {len(interp)} of the interpolation "
                "set; lower k/size or k_exclude"
            )
        no_sim = ~ok[:, 0]
        no_similar = int(np.count_nonzero(no_sim))
        if no_similar:
            warns.append(f"ReSTrain: {no_similar} of {len(te)} test queries have no training query with a "
                         f"positive {similarity_name(self.similarity)} similarity (no shared term); they add nothing to the "
                         "interpolation set and are kept out of the interpolation test set (they cannot be "
                         "interpolation queries); they stay in the extrapolation test set")
        extrap = np.sort(np.random.default_rng(self.seed).choice(remaining, size=len(interp), replace=False))
        ids = tr["query_id"].to_numpy(dtype=object)
        test_ids = tuple(te["query_id"].tolist())
        params = {**self.params(), "k_used": used_k, "k_exclude_used": int(k_ex), "k_exclude_rule": rule,
                  "similarity_kind": _similarity_kind(self.similarity), "drop_nonpositive": lexical,
                  "n_test_without_similar": no_similar,
                  "test_without_similar": [test_ids[i] for i in np.flatnonzero(no_sim)],
                  "n_test_lacking_nearest": _lacking_nearest(idx, ok, set(interp))}
        split = Split(name=self.name or f"restrain-n{len(interp)}", method="restrain", params=params,
                      regimes={INTERPOLATION: (tuple(ids[sorted(interp)]),
                                               tuple(q for q, z in zip(test_ids, no_sim) if not z)),
                               EXTRAPOLATION: (tuple(ids[extrap]), test_ids)})
        return FittedSplits(splits_=[split], pool_=pd.concat([tr, te], ignore_index=True), warnings=tuple(warns))


@dataclass(frozen=True)
class ReSTTest(_SplitterMixin):
    """ReSTTest (Zhan et al. §4.1.3): k-means buckets over training and test queries, leave one out.

    Args:
        n_buckets: K (the paper: 5).
        vectors: an embedder (the paper clusters dense query embeddings; its vectors are
            L2-normalised) or ``"tfidf"`` (ranklens: sparse TF-IDF, which gives lopsided buckets).
        seed: k-means seed.
        n_init: k-means restarts.
    """

    n_buckets: int = DEFAULTS.buckets
    vectors: Any = "tfidf"
    seed: int = 0
    n_init: int = 10
    name: str = "resttest"

    def params(self) -> dict[str, Any]:
        """Parameters as recorded in the splits and in provenance."""
        return {"method": "resttest", "n_buckets": self.n_buckets, "vectors": similarity_name(self.vectors),
                "seed": self.seed, "n_init": self.n_init}

    def buckets(self, texts: Sequence[str], *, engine: Any = None) -> npt.NDArray[np.int64]:
        """k-means bucket of every text (sklearn ``KMeans``; buckets renumbered by size, largest first)."""
        from sklearn.cluster import KMeans

        if self.n_buckets < 2:
            raise ValidationError(f"ReSTTest needs n_buckets >= 2, got {self.n_buckets}")
        if len(texts) < self.n_buckets:
            raise ValidationError(f"ReSTTest: {len(texts)} queries cannot fill {self.n_buckets} buckets")
        if isinstance(self.vectors, str):
            if self.vectors != "tfidf":
                raise ValidationError(f"vectors must be 'tfidf' or an embedder, got {self.vectors!r}")
            x, _ = tfidf_vectors(texts)
        elif isinstance(self.vectors, PlaneVectors):
            x = self.vectors.vectors(list(texts))  # fixed coordinates, as they are (Fig. 1)
        else:
            from .similarity import embed_queries

            x = embed_queries(self.vectors, texts, engine=engine)
        labels = KMeans(n_clusters=self.n_buckets, n_init=self.n_init, random_state=self.seed).fit_predict(x)
        counts = np.bincount(labels, minlength=self.n_buckets)
        rank = np.empty(self.n_buckets, dtype=np.int64)
        rank[np.lexsort((np.arange(self.n_buckets), -counts))] = np.arange(self.n_buckets)
        return rank[labels]

    def fit(self, train_queries: pd.DataFrame, test_queries: pd.DataFrame, *, engine: Any = None) -> FittedSplits:
        """Cluster, then make one :class:`Split` per bucket; returns a :class:`FittedSplits` whose
        ``bucket_`` holds the bucket of every pooled query (``pool_``)."""
        tr = _check_queries(train_queries, "train_queries")
        te = _check_queries(test_queries, "test_queries")
        _check_disjoint(tr, te, "ReSTTest")
        pool = pd.concat([tr, te], ignore_index=True)
        b = self.buckets(pool["text"].tolist(), engine=engine)
        b_tr, b_te = b[: len(tr)], b[len(tr):]
        splits = []
        for i in range(self.n_buckets):
            train_ids = tuple(tr["query_id"][b_tr != i])
            splits.append(Split(
                name=f"{self.name}-fold{i}", method="resttest", fold=i, params=self.params(),
                regimes={INTERPOLATION: (train_ids, tuple(te["query_id"][b_te != i])),
                         EXTRAPOLATION: (train_ids, tuple(te["query_id"][b_te == i]))},
            ))
        bucket = pd.DataFrame({"query_id": pool["query_id"], "part": ["train"] * len(tr) + ["test"] * len(te),
                               "bucket": b})
        return FittedSplits(splits_=splits, pool_=pool, bucket_=bucket,
                            warnings=_bucket_warnings(bucket, self.n_buckets, self.vectors == "tfidf"))


def _bucket_warnings(bucket: pd.DataFrame, k: int, tfidf: bool = True) -> tuple[str, ...]:
    """Lopsided buckets: a bucket holding over half of the training or test queries, or none."""
    hint = ("embedding vectors cluster more evenly than TF-IDF" if tfidf else
            "a fold without extrapolation test queries adds nothing to that regime; small test sets give small "
            "buckets")
    out = []
    for part in ("train", "test"):
        counts = np.bincount(bucket.loc[bucket["part"] == part, "bucket"].to_numpy(), minlength=k)
        total = int(counts.sum())
        if total and (counts.max() > total / 2 or (counts == 0).any()):
            out.append(f"ReSTTest: lopsided buckets of {part} queries {counts.tolist()} (one bucket holds "
                       f"{counts.max() / total:.0%}); {hint}")
    return tuple(out)


def split_similarity_stats(
    split: Split,
    queries: pd.DataFrame,
    *,
    method: Any = "bm25",
    engine: Any = None,
) -> pd.DataFrame:
    """Per regime: how similar each test query is to its nearest training query of that regime.

    Args:
        split: the split.
        queries: all queries (training and test) with ``query_id`` and ``text``.
        method: similarity (see :func:`~ranklens.regimes.similarity.nearest_queries`).

    Returns:
        One row per regime: ``split``, ``regime``, ``n_train``, ``n_test``, ``nn_mean``,
        ``nn_median``, ``nn_q10``, ``nn_q90``.
    """
    q = _check_queries(queries, "queries")
    text = dict(zip(q["query_id"], q["text"]))
    rows = []
    for regime in _ordered(split.regimes):
        tr, te = split.regimes[regime]
        missing = [x for x in (*tr, *te) if x not in text]
        if missing:
            raise ValidationError(f"queries lack text for query id {missing[0]!r} ({len(missing)} in all)")
        if tr and te:
            _, sc = nearest_queries([text[x] for x in te], [text[x] for x in tr], method=method, k=1, engine=engine)
            nn = sc[:, 0]
        else:
            nn = np.zeros(0)
        rows.append({
            "split": split.name, "regime": regime, "n_train": len(tr), "n_test": len(te),
            "nn_mean": float(nn.mean()) if len(nn) else float("nan"),
            "nn_median": float(np.median(nn)) if len(nn) else float("nan"),
            "nn_q10": float(np.quantile(nn, 0.1)) if len(nn) else float("nan"),
            "nn_q90": float(np.quantile(nn, 0.9)) if len(nn) else float("nan"),
        })
    return pd.DataFrame(rows)


def read_published_split(directory: str | os.PathLike[str], *, test_ids: Any = None,
                         test_set: str = "dev") -> Split:
    """One published split directory of the authors (jingtaozhan/extrapolate-eval) as a :class:`Split`.

    Args:
        directory: a ``restrain_files/<corpus>/<size>`` or ``resttest_files/<corpus>/bucket-<n>``
            directory of extrapolate-eval (the layout: :mod:`.published`).
        test_ids: ReSTrain only: the unchanged test query ids (the paper: TREC DL 2019 + 2020);
            a sequence of ids or a DataFrame with ``query_id``.
        test_set: ReSTTest only: ``dev``, ``trec19`` or ``trec20`` (which test qrels to read).

    Raises:
        DataFormatError: a file of the layout is missing or malformed (named).
        ValidationError: ReSTrain without ``test_ids``, or an unknown ``test_set``.
    """
    from .published import published_split_fields

    return Split(**published_split_fields(directory, test_ids=test_ids, test_set=test_set))


def read_published_splits(root: str | os.PathLike[str], *, test_ids: Any = None,
                          test_set: str = "dev") -> list[Split]:
    """Every published split directory under ``root`` (sorted by path), e.g. all three ReSTrain
    sizes under ``restrain_files/msmarco-passage`` or the five buckets under
    ``resttest_files/msmarco-passage``."""
    from .published import published_split_dirs

    return [read_published_split(p, test_ids=test_ids, test_set=test_set) for p in published_split_dirs(root)]
