"""Conformance checks for an analysis (built-in or plug-in): its declaration, its one vocabulary and
its doors.

Use it in a plug-in's test suite::

    from ranklens.testing import check_analysis
    def test_my_analysis(tmp_path):
        check_analysis("myanalysis", work_dir=tmp_path)

:func:`check_declaration` needs no data or model; :func:`check_vocabulary` imports the analysis's
package; :func:`check_doors` runs the analysis (with its ``demo`` parameters) through the Python
door, the CLI and an experiment file and requires identical tables. Each raises
:class:`~ranklens.testing.ConformanceError` naming the analysis and the property it breaks, and
returns the names of the checks that ran.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import pkgutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .checks import ConformanceError

__all__ = ["check_analysis", "check_declaration", "check_doors", "check_vocabulary", "kernel_default_mismatches"]

_MISSING = inspect.Parameter.empty


def _analysis(analysis: Any) -> Any:
    from ..declare import Analysis
    from ..registry import get_analysis

    return analysis if isinstance(analysis, Analysis) else get_analysis(str(analysis))


def _fail(a: Any, what: str) -> ConformanceError:
    return ConformanceError(f"analysis {a.name!r}: {what}")


def check_declaration(analysis: Any) -> list[str]:
    """The declaration alone: every ``Params`` field documented, the defaults and the demo
    overrides valid, every ``"module:function"`` it names importable and callable."""
    from ..declare import make_params, param_problems, resolve

    a = _analysis(analysis)
    done = []
    if not (dataclasses.is_dataclass(a.params) and a.params.__dataclass_params__.frozen):
        raise _fail(a, "Params must be a frozen dataclass")
    undocumented = [f.name for f in dataclasses.fields(a.params) if not f.metadata.get("doc")]
    if undocumented:
        raise _fail(a, f"Params fields without a doc (declare them with ranklens.declare.param): {undocumented}")
    make_params(a.params, {})
    for where, values in (("demo", a.demo), ("demo_full", a.demo_full)):
        _, problems = param_problems(a.params, dict(values), where=where)
        if problems:
            raise _fail(a, f"{where} parameters are not valid Params: {problems}")
    done.append("params")
    targets = [a.run, *([a.tools] if a.tools else []), *a.commands.values(), *a.listings.values()]
    for k in a.kinds:
        targets += [*k.plots, *(t for t in (k.extra_html, k.paper_table, k.findings, k.significance) if t)]
    for target in targets:
        try:
            obj = resolve(target)
        except (ImportError, AttributeError) as exc:
            raise _fail(a, f"{target!r} cannot be resolved: {exc}") from None
        if not callable(obj):
            raise _fail(a, f"{target!r} is not callable")
    done.append("references")
    return done


def _package(a: Any) -> str:
    module = a.run.partition(":")[0]
    return module.rpartition(".")[0] or module


def _modules(package: str) -> Iterator[Any]:
    pkg = importlib.import_module(package)
    yield pkg
    for info in pkgutil.walk_packages(getattr(pkg, "__path__", []), prefix=package + "."):
        try:
            yield importlib.import_module(info.name)
        except ImportError:  # a module whose optional dependency is absent: nothing to check here
            continue


def _callables(module: Any) -> Iterator[tuple[str, Any]]:
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj) or inspect.isfunction(obj):
            yield f"{module.__name__}.{name}", obj


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return tuple(a) == tuple(b)
    try:
        return bool(a == b) or (a != a and b != b)  # NaN equals NaN here
    except Exception:  # noqa: BLE001 - arrays and the like: not a Params default
        return False


def kernel_default_mismatches(analysis: Any) -> list[str]:
    """Every public function or class of the analysis's package with a parameter named like a
    ``Params`` field whose default differs from the declared one (``"module.fn(param=x) but Params
    says y"``). Kernels take their defaults from ``Params`` or have none. Rankers and embedders
    (``BaseComponent`` subclasses) are models, not kernels: their parameters are the model's."""
    from ..rankers.base import BaseComponent

    a = _analysis(analysis)
    declared = {f.name: getattr(a.defaults(), f.name) for f in dataclasses.fields(a.params)}
    out = []
    for module in _modules(_package(a)):
        for where, obj in _callables(module):
            if obj is a.params or (inspect.isclass(obj) and issubclass(obj, BaseComponent)):
                continue  # a model component's parameters are the model's (e.g. its inference batch size)
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            for p in sig.parameters.values():
                if p.name in declared and p.default is not _MISSING and not _same(p.default, declared[p.name]):
                    out.append(f"{where}({p.name}={p.default!r}) but Params says {declared[p.name]!r}")
    return sorted(set(out))


def _tool_parsers(a: Any) -> list[tuple[str, Any]]:
    import argparse

    from ..declare import resolve

    parsers: list[tuple[str, Any]] = []
    if a.tools:
        root = argparse.ArgumentParser(prog=f"ranklens {a.name}")
        resolve(a.tools)(root)
        parsers += _subparsers(root, f"ranklens {a.name}")
    for command, adder in a.commands.items():
        root = argparse.ArgumentParser(prog="ranklens")
        sub = root.add_subparsers()
        resolve(adder)(sub)
        parsers += [(f"ranklens {command}", sub.choices[command])]
    return parsers


def _subparsers(parser: Any, prog: str) -> list[tuple[str, Any]]:
    import argparse

    out = []
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            for name, p in action.choices.items():
                out.append((f"{prog} {name}", p))
    return out


def check_vocabulary(analysis: Any) -> list[str]:
    """One name and one default per parameter: kernel defaults equal the declared ones, and a
    file tool's option for a ``Params`` field is derived from ``Params`` (``add_cli_options``), not
    written by hand under the same or another spelling of the field."""
    a = _analysis(analysis)
    bad = kernel_default_mismatches(a)
    if bad:
        raise _fail(a, "kernel defaults differ from Params: " + "; ".join(bad))
    fields = {f.name for f in dataclasses.fields(a.params)}
    by_hand = []
    for prog, parser in _tool_parsers(a):
        for action in parser._actions:
            name = action.dest
            options = [o.lstrip("-").replace("-", "_") for o in action.option_strings]
            if name.startswith("p_") and name[2:] in fields:
                continue  # derived from Params
            clash = sorted(fields & {name, *options})
            if clash:
                by_hand.append(f"{prog} {'/'.join(action.option_strings) or name} (Params field {clash[0]})")
    if by_hand:
        raise _fail(a, "tool options declared by hand for Params fields (derive them with "
                       "ranklens.declare.add_cli_options(..., fields=[...])): " + "; ".join(by_hand))
    return ["kernel_defaults", "tool_options"]


def _tables(results: Sequence[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for res in results:
        out.setdefault(res.kind, res.table.reset_index(drop=True))
    return out


def _loaded(root: Path) -> dict[str, Any]:
    from ..results import Result

    return _tables([Result.load(d.parent) for d in sorted(root.rglob("result.json"))])


def check_doors(analysis: Any, *, work_dir: str | Path, collection: str = "demo",
                models: Mapping[str, str] | None = None, params: Mapping[str, Any] | None = None) -> list[str]:
    """The same numbers at every door: Python (``drive.run_analysis``), the CLI (``ranklens NAME``)
    and an experiment file, with the analysis's ``demo`` parameters (updated by ``params``) on
    ``collection``; ``models`` maps names to specs (default: BM25 and TF-IDF)."""
    import pandas as pd

    from ..cli import main
    from ..drive import load_dataset, run_analysis
    from ..experiment import load_experiment, run_experiment
    from ..results import save_results

    a = _analysis(analysis)
    work = Path(work_dir)
    models = dict(models or ({} if a.max_models == 0 else {"bm25": "bm25", "tfidf": "tfidf"}))
    values = {**dict(a.demo), **dict(params or {})}
    # each door's results as a user reads them back: saved, then loaded (an empty string and a
    # missing value are one thing once stored)
    save_results(run_analysis(a, load_dataset(collection, {"spec": collection}),
                              {k: {"spec": v} for k, v in models.items()}, values), work / "py", plots=False)
    py = _loaded(work / "py")
    argv = ["-q", a.name, "--collection", collection, "--out", str(work / "cli"), "--no-plots"]
    for name, spec in models.items():
        argv += ["--model", f"{name}={spec}" if name != spec else spec]
    for key, value in values.items():
        if isinstance(value, bool):
            argv.append(("--" if value else "--no-") + key.replace("_", "-"))
        elif value is not None:
            text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
            argv += ["--" + key.replace("_", "-"), text or "none"]
    if main(argv) != 0:
        raise _fail(a, f"the CLI failed: ranklens {' '.join(argv)}")
    toml = ['title = "doors"', 'results = "res"']
    for name, spec in models.items():
        toml += [f"[models.{json.dumps(name)}]", f"spec = {json.dumps(spec)}"]
    toml += [f"[datasets.{json.dumps(collection)}]", f"spec = {json.dumps(collection)}",
             "[[analyses]]", f"type = {json.dumps(a.name)}", "[analyses.params]"]
    toml += [f"{k} = {json.dumps(list(v) if isinstance(v, tuple) else v)}" for k, v in values.items() if v is not None]
    (work / "exp.toml").write_text("\n".join(toml) + "\n", encoding="utf-8")
    run_experiment(load_experiment(work / "exp.toml"), report=False)
    cli, exp = _loaded(work / "cli"), _loaded(work / "res")
    if not (set(py) == set(cli) == set(exp)) or not py:
        raise _fail(a, f"the doors give different result kinds: python {sorted(py)}, cli {sorted(cli)}, "
                       f"experiment {sorted(exp)}")
    for kind, table in py.items():
        for door, other in (("CLI", cli[kind]), ("experiment", exp[kind])):
            try:
                pd.testing.assert_frame_equal(table, other, check_dtype=False)
            except AssertionError as exc:
                raise _fail(a, f"{kind}: Python and the {door} give different tables: {exc}") from None
    return ["doors_identical"]


def check_analysis(analysis: Any, *, work_dir: str | Path | None = None, **door_options: Any) -> list[str]:
    """Every check: the declaration and the vocabulary, and, given a ``work_dir``, the doors."""
    done = check_declaration(analysis) + check_vocabulary(analysis)
    if work_dir is not None:
        done += check_doors(analysis, work_dir=work_dir, **door_options)
    return done
