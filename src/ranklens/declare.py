"""How an analysis is declared: its parameters, its result kinds and its one driver.

Every analysis has one :class:`Analysis` value in its package (``<package>/declaration.py``),
listed in :mod:`ranklens.registry`. Everything a user reaches is derived from it:

* the CLI subcommand ``ranklens NAME`` (one option per ``Params`` field, every default shown),
* the experiment-file ``type = "NAME"`` and the validation of its ``params`` table,
* the demo (its :attr:`Analysis.demo` parameters, run through the same experiment runner),
* the report's section, plots, HTML extras and paper tables, and the store's per-model rows.

``Params`` is a frozen dataclass whose fields are made with :func:`param`: a default, a one-line
doc and optional ``choices`` / ``min`` / ``max``. :func:`make_params` turns a mapping (an
experiment's ``params`` table, parsed CLI options) into a ``Params`` value, reporting every
problem with its key path before any model loads.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import ValidationError

__all__ = ["Analysis", "ModelRows", "ResultKind", "add_cli_options", "ignored_problems", "make_params", "param",
           "param_problems", "params_dict", "params_from_args",
           "path_fields", "resolve", "tools_only_problems"]


def param(default: Any, doc: str, *, choices: Sequence[Any] | None = None, min: float | None = None,
          max: float | None = None, cli: str | None = None, path: bool = False,
          applies_when: Mapping[str, Any] | None = None, tools_only: bool = False) -> Any:
    """A ``Params`` field: ``default``, a one-line ``doc``, allowed ``choices`` or ``min``/``max``.

    ``cli`` overrides the option name (default ``--field-name``); ``path=True`` marks a file or
    directory that must exist (checked by :func:`make_params`, unless the value is ``"demo"``).
    Mutable defaults are given as tuples.

    ``applies_when`` names the other fields this one is read under, ``{other: values}``: a tuple of
    values (for a list field: one of its items; ``"KIND"`` also matches ``"KIND:ARG"``) or ``True``
    (the other field is set: not empty, not none). A value other than the default while a condition
    fails would be ignored: an error at every door (:func:`ignored_problems`). ``tools_only``: read by
    the analysis's file tools only, never by its run (a value other than the default is refused there).
    """
    meta = {"doc": doc, "choices": tuple(choices) if choices is not None else None, "min": min,
            "max": max, "cli": cli, "path": path, "applies_when": dict(applies_when or {}),
            "tools_only": tools_only}
    return field(default=default, metadata=meta)


def _condition_holds(value: Any, wanted: Any) -> bool:
    if wanted is True:
        return bool(value)
    items = value if isinstance(value, tuple) else (value,)
    return any(v == w or (isinstance(v, str) and isinstance(w, str) and v.startswith(w + ":"))
               for v in items for w in wanted)


def _condition_text(other: str, wanted: Any, where: str, now: Any) -> str:
    if wanted is True:
        return f"{where}.{other} is set"
    alts = " or ".join(repr(w) for w in wanted)
    return f"{where}.{other} {'includes' if isinstance(now, tuple) else 'is'} {alts}"


def ignored_problems(params: Any, *, where: str = "params") -> list[str]:
    """Every field of ``params`` set (not its default) where its ``applies_when`` says it is not read:
    one problem each, naming the field, the condition it is read under, the value that fails it and
    the fix (an ignored option is an error, not a silent no-op)."""
    out = []
    for f in dataclasses.fields(params):
        conditions = f.metadata.get("applies_when") or {}
        value = getattr(params, f.name)
        if not conditions or value == f.default:
            continue
        for other, wanted in conditions.items():
            now = getattr(params, other)
            if not _condition_holds(now, wanted):
                shown = _fmt_default(now) if isinstance(now, tuple) or now is None else repr(now)
                out.append(f"{where}.{f.name}: ignored unless {_condition_text(other, wanted, where, now)} "
                           f"({where}.{other} is {shown}); set {where}.{other} or drop {where}.{f.name} "
                           + _IGNORED)
                break
    return out


def tools_only_problems(params: Any, *, where: str = "params") -> list[str]:
    """The fields declared ``tools_only`` that are set (not their default) for an analysis run."""
    return [f"{where}.{f.name}: read by the file tools only, not by the analysis run; drop it or give it to a "
            "file tool " + _IGNORED
            for f in dataclasses.fields(params) if f.metadata.get("tools_only") and getattr(params, f.name) != f.default]


#: the types a result kind may declare for a summary value (``ResultKind.summary``); a trailing ``?``
#: also accepts null. A number inside a list or an object may be null (ranklens writes NaN as null).
#: Checked at load by :func:`ranklens._resultfile.check_summary`.
SUMMARY_TYPES = ("number", "integer", "text", "boolean", "list", "object", "list of numbers", "list of integers",
                 "list of text", "object of numbers", "object of integers", "object of text")


def summary_type_problem(spec: object) -> str | None:
    """Why ``spec`` is not a declarable summary type (None when it is)."""
    if isinstance(spec, str) and spec.removesuffix("?") in SUMMARY_TYPES:
        return None
    return f"{spec!r} is not a summary type; use one of {', '.join(SUMMARY_TYPES)} (a trailing ? also accepts null)"


@dataclass(frozen=True)
class ModelRows:
    """How to read per-model headline rows (the report's overview, ``summary_rows.tsv``) from
    a result kind's per-item table."""

    model: str = "model"                     # column naming the model
    metrics: tuple[str, ...] = ()            # numeric columns to report (wide tables); () = every
    #                                          numeric column not named below
    items: tuple[str, ...] = ()              # columns that name the item (joined with "/")
    long: tuple[str, str] | None = None      # (metric column, value column) of long tables
    ci: tuple[str, str] | None = None        # CI columns, kept when one row per group
    n: str | None = None                     # sample-count column
    prefix: str = ""                         # put before the item (e.g. "vs ")
    rename: tuple[tuple[str, str], ...] = ()  # metric column -> reported metric name


@dataclass(frozen=True)
class ResultKind:
    """One kind of result an analysis writes (``Result.kind``)."""

    name: str
    title: str = ""
    plots: tuple[str, ...] = ()          # "module:function", each fn(result) -> Figure/Axes/list
    extra_html: str | None = None        # "module:function", fn(result) -> escaped HTML fragment
    paper_table: str | None = None       # "module:function", fn(result) -> frame with X_sig columns
    model_rows: ModelRows | None = None  # per-model headline rows for the store and the overview
    higher_is_better: Mapping[str, bool | None] = field(default_factory=dict)  # headline metric -> direction;
    #                                      None: no direction (a similarity, an effect score): shown, never "best"
    findings: str | None = None          # "module:function", fn(result) -> list[str]: the report's
    #                                      first sentences (numbers with n and significance)
    significance: str | None = None      # "module:function", fn(result, baseline) -> frame with
    #                                      columns item, metric, model, p (paired test vs baseline)
    summary: Mapping[str, str] = field(default_factory=dict)  # summary key -> its type ("number", "text",
    #                                      "list of text", ... "?": or null; SUMMARY_TYPES below):
    #                                      the values the report reads, checked when a saved result is loaded

    def __post_init__(self) -> None:
        for key, spec in self.summary.items():
            problem = summary_type_problem(spec)
            if problem is not None:
                raise ValidationError(f"result kind {self.name!r}: summary[{key!r}]: {problem}")


@dataclass(frozen=True)
class Analysis:
    """The declaration of one analysis.

    ``run`` is ``"module:function"`` with the signature
    ``fn(collection, models, params, *, engine=None, seed=0, work_dir=None) -> list[Result]``:
    ``models`` maps a model name to ``{"spec": str, "params": dict}``; ``work_dir`` is where it may
    keep files it needs between runs (trained models); it returns results and saves nothing.
    """

    name: str
    title: str
    params: type
    run: str
    kinds: tuple[ResultKind, ...] = ()
    demo: Mapping[str, Any] = field(default_factory=dict)  # Params overrides for `ranklens demo` (quick:
    #                                      small models, tiny budgets, sample caps; about a minute in all)
    demo_full: Mapping[str, Any] = field(default_factory=dict)  # Params overrides for `ranklens demo --full`
    #                                      (larger caps, the neural trainer, every sweep; minutes)
    help: str = ""                       # one line for `ranklens --help`
    description: str = ""                # paragraph for `ranklens NAME --help`
    needs_qrels: bool = False
    reads_qrels: bool = True             # False: a --qrels would be ignored (refused by the CLI)
    reads_runs: str | None = None        # a dataset's runs (--runs): None = not read (a --runs is refused by the
    #                                      CLI), "instead" = they replace the models' runs (a --model is refused
    #                                      beside them), "besides" = read beside the models
    needs_collection: bool = True        # False: the CLI runs it without --collection (driver gets None)
    min_models: int = 1
    max_models: int | None = None        # 0: takes no model (a --model would be ignored: refused at every door)
    tools: str | None = None             # "module:function(parser)": extra subcommands of `ranklens NAME`
    commands: Mapping[str, str] = field(default_factory=dict)  # top-level command -> "module:function(sub)"
    #                                      that adds it (e.g. `ranklens evaluate`, owned by asl)
    listings: Mapping[str, str] = field(default_factory=dict)  # `ranklens ls KIND` -> "module:function()"
    #                                      returning rows (list of dicts of str)
    renamed_kinds: Mapping[str, str] = field(default_factory=dict)  # an old result-kind name -> its
    #                                      current one (results saved before a rename still load)
    renamed_measures: Mapping[str, str] = field(default_factory=dict)  # an old measure name -> its current
    #                                      one, with or without "@cutoff" (``mrc`` -> ``MRC``: ``mrc@10`` reads
    #                                      as ``MRC@10``), in its kinds' saved columns, ``measure`` values and
    #                                      summary keys (results saved before a rename still load)

    def driver(self) -> Callable[..., list[Any]]:
        return resolve(self.run)

    def kind(self, name: str) -> ResultKind | None:
        return next((k for k in self.kinds if k.name == name), None)

    def owns(self, kind: str) -> bool:
        """One name everywhere: a result kind belongs to the analysis whose name prefixes it."""
        return kind == self.name or kind.startswith(self.name + "-")

    def __post_init__(self) -> None:
        stray = [k.name for k in self.kinds if not self.owns(k.name)]
        stray += [new for new in self.renamed_kinds.values() if not self.owns(new)]
        if stray:
            raise ValidationError(f"analysis {self.name!r}: result kind(s) {stray} must be named "
                                  f"'{self.name}-...' (one name for package, command, type, kind and section)")

    def defaults(self) -> Any:
        return self.params()


def resolve(spec: str | Callable[..., Any]) -> Any:
    """``"module:attr"`` -> the attribute (callables pass through)."""
    if not isinstance(spec, str):
        return spec
    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


# --------------------------------------------------------------------------- types

def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _split_optional(tp: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(tp)) == 2:
            return args[0], True
    return tp, False


def _is_seq(tp: Any) -> bool:
    return typing.get_origin(tp) in (tuple, list)


def _item_type(tp: Any) -> Any:
    args = [a for a in typing.get_args(tp) if a is not Ellipsis]
    return args[0] if args else str


def _number(tp: type, value: Any, where: str) -> Any:
    """``value`` as an int (integral floats and numeric strings accepted) or a float; bools refused."""
    what = "an integer" if tp is int else "a number"
    if not isinstance(value, bool):
        if isinstance(value, int) or (tp is float and isinstance(value, float)):
            return tp(value)
        if tp is int and isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return tp(value.strip())
            except ValueError:
                pass
    raise ValidationError(f"{where}: expected {what}, got {value!r}")


def _coerce_scalar(value: Any, tp: Any, where: str) -> Any:
    if tp is Any:
        return value
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in {"true", "yes", "1", "false", "no", "0"}:
            return value.lower() in {"true", "yes", "1"}
        raise ValidationError(f"{where}: expected true or false, got {value!r}")
    if tp is int or tp is float:
        return _number(tp, value, where)
    if tp is str:
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        raise ValidationError(f"{where}: expected a string, got {value!r}")
    return value


def _coerce(value: Any, tp: Any, where: str) -> Any:
    inner, optional = _split_optional(tp)
    if value is None or (optional and isinstance(value, str) and value.lower() in {"none", "null"}):
        if optional:
            return None
        raise ValidationError(f"{where}: a value is required")
    if _is_seq(inner):
        item = _item_type(inner)
        if isinstance(value, str):
            value = [] if value.strip().lower() in {"", "none"} else [
                v for v in (x.strip() for x in value.split(",")) if v]
        elif not isinstance(value, (list, tuple)):
            value = [value]
        return tuple(_coerce_scalar(v, item, f"{where}[{i}]") for i, v in enumerate(value))
    return _coerce_scalar(value, inner, where)


def _check_value(f: dataclasses.Field, value: Any, where: str) -> None:
    meta = f.metadata
    values = value if isinstance(value, tuple) else (value,)
    for v in values:
        if v is None:
            continue
        choices = meta.get("choices")
        if choices is not None and v not in choices and not _matches_pattern(v, choices):
            raise ValidationError(f"{where}: {v!r} is not one of {list(choices)}")
        lo, hi = meta.get("min"), meta.get("max")
        if isinstance(v, float) and not math.isfinite(v):  # NaN passes every comparison: refuse it first
            raise ValidationError(f"{where}: {v!r} is not a finite number; give a number"
                                  + (f" between {lo} and {hi}" if lo is not None and hi is not None else ""))
        if lo is not None and isinstance(v, (int, float)) and v < lo:
            raise ValidationError(f"{where}: {v!r} is below the minimum {lo}")
        if hi is not None and isinstance(v, (int, float)) and v > hi:
            raise ValidationError(f"{where}: {v!r} is above the maximum {hi}")
        if meta.get("path") and isinstance(v, str) and v != "demo":
            from pathlib import Path

            if not Path(v).exists():
                raise ValidationError(f"{where}: {v!r} does not exist; give an existing file or directory")


def _matches_pattern(value: Any, choices: Sequence[Any]) -> bool:
    """``"window:5"`` matches a choice ``"window:N"`` (a prefix followed by ``:N``)."""
    if not isinstance(value, str) or ":" not in value:
        return False
    head, _, tail = value.partition(":")
    return f"{head}:N" in choices and tail.isdigit() and int(tail) > 0


def param_problems(cls: type, values: Mapping[str, Any] | None, *, where: str = "params",
                   base: Any = None) -> tuple[Any, list[str]]:
    """``(params, problems)``: the ``Params`` value (``None`` when there are problems) and every
    problem with its key path (unknown keys, wrong types, values outside ``choices``/``min``/
    ``max``, missing paths, and the class's own ``check()``)."""
    values = dict(values or {})
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = _hints(cls)
    errors = [f"{where}.{k}: unknown parameter; valid: {sorted(fields)}" for k in values if k not in fields]
    out: dict[str, Any] = {} if base is None else params_dict(base)
    for name, f in fields.items():
        if name not in values:
            continue
        key = f"{where}.{name}"
        try:
            v = _coerce(values[name], hints[name], key)
            _check_value(f, v, key)
        except ValidationError as exc:
            errors.append(str(exc))
            continue
        out[name] = v
    if errors:
        return None, errors
    made = cls(**out)
    check = getattr(made, "check", None)
    problems = [f"{where}: {p}" for p in check()] if callable(check) else []
    problems += ignored_problems(made, where=where)
    return (None, problems) if problems else (made, [])


def _raise(problems: list[str]) -> None:
    """One error for every problem: :class:`IgnoredOptionError` when each is an ignored parameter."""
    from .errors import IgnoredOptionError

    ignored = all(p.endswith(_IGNORED) for p in problems)
    raise (IgnoredOptionError if ignored else ValidationError)("; ".join(problems))


_IGNORED = "(an ignored option is an error)"


def make_params(cls: type, values: Mapping[str, Any] | None = None, *, where: str = "params",
                base: Any = None) -> Any:
    """``cls(**values)`` with every value coerced to its declared type and checked; one
    :class:`ValidationError` lists every problem (see :func:`param_problems`). ``base`` is a
    ``Params`` value whose fields are the starting point (default: the declared defaults)."""
    made, problems = param_problems(cls, values, where=where, base=base)
    if problems:
        _raise(problems)
    return made


def path_fields(cls: type) -> set[str]:
    """Names of the fields declared with ``path=True`` (relative to an experiment file)."""
    return {f.name for f in dataclasses.fields(cls) if f.metadata.get("path")}


def params_dict(params: Any) -> dict[str, Any]:
    """A ``Params`` value as a plain dict (tuples kept), for provenance and step ids."""
    return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}


