"""Load ``"module:function"`` callables (for ``callable:`` specs and plug-ins) with a fingerprint
of the code that computes the scores.

Fingerprint rule (what enters the cache key of a ``callable:`` ranker or embedder):

- a Python function: its code object (bytecode, constants -- nested code objects included --,
  names), its defaults, the values in its closure, and the source of its module. Editing the
  function body, a constant, a closed-over value or anything else in its module gives new scores
  instead of stale cached ones;
  and of every module that module imports (directly or through one another) from the same
  top-level package or the same folder (:func:`local_modules`): a helper edited in a sibling
  module changes the fingerprint too;
- what no fingerprint can see: environment variables, data files, services and modules outside
  the function's package/folder (installed libraries are covered by the version record in
  provenance only). Write ``@VERSION`` (``version=`` for an object) and bump it when they change;
  a :class:`~ranklens.errors.RanklensWarning` says so once per process, when a callable without
  ``@VERSION`` is first loaded;
- ``functools.partial``: the wrapped callable's fingerprint plus the bound arguments;
- an object with ``__call__``: its class's ``__call__`` (as above) plus the object's state;
- ``module:function@VERSION``: the user's VERSION replaces the code hash (for callables whose code
  cannot be hashed, or to keep a cache across cosmetic edits: bump VERSION when the scores change);
- anything else (a builtin, a C extension, state that cannot be pickled): no fingerprint can be
  made from code; the callable gets a per-process token (scores are never reused across runs) and
  :func:`load_callable` issues a :class:`~ranklens.errors.RanklensWarning` saying to add ``@VERSION``
  (also kept in :data:`ranklens._hashing.FINGERPRINT_WARNINGS`).

The fingerprint reaches :class:`~ranklens.rankers.FunctionRanker` / ``FunctionEmbedder`` through
the returned wrapper's ``__qualname__`` (``score#code=<digest>`` or ``score@VERSION``), which
their fingerprints hash, and is also its ``fingerprint`` attribute.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import os
import pickle
import sys
import types
import uuid
import warnings
from collections.abc import Callable
from typing import Any

from .._hashing import FINGERPRINT_WARNINGS
from ..errors import RanklensWarning, ValidationError

__all__ = ["FingerprintedCallable", "callable_fingerprint", "load_callable", "positional_arity"]

_PROCESS_TOKEN = uuid.uuid4().hex
#: what no fingerprint can see (the rule; printed once per process)
UNSEEN = ("environment variables, data files and services it reads are not: write @VERSION (version= for an "
          "object) and bump it when they change")
_UNSEEN_WARNED: list[str] = []


def _code_bytes(code: types.CodeType, h: Any) -> None:
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    h.update(repr((code.co_argcount, code.co_kwonlyargcount, code.co_flags)).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_bytes(const, h)
        else:
            h.update(repr(const).encode())


def _value_bytes(value: Any) -> bytes:
    """Bytes that change when ``value`` changes: a function by its code, else its pickle."""
    if isinstance(value, (types.FunctionType, functools.partial)) or inspect.isclass(value):
        digest, _ = callable_fingerprint(value)
        if digest is None:
            raise TypeError("unhashable callable")
        return digest.encode()
    if isinstance(value, types.ModuleType):
        return value.__name__.encode()
    return pickle.dumps(value, protocol=4)


def _source(module: types.ModuleType) -> bytes:
    try:
        return inspect.getsource(module).encode()
    except (OSError, TypeError):
        return b""


def _home(module: types.ModuleType) -> tuple[str, str]:
    """(top-level package, folder) of a module: its siblings share one or the other."""
    file = getattr(module, "__file__", None) or ""
    return (module.__name__.partition(".")[0] if "." in module.__name__ else "",
            os.path.dirname(os.path.abspath(file)) if file else "")


def local_modules(module: types.ModuleType) -> list[types.ModuleType]:
    """``module`` and every module it imports (transitively) from the same package or folder, by name
    order after itself: what a callable's fingerprint hashes (the rule in the module docstring)."""
    pkg, folder = _home(module)
    seen = {module.__name__: module}
    todo = [module]
    while todo:
        m = todo.pop()
        for value in list(vars(m).values()):
            dep = value if isinstance(value, types.ModuleType) else sys.modules.get(getattr(value, "__module__", "") or "")
            if dep is None or dep.__name__ in seen or not getattr(dep, "__file__", None):
                continue
            dep_pkg, dep_folder = _home(dep)
            if (pkg and dep_pkg == pkg) or (folder and dep_folder == folder):
                seen[dep.__name__] = dep
                todo.append(dep)
    return [module, *(seen[n] for n in sorted(seen) if n != module.__name__)]


def _module_source(obj: Any) -> bytes:
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    if module is None:
        return b""
    return b"".join(m.__name__.encode() + b"\0" + _source(m) for m in local_modules(module))


def _function_digest(fn: types.FunctionType, h: Any) -> None:
    _code_bytes(fn.__code__, h)
    h.update(pickle.dumps((fn.__defaults__, fn.__kwdefaults__), protocol=4))
    for cell in fn.__closure__ or ():
        h.update(_value_bytes(cell.cell_contents))
    h.update(_module_source(fn))


