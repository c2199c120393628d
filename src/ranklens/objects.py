"""Models given as Python objects at a door that runs Python (``drive.run_analysis``, ``rl.*``).

Each object is normalised into a fingerprinted spec string ``object:<name>#<fingerprint>``,
registered for the duration of one call in the table :func:`ranklens.specs.build_model`
resolves, so the analyses' drivers see specs as from any other door and provenance records
an honest name.

Accepted kinds and their fingerprint (what enters the score/embedding cache key):

- a ranklens ranker or embedder (has ``fingerprint`` and ``score`` / ``encode``): its own
  fingerprint (class, parameters, model revision);
- a ``sentence_transformers.CrossEncoder`` (ranker) or ``SentenceTransformer`` (embedder): sha256
  over every parameter and buffer of the module (its ``state_dict``) and its configuration
  (the transformers config, each module's config dict): editing a weight changes it;
- any other ``torch.nn.Module`` is not accepted alone (no scoring method is known): wrap it in a
  function;
- a PyTerrier transformer (``pt.Transformer``; a ranker, scored as a re-ranker through the
  engine, with the analysis's sample caps and batching): ``version=`` is required -- no
  fingerprint can read a Java index or a pipeline's state;
- a plain callable: a ranker ``fn(queries, texts) -> scores`` when it takes two positional
  arguments, an embedder ``fn(texts) -> (n, d)`` when it takes one (never tried as the other);
  fingerprint: its code, closure, defaults and the source of its module
  (:func:`ranklens.rankers.callables.callable_fingerprint`);
- a mapping ``{"model": OBJ, "version": "v3", "params": {...}}``: ``version`` replaces the
  computed fingerprint (required for PyTerrier; the way to say what no fingerprint can see:
  environment variables, data files the object reads, a remote service);
- a spec string, or ``{"spec": ..., "params": ...}`` as everywhere else.

What no fingerprint can see: environment variables, data files and services a model reads
while scoring. Pass ``version=`` (or ``@VERSION`` in a ``callable:`` spec) and change it when
they change; a :class:`~ranklens.errors.RanklensWarning` says so once per object kind.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import RanklensWarning, ValidationError
from .rankers.callables import positional_arity

__all__ = ["ACCEPTED", "ModelObject", "adapt", "normalise_models", "object_fingerprint"]

ACCEPTED = ("a spec string (e.g. 'bm25', 'minilm', 'cross-encoder:PATH')", "{'spec': ..., 'params': {...}}",
            "a ranklens ranker or embedder", "a sentence_transformers CrossEncoder or SentenceTransformer",
            "a PyTerrier transformer (with version=)", "a function fn(queries, texts) (ranker) or fn(texts) "
            "(embedder)", "{'model': OBJ, 'version': ...}")

_WARNED: set[str] = set()
_UNSEEN = ("environment variables, data files or services it reads while scoring are not in its fingerprint: "
           "pass {'model': obj, 'version': ...} and change the version when they change")


@dataclass(frozen=True)
class ModelObject:
    """One adapted object: the ranker and/or embedder built from it and its fingerprint."""

    name: str
    kind: str
    fingerprint: str
    ranker: Any = None
    embedder: Any = None

    @property
    def spec(self) -> str:
        return f"object:{self.name}#{self.fingerprint}"


def _hash_module(module: Any, h: Any) -> None:
    """sha256 over a torch module's state_dict (names, dtypes, shapes, bytes)."""
    import torch

    for key, t in sorted(module.state_dict().items()):
        t = t.detach().cpu().contiguous()
        h.update(f"{key}|{t.dtype}|{tuple(t.shape)}".encode())
        h.update((t.view(torch.uint8) if t.dim() else t.reshape(1).view(torch.uint8)).numpy().tobytes())


def _st_config(model: Any) -> dict[str, Any]:
    """The configuration of a sentence-transformers model: the transformers config and each module's
    config dict (pooling, normalisation, max length)."""
    out: dict[str, Any] = {"class": f"{type(model).__module__}.{type(model).__qualname__}"}
    for i, mod in enumerate(model.children() if hasattr(model, "children") else ()):
        cfg = getattr(mod, "get_config_dict", None)
        entry: dict[str, Any] = {"class": type(mod).__name__}
        if callable(cfg):
            with contextlib.suppress(Exception):
                entry["config"] = cfg()
        auto = getattr(getattr(mod, "auto_model", None) or getattr(mod, "model", None), "config", None)
        if auto is not None and hasattr(auto, "to_dict"):
            entry["hf_config"] = auto.to_dict()
        out[str(i)] = entry
    cfg = getattr(getattr(model, "model", None), "config", None)
    if cfg is not None and hasattr(cfg, "to_dict"):
        out["hf_config"] = cfg.to_dict()
    out["max_seq_length"] = getattr(model, "max_seq_length", None) or getattr(model, "max_length", None)
    return out


def object_fingerprint(obj: Any) -> str:
    """sha256 prefix over a torch model's weights and configuration (see the module docstring)."""
    h = hashlib.sha256()
    _hash_module(obj, h)
    h.update(json.dumps(_st_config(obj), sort_keys=True, default=repr).encode())
    return "sha256:" + h.hexdigest()[:16]


def _is(obj: Any, module: str, cls: str) -> bool:
    return any(c.__name__ == cls and c.__module__.startswith(module) for c in type(obj).__mro__)


def _warn_once(kind: str, name: str) -> None:
    if kind not in _WARNED:
        _WARNED.add(kind)
        warnings.warn(f"model {name!r} ({kind}): {_UNSEEN}", RanklensWarning, stacklevel=4)


