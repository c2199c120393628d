"""Model batches on a Ray cluster: :class:`RayDispatcher`, an :class:`~ranklens.engine.Dispatcher`.

Model replicas are Ray actors: one per GPU where the cluster has GPUs, otherwise ``actors``
single-threaded CPU actors (default: one per CPU of the cluster). The engine hands the dispatcher
its batches; the dispatcher ships the component once per actor (by fingerprint), sends each
batch's texts, keeps at most ``in_flight`` batches queued per actor (back-pressure: a corpus of
millions of pairs never sits in the object store at once), and yields results to the engine as
they finish. The engine's process stays the only writer of the SQLite cache, so a killed driver
resumes from the cache exactly as with the local dispatcher.

Faults: an actor that dies (its process killed, its node lost) fails its queued batches with a
``RayActorError``; those batches go back to the queue and run on another actor (a replacement
actor is started), up to ``max_retries`` times each. A batch result is yielded once only (a late
duplicate is dropped), so no score is lost or written twice. An error raised by the model itself
is not retried: it is re-raised in the engine's process as the model's own exception.

Models that call the engine themselves (a bi-encoder ranker encoding through it) use an
in-memory engine inside the actor, one per actor and dispatcher run (a fresh one when a run's
first batch arrives): nothing but the driver writes the on-disk cache, and the actor's vectors
stay within the in-memory cache's budget (:class:`~ranklens.engine.cache.MemoryCache`, 64 MiB;
beyond it vectors are computed, not kept). A bi-encoder's query therefore is encoded once per
actor and run, as the local dispatcher encodes it once per run, not once per batch: batches are cut from pairs sorted by length, so one batch holds
pairs of many queries (MiniLM on 5,000 NPL pairs: 49 distinct queries, about 20 of them in each
32-pair batch -- per-batch engines re-encoded about 3,000 queries).

Selected with ``ranklens --engine ray[:ADDRESS]``, ``RANKLENS_ENGINE=ray[:ADDRESS]`` or an
experiment file's ``[engine]`` table; a local ``ray.init()`` by default, ``address`` for an
existing cluster (``auto``, ``ray://head:10001``). Needs the optional extra ``ranklens[ray]``.
"""

from __future__ import annotations

import collections
import copy
import os
import sys
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ..errors import RanklensError, ValidationError

__all__ = ["RayDispatcher"]