# --------------------------------------------------------------------------- CLI

def _option(f: dataclasses.Field) -> str:
    return f.metadata.get("cli") or "--" + f.name.replace("_", "-")


def _fmt_default(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value) if value else "none"
    return "none" if value is None else str(value)


def _selected(cls: type, fields: Sequence[str] | None) -> list[dataclasses.Field]:
    known = {f.name: f for f in dataclasses.fields(cls)}
    if fields is None:
        return list(known.values())
    unknown = [n for n in fields if n not in known]
    if unknown:  # a tool may only offer parameters its analysis declares
        raise ValidationError(f"{cls.__qualname__}: no parameter(s) {unknown}; declared: {sorted(known)}")
    return [known[n] for n in fields]


class _DeprecatedAlias(argparse.Action):
    """An old spelling of an option: accepted for one release, with a warning naming the new one."""

    def __init__(self, option_strings: Sequence[str], dest: str, new: str = "", inner: str = "store",
                 **kwargs: Any) -> None:
        self.new, self.inner = new, inner
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        import warnings

        # located at the command line, not at argparse's own code
        warnings.warn_explicit(f"{option_string} is deprecated; use {self.new} (the old spelling goes in the next "
                               "release)", FutureWarning, filename="ranklens command line", lineno=0)
        if self.inner == "append":
            setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values])
        else:
            setattr(namespace, self.dest, values)