def adapt(name: str, obj: Any, version: str | None = None, params: Mapping[str, Any] | None = None) -> ModelObject:
    """A :class:`ModelObject` for one Python object (see the module docstring for the kinds).

    Raises:
        ValidationError: an object of no accepted kind (naming the model and the kinds), a PyTerrier
            transformer without ``version``, a callable whose arity fits neither role.
    """
    from .embedders.base import FunctionEmbedder
    from .rankers.base import FunctionRanker

    params = dict(params or {})
    ver = None if version is None else str(version)
    if _is(obj, "sentence_transformers", "CrossEncoder"):
        fp = ver or object_fingerprint(obj)

        def ce_score(queries: list[str], texts: list[str]) -> Any:
            return obj.predict(list(zip(queries, texts, strict=True)), show_progress_bar=False, **params)

        return ModelObject(name, "CrossEncoder", fp, ranker=FunctionRanker(fn=ce_score, name_=name, version=fp))
    if _is(obj, "sentence_transformers", "SentenceTransformer"):
        fp = ver or object_fingerprint(obj)

        def st_encode(texts: list[str]) -> Any:
            return obj.encode(list(texts), convert_to_numpy=True, show_progress_bar=False, **params)

        return ModelObject(name, "SentenceTransformer", fp,
                           embedder=FunctionEmbedder(fn=st_encode, name_=name, version=fp))
    if _is(obj, "pyterrier", "Transformer"):
        if ver is None:
            raise ValidationError(f"model {name!r}: a PyTerrier transformer needs a version (no fingerprint can read "
                                  f"its index or state): pass {{'model': pipeline, 'version': 'v1'}}")
        from .rankers.pyterrier import PyTerrierRanker

        ranker = PyTerrierRanker(transformer=obj, name_=name, version=ver, **params)
        return ModelObject(name, "PyTerrier", ranker.fingerprint.partition("@")[2], ranker=ranker)
    fp_attr = getattr(type(obj), "fingerprint", None)
    if fp_attr is not None and (hasattr(obj, "score") or hasattr(obj, "encode")):
        fp = ver or str(obj.fingerprint)
        return ModelObject(name, type(obj).__name__, fp, ranker=obj if hasattr(obj, "score") else None,
                           embedder=obj if hasattr(obj, "encode") else None)
    if callable(obj) and not inspect.isclass(obj) and not _is(obj, "torch", "Module"):
        from .rankers.callables import callable_fingerprint

        arity = positional_arity(obj)
        if arity not in (1, 2):
            raise ValidationError(f"model {name!r}: a function must take (queries, texts) -> scores (a ranker) or "
                                  f"(texts) -> vectors (an embedder); {getattr(obj, '__name__', obj)!r} takes "
                                  f"{'an unknown number of' if arity is None else arity} positional argument(s)")
        if ver is None:
            digest, why = callable_fingerprint(obj)
            if digest is None:
                raise ValidationError(f"model {name!r}: no fingerprint can be made from its code ({why}); pass "
                                      f"{{'model': fn, 'version': 'v1'}}")
            _warn_once("callable", name)
        fp = ver or f"code={digest}"
        if arity == 2:
            return ModelObject(name, "function", fp, ranker=FunctionRanker(fn=obj, name_=name, version=fp, **params))
        return ModelObject(name, "function", fp, embedder=FunctionEmbedder(fn=obj, name_=name, version=fp, **params))
    raise ValidationError(f"model {name!r}: a {type(obj).__module__}.{type(obj).__qualname__} is not a model this "
                          f"door accepts; give one of: " + "; ".join(ACCEPTED))


def normalise_models(models: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, ModelObject]]:
    """``{name: spec string | {"spec", "params"} | object | {"model", "version", "params"}}`` ->
    ``({name: {"spec", "params"}}, {spec: ModelObject})`` (the objects to register for one call)."""
    if not isinstance(models, Mapping):
        raise ValidationError(f"models must be a mapping {{name: model}}, got {type(models).__name__}; e.g. "
                              f"{{'bm25': 'bm25', 'mine': my_cross_encoder}}")
    out: dict[str, dict[str, Any]] = {}
    objects: dict[str, ModelObject] = {}
    for key, value in models.items():
        name = str(key)
        if isinstance(value, str):
            out[name] = {"spec": value, "params": {}}
            continue
        if isinstance(value, Mapping) and "spec" in value:
            if not isinstance(value["spec"], str):
                raise ValidationError(f"model {name!r}: 'spec' must be a string, got {type(value['spec']).__name__}")
            out[name] = {"spec": value["spec"], "params": dict(value.get("params") or {})}
            continue
        if isinstance(value, Mapping):
            unknown = set(value) - {"model", "version", "params"}
            if "model" not in value or unknown:
                raise ValidationError(f"model {name!r}: a mapping takes 'spec' (and 'params') or 'model' (and "
                                      f"'version', 'params'); got keys {sorted(value)}")
            mo = adapt(name, value["model"], value.get("version"), value.get("params"))
        else:
            mo = adapt(name, value)
        objects[mo.spec] = mo
        out[name] = {"spec": mo.spec, "params": {}}
    return out, objects


@contextlib.contextmanager
def registered(objects: Mapping[str, ModelObject]) -> Iterator[None]:
    """Make ``objects`` resolvable by :func:`ranklens.specs.build_model` for the duration of a call."""
    from .specs import OBJECTS

    before = {k: OBJECTS[k] for k in objects if k in OBJECTS}
    OBJECTS.update(objects)
    try:
        yield
    finally:
        for k in objects:
            OBJECTS.pop(k, None)
        OBJECTS.update(before)
