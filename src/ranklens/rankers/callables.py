"""Load ``"module:function"`` callables (for ``callable:`` specs and plug-ins)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..errors import ValidationError

__all__ = ["load_callable"]


def load_callable(spec: str) -> Callable[..., Any]:
    """Import ``module:attr`` (``attr`` may be dotted, e.g. ``pkg.mod:Class.method``).

    Raises:
        ValidationError: malformed spec, unknown module or attribute, or not callable.
    """
    if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
        raise ValidationError(f"callable spec must look like 'package.module:function', got {spec!r}")
    mod_name, attr = spec.split(":")
    try:
        obj: Any = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ValidationError(f"callable {spec!r}: cannot import module {mod_name!r} ({exc})") from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValidationError(f"callable {spec!r}: {obj.__name__ if hasattr(obj, '__name__') else obj!r} "
                                  f"has no attribute {part!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValidationError(f"callable {spec!r} resolved to a non-callable {type(obj).__name__}")
    return obj
