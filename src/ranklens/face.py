"""The Python face: ``import ranklens as rl``; ``rl.probes(models, collection, **params)`` and one
function per registered analysis, generated from the analysis's declaration (the same parameter
names, defaults and documentation as ``ranklens NAME --help``) and run through the one door,
:func:`ranklens.drive.run_analysis`.

``models`` maps a name to a spec string (``"bm25"``, ``"minilm"``, ``"cross-encoder:PATH"``) or a
model object (see :mod:`ranklens.objects`); ``collection`` is a collection spec (``"demo"``, a
folder, ``irds:...``) or a loaded :class:`~ranklens.io.Collection`.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from .errors import ValidationError

__all__ = ["analysis_function", "evaluate", "store"]
_DOOR = ("engine", "seed", "work_dir")


def _collection(collection: Any) -> Any:
    from .drive import load_dataset

    if collection is None or hasattr(collection, "docs"):
        return collection
    if isinstance(collection, str):
        return load_dataset(collection, {"spec": collection})
    if isinstance(collection, Mapping):
        return load_dataset(str(collection.get("name", "collection")), collection)
    raise ValidationError(f"collection must be a spec string (e.g. 'demo'), a Collection or a mapping with 'spec' / "
                          f"'qrels' and 'runs', got {type(collection).__name__}")


def analysis_function(name: str) -> Callable[..., Any]:
    """``fn(models=None, collection=None, *, <declared params>, engine=None, seed=0, work_dir=None)``
    for the analysis ``name``, returning its list of :class:`~ranklens.results.Result`."""
    from .declare import _option
    from .drive import run_analysis
    from .registry import get_analysis

    a = get_analysis(name)
    fields = [f for f in dataclasses.fields(a.params) if f.init]
    declared = {f.name for f in fields}

    def fn(models: Mapping[str, Any] | None = None, collection: Any = None, /, **kwargs: Any) -> Any:
        unknown = set(kwargs) - declared - set(_DOOR)
        if unknown:
            import difflib

            hints = [f"{u} (did you mean {c[0]}?)" if (c := difflib.get_close_matches(u, declared, n=1)) else u
                     for u in sorted(unknown)]
            raise ValidationError(f"rl.{name}: unknown parameter(s) {', '.join(hints)}; parameters: "
                                  f"{', '.join(sorted(declared))}")
        door = {k: kwargs.pop(k) for k in _DOOR if k in kwargs}
        from .results import ResultList

        return ResultList(run_analysis(a, _collection(collection), models or {}, kwargs, **door))

    params = [inspect.Parameter("models", inspect.Parameter.POSITIONAL_ONLY, default=None,
                                annotation="Mapping[str, Any] | None"),
              inspect.Parameter("collection", inspect.Parameter.POSITIONAL_ONLY, default=None, annotation="Any")]
    for f in fields:
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=f.type if isinstance(f.type, str) else repr(f.type)))
    params += [inspect.Parameter("engine", inspect.Parameter.KEYWORD_ONLY, default=None),
               inspect.Parameter("seed", inspect.Parameter.KEYWORD_ONLY, default=0),
               inspect.Parameter("work_dir", inspect.Parameter.KEYWORD_ONLY, default=None)]
    fn.__signature__ = inspect.Signature(params, return_annotation="ResultList")  # type: ignore[attr-defined]
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "ranklens"
    lines = [f"{a.title}.", "", a.description or a.help, "", "Parameters (as ``ranklens " + name + " --help``):"]
    for f in fields:
        doc = f.metadata.get("doc", "") if f.metadata else ""
        lines.append(f"    {f.name} ({_option(f)}): {doc}")
    lines += ["", "Returns: a ResultList (displays in a notebook; ``.to_frame()``, ``.plot()``)."]
    fn.__doc__ = "\n".join(lines)
    return fn


def evaluate(qrels: Any, run: Any, measures: Any = None, **kwargs: Any) -> Any:
    """ir_measures-style evaluation: ``rl.evaluate(qrels, run, ["nDCG@10", "AP"])``; ``run`` is one run
    (path or frame) or a mapping ``{name: run}``. Keyword arguments as
    :func:`ranklens.asl.evaluation.evaluate` (missing, rel, ties, baseline ...). Returns a Result."""
    from .asl.evaluation import evaluate as _evaluate

    runs = dict(run) if isinstance(run, Mapping) else {"run": run}
    if measures is None:
        return _evaluate(qrels, runs, **kwargs)
    return _evaluate(qrels, runs, measures, **kwargs)


def store(directory: Any) -> Any:
    """The results store of a folder (``ranklens results``'s view): :class:`ranklens.store.ResultsStore`."""
    from .store import ResultsStore

    return ResultsStore(directory)


def stub_text() -> str:
    """The text of ``ranklens/__init__.pyi``: typed signatures of the face for editors, generated from
    the declarations (``python -m ranklens.face > src/ranklens/__init__.pyi``; a test checks it is current)."""

    lines = ['"""Typed face of ranklens (generated by `python -m ranklens.face`; do not edit)."""', "",
             "from collections.abc import Mapping", "from typing import Any", "",
             "from .errors import DataFormatError as DataFormatError",
             "from .errors import MissingDependencyError as MissingDependencyError",
             "from .errors import RanklensError as RanklensError",
             "from .errors import RanklensWarning as RanklensWarning",
             "from .errors import ValidationError as ValidationError",
             "from .io import load_collection as load_collection",
             "from .results import Provenance as Provenance", "from .results import Result as Result",
             "from .results import ResultList as ResultList", "from .store import ResultsStore", "",
             "__version__: str", "", "def evaluate(qrels: Any, run: Any, measures: Any = ..., **kwargs: Any) -> Result: ...",
             "def store(directory: Any) -> ResultsStore: ...",
             "def check(expectations: Any, models: Mapping[str, Any] | None = ..., **kwargs: Any) -> Any: ...", ""]
    # The analysis functions (rl.probes, ...) are not in the stub: each name is also a subpackage
    # (ranklens.probes), and a stub function of that name would hide the subpackage from static
    # tools (mkdocstrings/griffe stop finding ranklens.asl.evaluation). Their signatures are
    # there at run time (inspect.signature(rl.probes): what Jupyter and IPython show).
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(stub_text())
