"""The one path for model calls: deduplicate, cache, batch (length-sorted), dispatch, align.

Every analysis scores pairs with :func:`score_pairs` (or ``engine.score``) and encodes texts with
:func:`encode_texts` (or ``engine.encode``). Nothing else calls a ranker or embedder.

Flow for ``score(ranker, queries, texts)``:

1. hash each query and text (SHA-256) and keep one entry per distinct pair;
2. look the distinct pairs up in the cache under the ranker's ``fingerprint``;
3. sort the misses by length (less padding), cut them into batches of ``batch_size``;
4. hand the batches to a :class:`Dispatcher` (local by default; a distributed one can be
   plugged in without touching any analysis), committing each finished batch to the cache;
5. return the scores in the input order.

The cache is persistent (SQLite, see :mod:`ranklens.engine.cache`) unless disabled with
``RANKLENS_NO_CACHE=1`` / ``--no-cache``; a killed run keeps every finished batch.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from .._progress import progress
from ..errors import ValidationError
from ..rankers.base import check_pairs
from .cache import MemoryCache, ScoreCache, SQLiteCache, default_cache_dir, digest

__all__ = [
    "BatchCall",
    "Dispatcher",
    "EngineStats",
    "LocalDispatcher",
    "MemoryCache",
    "SQLiteCache",
    "ScoringEngine",
    "default_cache_dir",
    "default_engine",
    "encode_texts",
    "make_dispatcher",
    "score_pairs",
    "set_default_engine",
]

Batch = tuple[int, list[int]]  # (batch number, positions into the list of misses)


class Dispatcher(Protocol):
    """Runs model calls on batches. ``run`` yields ``(batch_number, result)`` as batches finish,
    in any order, each batch exactly once; the engine commits each result to the cache as it
    arrives (the engine's process stays the only writer of the cache).

    ``call`` is a :class:`BatchCall`: ``call(positions)`` runs the batch here; a dispatcher that
    runs it elsewhere ships ``call.component`` once and, per batch, ``call.inputs(positions)``,
    applies ``call.method`` there and passes the raw output through ``call.check`` here."""

    def run(self, call: Callable[[list[int]], Any], batches: Sequence[Batch]) -> Iterator[tuple[int, Any]]: ...


@dataclass(frozen=True)
class BatchCall:
    """One model call per batch, as data: ``component.<method>(*inputs(positions))``, its raw
    output checked by ``check(raw, inputs)`` (shape, finiteness) in the engine's process.
    ``key`` is the component's fingerprint (a remote worker keeps one replica per key)."""

    component: Any
    method: str
    key: str
    inputs: Callable[[list[int]], tuple[list[str], ...]]
    check: Callable[[Any, tuple[list[str], ...]], Any]

    def __call__(self, positions: list[int]) -> Any:
        args = self.inputs(positions)
        return self.check(getattr(self.component, self.method)(*args), args)


class LocalDispatcher:
    """Calls the model in this process, one batch after the other."""

    def run(self, call, batches):
        for number, positions in batches:
            yield number, call(positions)


def make_dispatcher(spec: str | Mapping[str, Any] | None) -> Dispatcher:
    """The dispatcher an engine spec names: ``"local"`` (or empty), ``"ray"`` (a local Ray),
    ``"ray:ADDRESS"`` (an existing cluster, e.g. ``ray:auto`` or ``ray:ray://head:10001``), or
    an experiment file's ``[engine]`` table ``{type = "ray", address = ..., actors = ...,
    threads_per_actor = ..., gpus_per_actor = ..., in_flight = ..., max_retries = ...}``."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in {"", "local"}):
        return LocalDispatcher()
    if isinstance(spec, str):
        kind, _, address = spec.strip().partition(":")
        options: dict[str, Any] = {"type": kind.lower(), "address": address or None}
    elif isinstance(spec, Mapping):
        options = dict(spec)
        options["type"] = str(options.get("type", "local")).lower()
    else:
        raise ValidationError(f"engine: expected 'local', 'ray' or 'ray:ADDRESS', got {spec!r}")
    kind = options.pop("type")
    if kind == "local" and not {k for k, v in options.items() if v is not None}:
        return LocalDispatcher()
    if kind != "ray":
        raise ValidationError(f"engine: unknown engine {kind!r}; use 'local', 'ray' or 'ray:ADDRESS' "
                              "(--engine, RANKLENS_ENGINE or an experiment's [engine] table)")
    from .ray import RayDispatcher

    return RayDispatcher.from_options(options)


@dataclass
class EngineStats:
    """Counters of the engine since creation (or :meth:`ScoringEngine.reset_stats`)."""

    pairs_requested: int = 0
    pairs_distinct: int = 0
    pairs_cached: int = 0
    pairs_scored: int = 0  # pairs sent to a model
    texts_requested: int = 0
    texts_distinct: int = 0
    texts_cached: int = 0
    texts_encoded: int = 0
    batches: int = 0
    by_fingerprint: dict[str, int] = field(default_factory=dict)  # model calls per component

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _batch_size(component: Any, default: int) -> int:
    bs = getattr(component, "batch_size", None)
    return int(bs) if isinstance(bs, int) and bs > 0 else default


def _fingerprint(component: Any) -> str:
    fp = getattr(component, "fingerprint", None)
    if not isinstance(fp, str) or not fp:
        raise ValidationError(
            f"{type(component).__name__} has no string 'fingerprint'; rankers and embedders need a "
            "stable fingerprint (class, parameters, model revision) for caching"
        )
    return fp


class ScoringEngine:
    """Deduplicating, caching, batching front of every model call.

    Args:
        cache: a cache object, a path (file or directory) for an SQLite cache, ``None`` for the
            default on-disk cache, or ``False`` for an in-memory cache (nothing persisted).
        batch_size: pairs/texts per model call when the component has no ``batch_size``.
        dispatcher: runs the batches (default: :class:`LocalDispatcher`).
        show_progress: progress bar on stderr (``None``: auto, see ``RANKLENS_PROGRESS``).
    """

    def __init__(
        self,
        cache: ScoreCache | str | os.PathLike[str] | bool | None = None,
        *,
        batch_size: int = 32,
        dispatcher: Dispatcher | None = None,
        show_progress: bool | None = None,
    ) -> None:
        if cache is False:
            self.cache: ScoreCache = MemoryCache()
        elif cache is None or cache is True:
            self.cache = SQLiteCache(default_cache_dir())
        elif isinstance(cache, (str, os.PathLike)):
            self.cache = SQLiteCache(Path(cache))
        else:
            self.cache = cache
        if batch_size < 1:
            raise ValidationError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self.dispatcher: Dispatcher = dispatcher or LocalDispatcher()
        self.show_progress = show_progress
        self.stats = EngineStats()

    def __repr__(self) -> str:
        where = getattr(self.cache, "path", type(self.cache).__name__)
        return f"ScoringEngine(cache={where!s}, batch_size={self.batch_size})"

    def reset_stats(self) -> None:
        self.stats = EngineStats()

    # ------------------------------------------------------------------ scoring
    def score(
        self,
        ranker: Any,
        queries: Sequence[str],
        texts: Sequence[str],
        *,
        desc: str | None = None,
    ) -> npt.NDArray[np.float64]:
        """Scores of ``ranker`` for aligned (query, text) pairs, in input order."""
        check_pairs(queries, texts)
        fp = _fingerprint(ranker)
        n = len(queries)
        self.stats.pairs_requested += n
        if n == 0:
            return np.zeros(0, dtype=np.float64)
        qcache: dict[str, bytes] = {}
        tcache: dict[str, bytes] = {}
        keys: list[tuple[bytes, bytes]] = []
        for q, t in zip(queries, texts):
            qh = qcache.get(q)
            if qh is None:
                qh = qcache[q] = digest(q)
            th = tcache.get(t)
            if th is None:
                th = tcache[t] = digest(t)
            keys.append((qh, th))
        first: dict[tuple[bytes, bytes], int] = {}
        for i, k in enumerate(keys):
            first.setdefault(k, i)
        distinct = list(first)
        self.stats.pairs_distinct += len(distinct)
        found = self.cache.get_scores(fp, distinct)
        self.stats.pairs_cached += len(found)
        misses = [k for k in distinct if k not in found]
        if misses:
            pos = [first[k] for k in misses]
            order = sorted(range(len(misses)), key=lambda j: len(queries[pos[j]]) + len(texts[pos[j]]))
            bs = _batch_size(ranker, self.batch_size)
            batches = [(b, order[s : s + bs]) for b, s in enumerate(range(0, len(order), bs))]

            def inputs(positions: list[int]) -> tuple[list[str], list[str]]:
                return [queries[pos[j]] for j in positions], [texts[pos[j]] for j in positions]

            def check(raw: Any, args: tuple[list[str], list[str]]) -> npt.NDArray[np.float64]:
                qs, ts = args
                out = np.asarray(raw, dtype=np.float64)
                if out.shape != (len(qs),):
                    raise ValidationError(
                        f"{type(ranker).__name__}.score returned shape {out.shape} for "
                        f"{len(qs)} pairs"
                    )
                if not np.all(np.isfinite(out)):
                    bad = int(np.flatnonzero(~np.isfinite(out))[0])
                    raise ValidationError(
                        f"{type(ranker).__name__}.score returned a non-finite score ({out[bad]}) "
                        f"for query {qs[bad][:80]!r} and text {ts[bad][:80]!r}"
                    )
                return out

            def store(positions: list[int], out: Any) -> None:
                items = [(misses[j][0], misses[j][1], float(s)) for j, s in zip(positions, out)]
                self.cache.put_scores(fp, items)
                for (qh, th, s) in items:
                    found[(qh, th)] = s

            self._run_batches(BatchCall(ranker, "score", fp, inputs, check), batches, store,
                              desc=desc or f"scoring {_short(fp)}", unit="pair", counter="pairs_scored")
        scores = np.fromiter((found[k] for k in keys), dtype=np.float64, count=n)
        if not np.isfinite(scores).all():  # only a cache written before this check can hold them
            raise ValidationError(f"ranker {fp}: the cache holds non-finite scores; clear them with "
                                  f"`ranklens cache clear --fingerprint {fp}`")
        return scores

    # ------------------------------------------------------------------ encoding
    def encode(
        self,
        embedder: Any,
        texts: Sequence[str],
        *,
        desc: str | None = None,
    ) -> npt.NDArray[np.float32]:
        """Embeddings of ``texts`` (float32, ``(n, d)``), in input order.

        Streams: each batch's vectors go to the cache and straight into the output; nothing
        else of the call is kept once it returns.
        """
        fp, keys, first = self._text_keys(embedder, texts)
        distinct = list(first)
        found = self.cache.get_vectors(fp, distinct)
        self.stats.texts_cached += len(found)
        uniq: np.ndarray | None = None
        slot = {k: j for j, k in enumerate(distinct)}

        def place(rows: list[int], vecs: np.ndarray) -> None:
            nonlocal uniq
            if uniq is None:
                uniq = np.empty((len(distinct), vecs.shape[1]), np.float32)
            if vecs.shape[1] != uniq.shape[1]:
                raise ValidationError(
                    f"embedder {fp} produced vectors of different dimensions {sorted({vecs.shape[1], uniq.shape[1]})} "
                    "(a stale cache entry? clear it with `ranklens cache clear`)")
            uniq[rows] = vecs

        if found:
            place([slot[k] for k in found], np.stack(list(found.values())))
        misses = [k for k in distinct if k not in found]
        del found
        self._encode_misses(embedder, fp, texts, misses, first, desc,
                            lambda ks, vecs: place([slot[k] for k in ks], vecs))
        if uniq is None:
            return np.zeros((0, 0), dtype=np.float32)
        if not np.isfinite(uniq).all():  # only a cache written before this check can hold them
            raise ValidationError(f"embedder {fp}: the cache holds non-finite vectors; clear them with "
                                  f"`ranklens cache clear --fingerprint {fp}`")
        if len(distinct) == len(keys):
            return uniq
        return uniq[np.fromiter((slot[k] for k in keys), dtype=np.int64, count=len(keys))]

    def encode_stored(self, embedder: Any, texts: Sequence[str], *, unit: bool = False,
                      desc: str | None = None) -> Any:
        """The embeddings of ``texts`` as a read-only view on the cache's vector store
        (:class:`~ranklens.engine.vectors.StoredVectors`: rows read from the memory-mapped
        shards block by block, L2-normalised as read with ``unit=True``), encoding the missing
        ones first; ``None`` when the cache has no vector store (``--no-cache``)."""
        store = getattr(self.cache, "vector_store", None)
        if store is None:
            return None
        fp, keys, first = self._text_keys(embedder, texts)
        distinct = list(first)
        misses = set(store.missing(fp, distinct))
        self.stats.texts_cached += len(distinct) - len(misses)
        self._encode_misses(embedder, fp, texts, [k for k in distinct if k in misses], first, desc, None)
        if not keys:
            return None
        return store.view(fp, keys, unit=unit)

    def _text_keys(self, embedder: Any, texts: Sequence[str]) -> tuple[str, list[bytes], dict[bytes, int]]:
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise ValidationError(f"texts[{i}] must be str, got {type(t).__name__}: {t!r:.80}")
        fp = _fingerprint(embedder)
        self.stats.texts_requested += len(texts)
        keys = [digest(t) for t in texts]
        first: dict[bytes, int] = {}
        for i, k in enumerate(keys):
            first.setdefault(k, i)
        self.stats.texts_distinct += len(first)
        return fp, keys, first

    def _encode_misses(self, embedder: Any, fp: str, texts: Sequence[str], misses: list[bytes],
                       first: dict[bytes, int], desc: str | None,
                       sink: Callable[[list[bytes], np.ndarray], None] | None) -> None:
        """Encode the texts of ``misses`` in length-sorted batches; each finished batch goes to the
        cache, then to ``sink(keys, vectors)``."""
        if not misses:
            return
        pos = [first[k] for k in misses]
        order = sorted(range(len(misses)), key=lambda j: len(texts[pos[j]]))
        bs = _batch_size(embedder, self.batch_size)
        batches = [(b, order[s : s + bs]) for b, s in enumerate(range(0, len(order), bs))]

        def inputs(positions: list[int]) -> tuple[list[str]]:
            return ([texts[pos[j]] for j in positions],)

        def check(raw: Any, args: tuple[list[str]]) -> npt.NDArray[np.float32]:
            return _checked_vectors(embedder, raw, args[0])

        def store(positions: list[int], out: Any) -> None:
            ks = [misses[j] for j in positions]
            self.cache.put_vectors(fp, list(zip(ks, out)))
            if sink is not None:
                sink(ks, out)

        # a remote dispatcher ships each batch's texts, not the whole list
        self._run_batches(BatchCall(embedder, "encode", fp, inputs, check), batches, store,
                          desc=desc or f"encoding {_short(fp)}", unit="text", counter="texts_encoded")

    def _run_batches(self, call: BatchCall, batches: list[tuple[int, list[int]]],
                     store: Callable[[list[int], Any], None], *, desc: str, unit: str, counter: str) -> None:
        """The one batch loop of scoring and encoding: each batch the dispatcher finishes goes to
        ``store(positions, output)`` (the cache first), then into the stats and the progress bar."""
        total = sum(len(positions) for _, positions in batches)
        bar = progress(total=total, desc=desc, unit=unit, show=self.show_progress)
        token = _ACTIVE.set(self)
        try:
            for number, out in self.dispatcher.run(call, batches):
                positions = batches[number][1]
                store(positions, out)
                self.stats.batches += 1
                setattr(self.stats, counter, getattr(self.stats, counter) + len(positions))
                self.stats.by_fingerprint[call.key] = (self.stats.by_fingerprint.get(call.key, 0)
                                                               + len(positions))
                bar.update(len(positions))
        finally:
            _ACTIVE.reset(token)
            bar.close()


def _checked_vectors(embedder: Any, raw: Any, texts: list[str]) -> npt.NDArray[np.float32]:
    """An embedder's output for ``texts`` as float32 ``(n, d)``, refused (never cached) when its
    shape is wrong or a value is NaN/infinite -- the check scores get."""
    name = type(embedder).__name__
    try:
        out = np.asarray(raw, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{name}.encode returned something that is not a numeric matrix ({exc})") from None
    if out.ndim != 2 or out.shape[0] != len(texts) or out.shape[1] == 0:
        raise ValidationError(f"{name}.encode returned shape {out.shape} for {len(texts)} texts; "
                              f"expected ({len(texts)}, dim)")
    bad = ~np.isfinite(out).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{name}.encode returned a non-finite vector (NaN or inf; {int(bad.sum())} of "
                              f"{len(texts)} texts) for text {texts[i][:80]!r}; fix the embedder -- nothing "
                              f"of this batch was cached")
    return out


def _short(fp: str) -> str:
    return fp.split("@")[0]


_DEFAULT: ScoringEngine | None = None
_LOCK = threading.Lock()
# The engine whose batch is being computed: a model that itself calls the engine (a bi-encoder
# ranker encoding through it, a passage ranker scoring passages) uses the same engine -- and so
# the same cache -- as its caller, not the process-wide default.
_ACTIVE: contextvars.ContextVar[ScoringEngine | None] = contextvars.ContextVar("ranklens_engine", default=None)


def default_engine() -> ScoringEngine:
    """The process-wide engine: on-disk cache under :func:`default_cache_dir`, or in-memory when
    ``RANKLENS_NO_CACHE`` is set to a true value; batches run where ``RANKLENS_ENGINE`` says
    (``local`` by default, ``ray`` or ``ray:ADDRESS``; see :func:`make_dispatcher`)."""
    global _DEFAULT
    with _LOCK:
        if _DEFAULT is None:
            no_cache = os.environ.get("RANKLENS_NO_CACHE", "").strip().lower() in {"1", "true", "yes", "on"}
            _DEFAULT = ScoringEngine(cache=False if no_cache else None,
                                     dispatcher=make_dispatcher(os.environ.get("RANKLENS_ENGINE")))
        return _DEFAULT


def set_default_engine(engine: ScoringEngine | None) -> None:
    """Replace (or with ``None`` reset) the process-wide engine."""
    global _DEFAULT
    with _LOCK:
        _DEFAULT = engine


def score_pairs(
    ranker: Any, queries: Sequence[str], texts: Sequence[str], *, engine: ScoringEngine | None = None,
    desc: str | None = None,
) -> npt.NDArray[np.float64]:
    """Score aligned pairs through ``engine`` (default: the engine whose batch is being computed,
    if any, else :func:`default_engine`)."""
    return (engine or _ACTIVE.get() or default_engine()).score(ranker, queries, texts, desc=desc)


def encode_texts(
    embedder: Any, texts: Sequence[str], *, engine: ScoringEngine | None = None, desc: str | None = None
) -> npt.NDArray[np.float32]:
    """Encode texts through ``engine`` (default: the engine whose batch is being computed, if
    any, else :func:`default_engine`)."""
    return (engine or _ACTIVE.get() or default_engine()).encode(embedder, texts, desc=desc)