class EngineError(RanklensError):
    """A batch could not be computed on the cluster (every retry lost its actor)."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ValidationError("the Ray engine needs Ray: pip install 'ranklens[ray]' (or pip install ray)") from None
    return ray


class _Replica:
    """The body of a model actor: keeps a few component replicas (by fingerprint), applies one
    method per batch. Single-threaded unless ``threads`` says otherwise."""

    def __init__(self, threads: int, keep: int) -> None:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ[var] = str(threads)
        os.environ.setdefault("RANKLENS_PROGRESS", "0")
        self.threads = threads
        self.keep = keep
        self.models: collections.OrderedDict[str, Any] = collections.OrderedDict()
        self.engine: Any = None  # the in-memory engine of the models' own engine calls
        self.run_id: str | None = None  # the dispatcher run it belongs to

    def pid(self) -> int:
        return os.getpid()

    def forget(self, key: str) -> None:
        self.models.pop(key, None)

    def _limit_threads(self) -> None:
        torch = sys.modules.get("torch")
        if torch is not None and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)

    def apply(self, key: str, holder: list[Any], method: str, args: tuple[list[str], ...],
              run_id: str | None = None) -> Any:
        import numpy as np

        model = self.models.get(key)
        if model is None:
            import ray

            model = ray.get(holder[0])
            self.models[key] = model
            while len(self.models) > self.keep:
                self.models.popitem(last=False)
        self.models.move_to_end(key)
        self._limit_threads()
        from . import _ACTIVE, ScoringEngine

        # a model's own engine calls (a bi-encoder ranker encoding) run here on the actor's
        # in-memory engine: the driver stays the only writer of the on-disk cache, and the
        # in-memory cache's vector budget bounds the actor's memory (module docstring)
        if self.engine is None or run_id != self.run_id:
            self.engine = ScoringEngine(cache=False, show_progress=False)
            self.run_id = run_id
        token = _ACTIVE.set(self.engine)
        try:
            out = getattr(model, method)(*args)
        finally:
            _ACTIVE.reset(token)
        self._limit_threads()  # a model that imported torch on its first call
        if method == "__call__" or isinstance(out, np.ndarray):  # a plain callable's result goes back as is
            return out
        try:
            return np.asarray(out)  # one buffer instead of a pickled list
        except (TypeError, ValueError):
            return out  # the engine's check names what is wrong with it


def _shippable(component: Any, depth: int = 2) -> Any:
    """A shallow copy without loaded models (``_loaded``, also in the components it holds, e.g.
    a bi-encoder ranker's embedder): each actor loads its own replica instead of unpickling the
    driver's weights. The component itself is left unchanged."""
    attrs = getattr(component, "__dict__", None)
    if not isinstance(attrs, dict) or depth == 0:
        return component
    changes = {k: _shippable(v, depth - 1) for k, v in attrs.items() if hasattr(v, "__dict__") and k != "_loaded"}
    changes = {k: v for k, v in changes.items() if v is not attrs[k]}
    if attrs.get("_loaded") is not None:
        changes["_loaded"] = None
    if not changes:
        return component
    clone = copy.copy(component)
    for k, v in changes.items():
        object.__setattr__(clone, k, v)
    return clone


def _is_lost_actor(exc: BaseException, ray: Any) -> bool:
    lost = (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
            ray.exceptions.ObjectLostError)
    return isinstance(exc, lost)


@dataclass
class RayDispatcher:
    """Runs the engine's batches on Ray actors (see the module docstring).

    Args:
        address: ``None`` for a local Ray started on first use (or the one already initialised in
            this process), else a cluster address (``auto``, ``ray://host:10001``).
        actors: model replicas; default one per GPU of the cluster, else one per CPU.
        threads_per_actor: CPU threads each replica may use (torch, BLAS); default 1.
        gpus_per_actor: GPUs each replica reserves; default 1 on a cluster with GPUs, else 0.
        in_flight: batches queued per actor (back-pressure).
        max_retries: times a batch is re-sent after losing its actor before the run fails.
        keep_models: component replicas an actor keeps loaded (least recently used dropped).
        start_timeout: seconds the actors may take to start (placed on the cluster) before
            the run is refused with the resources they asked for.
        worker_niceness: the ``nice`` value of the workers of a local Ray this dispatcher
            starts. Ray's default is 15, which makes the model replicas yield to every other
            process of a shared machine; 0 runs them at the driver's priority. A cluster keeps
            its own setting (``RAY_worker_niceness`` when it was started).
    """

    address: str | None = None
    actors: int | None = None
    threads_per_actor: int = 1
    gpus_per_actor: float | None = None
    in_flight: int = 2
    max_retries: int = 3
    keep_models: int = 2
    start_timeout: float = 120.0
    worker_niceness: int = 0
    retried: int = field(default=0, init=False)  # batches re-sent after a lost actor, all runs
    _pool: list[Any] = field(default_factory=list, init=False, repr=False)
    _started_ray: bool = field(default=False, init=False, repr=False)
    _spec: tuple[float, float] = field(default=(1.0, 0.0), init=False, repr=False)  # (CPUs, GPUs) per actor

    def __post_init__(self) -> None:
        for name in ("actors", "threads_per_actor", "in_flight", "keep_models"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise ValidationError(f"engine: {name} must be an integer >= 1, got {v!r}")
        if not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValidationError(f"engine: max_retries must be an integer >= 0, got {self.max_retries!r}")
        if not isinstance(self.start_timeout, (int, float)) or self.start_timeout <= 0:
            raise ValidationError(f"engine: start_timeout must be > 0 seconds, got {self.start_timeout!r}")
        if self.gpus_per_actor is not None and not (0 <= float(self.gpus_per_actor) <= 64):
            raise ValidationError(f"engine: gpus_per_actor must be >= 0, got {self.gpus_per_actor!r}")

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> RayDispatcher:
        """From an ``[engine]`` table (its ``type`` removed); unknown keys are refused by name."""
        known = {f.name for f in fields(cls) if f.init}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValidationError(f"engine: unknown key(s) {unknown} for type 'ray'; valid keys: "
                                  f"{sorted(known | {'type'})}")
        return cls(**{k: v for k, v in options.items() if v is not None})

    # ------------------------------------------------------------------ the pool
    def _init(self) -> Any:
        ray = _ray()
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "configure_logging": False}
            if self.address is None:  # a local Ray: its workers at the driver's priority (below)
                kwargs["_system_config"] = {"worker_niceness": self.worker_niceness}
            try:
                ray.init(address=self.address, **kwargs)
            except Exception as exc:  # noqa: BLE001 -- Ray raises many kinds; name the address and fix
                where = self.address or "a local Ray"
                raise ValidationError(f"engine: cannot start or reach {where} ({exc}); check the address "
                                      "(--engine ray:ADDRESS) or run `ray start --head`") from None
            self._started_ray = True
        return ray

    def _shape(self, ray: Any) -> tuple[int, float, float]:
        res = ray.cluster_resources()
        gpus = float(res.get("GPU", 0))
        per_gpu = float(self.gpus_per_actor) if self.gpus_per_actor is not None else (1.0 if gpus >= 1 else 0.0)
        if self.actors is not None:
            n = self.actors
        elif per_gpu > 0:
            n = max(1, int(gpus // per_gpu))
        else:
            n = max(1, int(float(res.get("CPU", 1)) // self.threads_per_actor))
        return n, float(self.threads_per_actor), per_gpu

    def _new_actor(self, ray: Any, cpus: float, gpus: float) -> Any:
        remote = ray.remote(_Replica).options(num_cpus=cpus, num_gpus=gpus, max_restarts=0,
                                              max_concurrency=1)
        return remote.remote(self.threads_per_actor, self.keep_models)

    def _ensure_pool(self) -> Any:
        ray = self._init()
        if not self._pool:
            n, cpus, gpus = self._shape(ray)
            self._spec = (cpus, gpus)
            pool = [self._new_actor(ray, cpus, gpus) for _ in range(n)]
            ready, _ = ray.wait([a.pid.remote() for a in pool], num_returns=n, timeout=self.start_timeout)
            if len(ready) < n:
                for a in pool:
                    ray.kill(a)
                free = ray.available_resources()
                raise ValidationError(
                    f"engine: only {len(ready)} of {n} Ray actors ({cpus:g} CPU, {gpus:g} GPU each) started in "
                    f"{self.start_timeout:g} s; the cluster has {free.get('CPU', 0):g} CPUs and {free.get('GPU', 0):g} "
                    "GPUs free -- ask for fewer actors ([engine] actors = N) or free the cluster")
            self._pool = pool
        return ray

    def actor_pids(self) -> list[int]:
        """Process ids of the model actors (started if needed): what a fault test kills."""
        ray = self._ensure_pool()
        return ray.get([a.pid.remote() for a in self._pool])

    def close(self) -> None:
        """Stop the actors (and the local Ray this dispatcher started)."""
        if not self._pool and not self._started_ray:
            return
        ray = _ray()
        for a in self._pool:
            try:
                ray.kill(a)
            except Exception:  # noqa: BLE001 -- already gone
                pass
        self._pool = []
        if self._started_ray and ray.is_initialized():
            ray.shutdown()
        self._started_ray = False

    # ------------------------------------------------------------------ dispatch
    def run(self, call: Any, batches: Sequence[tuple[int, list[int]]]) -> Iterator[tuple[int, Any]]:
        """Yield ``(batch_number, checked result)`` as batches finish, each exactly once.

        A :class:`~ranklens.engine.BatchCall` ships its component once per actor and each batch's
        texts; any other callable is shipped whole once per run (with what it captures) and is
        sent batch positions only."""
        if not batches:
            return
        ray = self._ensure_pool()
        shaped = all(hasattr(call, a) for a in ("component", "method", "key", "inputs", "check"))
        if shaped:
            holder = [ray.put(_shippable(call.component))]  # in a list: each actor resolves it once
            key = call.key
        else:
            holder = [ray.put(call)]
            key = f"call-{uuid.uuid4().hex}"

        run_id = uuid.uuid4().hex  # the actors' in-memory engines live for this run

        def send(actor: Any, i: int) -> Any:
            if shaped:
                return actor.apply.remote(key, holder, call.method, call.inputs(batches[i][1]), run_id)
            return actor.apply.remote(key, holder, "__call__", (batches[i][1],), run_id)

        todo: collections.deque[int] = collections.deque(range(len(batches)))
        tries = [0] * len(batches)
        running: dict[Any, tuple[int, Any]] = {}  # object ref -> (index into batches, actor)
        load = {id(a): 0 for a in self._pool}
        done: set[int] = set()
        try:
            while todo or running:
                self._submit(send, todo, running, load)
                ready, _ = ray.wait(list(running), num_returns=1)
                i, actor = running.pop(ready[0])
                load[id(actor)] = load.get(id(actor), 1) - 1
                try:
                    raw = ray.get(ready[0])
                except Exception as exc:  # noqa: BLE001 -- sorted below: lost actor vs model error
                    self._failed(ray, exc, i, actor, tries, todo, load)
                    continue
                if i in done:  # a late duplicate (never expected: a batch is re-sent only when lost)
                    continue
                done.add(i)
                number, positions = batches[i]
                yield number, (call.check(raw, call.inputs(positions)) if shaped else raw)
        finally:
            for ref in running:  # an abandoned run (driver error, interrupt): drop queued work
                try:
                    ray.cancel(ref)
                except Exception:  # noqa: BLE001 -- already finished or gone
                    pass
            if not shaped:
                for a in self._pool:
                    a.forget.remote(key)

    def _submit(self, send, todo, running, load) -> None:
        while todo:
            actor = min(self._pool, key=lambda a: load.get(id(a), 0))
            if load.get(id(actor), 0) >= self.in_flight:
                return
            i = todo.popleft()
            running[send(actor, i)] = (i, actor)
            load[id(actor)] = load.get(id(actor), 0) + 1

    def _failed(self, ray, exc, i, actor, tries, todo, load) -> None:
        if not _is_lost_actor(exc, ray):
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise exc
        tries[i] += 1
        if tries[i] > self.max_retries:
            raise EngineError(f"engine: a batch lost its Ray actor {tries[i]} times (last: {type(exc).__name__}); "
                              "the cluster is losing workers -- finished batches are cached, re-run to resume"
                              ) from None
        self.retried += 1
        todo.appendleft(i)
        if any(a is actor for a in self._pool):  # replace the dead actor once
            self._pool = [a for a in self._pool if a is not actor]
            fresh = self._new_actor(ray, *self._spec)
            self._pool.append(fresh)
            load.pop(id(actor), None)
            load[id(fresh)] = 0