def add_cli_options(parser: argparse.ArgumentParser, cls: type, *, fields: Sequence[str] | None = None,
                    aliases: Mapping[str, Sequence[str]] | None = None,
                    title: str = "analysis parameters (experiment files: the same names in "
                                 "[analyses.params], with underscores)", inherit: bool = False) -> None:
    """One option per ``Params`` field; ``--help`` shows its doc, choices and default.

    Lists are given comma-separated or by repeating the option; booleans as ``--x/--no-x``.
    Options default to ``None`` (= the declared default), so the CLI and an experiment block that
    sets nothing build the same ``Params``. ``fields`` picks a subset (a file tool offers the
    parameters it uses, under the same names and defaults); ``aliases`` maps a field to old option
    spellings, accepted with a deprecation warning. ``inherit``: the options of a tool under a command
    that has them too (``ranklens regimes --k 3 TOOL``): a value given before the tool name is kept
    (argparse would otherwise reset it to the tool's default, silently).
    """
    hints = _hints(cls)
    unset = argparse.SUPPRESS if inherit else None
    group = parser.add_argument_group(title)
    for f in _selected(cls, fields):
        tp, _ = _split_optional(hints[f.name])
        doc = f.metadata.get("doc", "")
        choices = f.metadata.get("choices")
        extra = f" {{{', '.join(str(c) for c in choices)}}}" if choices else ""
        help_ = f"{doc}{extra} (default: {_fmt_default(f.default)})".replace("%", "%%")
        if tp is bool:
            group.add_argument(_option(f), dest=f"p_{f.name}", action=argparse.BooleanOptionalAction,
                               default=unset, help=help_)
            inner = "store"
        elif _is_seq(tp):
            group.add_argument(_option(f), dest=f"p_{f.name}", action="append", default=unset,
                               metavar="V[,V...]", help=help_)
            inner = "append"
        else:
            group.add_argument(_option(f), dest=f"p_{f.name}", default=unset, metavar="V", help=help_)
            inner = "store"
        old = tuple((aliases or {}).get(f.name, ()))
        if old and tp is not bool:
            group.add_argument(*old, dest=f"p_{f.name}", action=_DeprecatedAlias, new=_option(f), inner=inner,
                               default=unset, help=argparse.SUPPRESS)


def params_from_args(cls: type, args: argparse.Namespace, *, fields: Sequence[str] | None = None) -> Any:
    """The ``Params`` of parsed CLI options (unset options keep their declared defaults)."""
    values: dict[str, Any] = {}
    for f in _selected(cls, fields):
        v = getattr(args, f"p_{f.name}", None)
        if v is None:
            continue
        if isinstance(v, list):  # repeated and/or comma-separated; "none" = empty
            v = [x.strip() for item in v for x in str(item).split(",")
                 if x.strip() and x.strip().lower() != "none"]
        values[f.name] = v
    try:
        return make_params(cls, values, where="option")
    except ValidationError as exc:  # name the option as typed: option.max_queries -> --max-queries
        import re

        text = re.sub(r"option: (\w+):", lambda m: "--" + m.group(1).replace("_", "-") + ":", str(exc))  # check()
        raise type(exc)(re.sub(r"option\.(\w+)", lambda m: "--" + m.group(1).replace("_", "-"), text)) from None