def callable_fingerprint(fn: Any) -> tuple[str | None, str | None]:
    """``(digest, None)`` from the code and state that compute ``fn``'s output, or ``(None,
    reason)`` when no fingerprint can be made from code (see the module docstring)."""
    h = hashlib.sha256()
    try:
        if isinstance(fn, functools.partial):
            inner, why = callable_fingerprint(fn.func)
            if inner is None:
                return None, why
            h.update(inner.encode())
            h.update(pickle.dumps((fn.args, sorted(fn.keywords.items())), protocol=4))
        elif isinstance(fn, types.MethodType):
            inner, why = callable_fingerprint(fn.__func__)
            if inner is None:
                return None, why
            h.update(inner.encode())
            h.update(_value_bytes(fn.__self__) if not inspect.ismodule(fn.__self__) else b"")
        elif isinstance(fn, types.FunctionType):
            _function_digest(fn, h)
        elif inspect.isclass(fn):
            h.update(f"{fn.__module__}.{fn.__qualname__}".encode())
            h.update(_module_source(fn))
        elif callable(fn) and isinstance(inspect.getattr_static(type(fn), "__call__", None), types.FunctionType):
            _function_digest(type(fn).__call__, h)
            h.update(pickle.dumps(getattr(fn, "__dict__", None), protocol=4))
        else:
            return None, f"{type(fn).__name__} {getattr(fn, '__qualname__', fn)!r} has no Python code to hash"
    except Exception as exc:  # unpicklable state, odd descriptors: no reliable fingerprint
        return None, f"its state cannot be hashed ({type(exc).__name__}: {exc})"
    return h.hexdigest()[:16], None


class FingerprintedCallable:
    """A loaded callable plus the fingerprint of the code that computes it (see module doc)."""

    def __init__(self, fn: Callable[..., Any], spec: str, version: str | None) -> None:
        self.__wrapped__ = fn
        self.spec = spec
        self.version = version
        self.__module__ = getattr(fn, "__module__", None) or "?"
        name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        self.fingerprint_warning: str | None = None
        if version is not None:
            self.fingerprint = f"@{version}"
        else:
            digest, why = callable_fingerprint(fn)
            if digest is None:
                digest = f"process-{_PROCESS_TOKEN[:12]}"
                self.fingerprint_warning = (
                    f"callable {spec!r}: no fingerprint can be made from its code ({why}); its scores are "
                    f"cached for this process only -- write callable:{spec}@VERSION and bump VERSION "
                    f"whenever its output changes")
            self.fingerprint = f"#code={digest}"
        self.__qualname__ = f"{name}{self.fingerprint}"
        self.__name__ = getattr(fn, "__name__", name)
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<callable {self.spec}{self.fingerprint}>"


def _split(spec: str) -> tuple[str, str, str | None]:
    target, at, version = spec.partition("@")
    if not isinstance(spec, str) or target.count(":") != 1 or not all(target.split(":")) or (at and not version):
        raise ValidationError(f"callable spec must look like 'package.module:function' or "
                              f"'package.module:function@VERSION', got {spec!r}")
    mod_name, attr = target.split(":")
    return mod_name, attr, (version or None)


def load_callable(spec: str) -> FingerprintedCallable:
    """Import ``module:attr`` or ``module:attr@VERSION`` (``attr`` may be dotted, e.g.
    ``pkg.mod:Class.method``) and wrap it with its fingerprint (see the module docstring).

    Raises:
        ValidationError: malformed spec, unknown module or attribute, or not callable.
    """
    if not isinstance(spec, str):
        raise ValidationError(f"callable spec must be a string, got {type(spec).__name__}")
    mod_name, attr, version = _split(spec)
    try:
        obj: Any = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ValidationError(f"callable {spec!r}: cannot import module {mod_name!r} ({exc}); check the module "
                              f"path and that its folder is on PYTHONPATH") from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValidationError(f"callable {spec!r}: {obj.__name__ if hasattr(obj, '__name__') else obj!r} "
                                  f"has no attribute {part!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValidationError(f"callable {spec!r} resolved to a non-callable {type(obj).__name__}")
    wrapped = FingerprintedCallable(obj, spec.partition("@")[0], version)
    if version is None and not wrapped.fingerprint_warning and not _UNSEEN_WARNED:
        _UNSEEN_WARNED.append(spec)
        warnings.warn(f"callable {spec!r}: its fingerprint covers its code and the modules of its package/folder; "
                      f"{UNSEEN}", RanklensWarning, stacklevel=2)
    if wrapped.fingerprint_warning:
        FINGERPRINT_WARNINGS.setdefault(spec, wrapped.fingerprint_warning)
        warnings.warn(wrapped.fingerprint_warning, RanklensWarning, stacklevel=2)
    return wrapped


def positional_arity(fn: Any) -> int | None:
    """How many positional arguments ``fn`` requires (``None``: unknown, or ``*args``): 2 for a
    ranker ``fn(queries, texts)``, 1 for an embedder ``fn(texts)``."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    ps = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
          and p.default is p.empty]
    if any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()):
        return None
    return len(ps)
