"""mkdocs hook: pages derived from the code, so the docs cannot drift from it.

- ``<!-- ranklens:cli -->`` becomes the CLI reference: ``ranklens --help`` and the ``--help`` of
  every subcommand (the analysis commands derived from the declarations included), rendered from
  the argparse parsers themselves.
- ``<!-- ranklens:params NAME -->`` becomes the parameter table of analysis ``NAME`` (its
  ``Params`` fields: default, allowed values, doc) and the result kinds it writes.

Run by ``mkdocs build`` (``hooks:`` in ``mkdocs.yml``); :func:`cli_commands` and
:func:`cli_reference` are also used by ``tests/docs``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

_CLI = "<!-- ranklens:cli -->"
_PARAMS = re.compile(r"<!-- ranklens:params (\w+) -->")
WIDTH = "100"


@contextmanager
def _columns(width: str = WIDTH) -> Iterator[None]:
    """argparse wraps help to ``$COLUMNS``: fix it, so the page does not depend on the terminal."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = width
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps subparsers here; there is no public accessor
        if isinstance(action, argparse._SubParsersAction):
            seen: dict[int, str] = {}
            out = {}
            for name, sub in action.choices.items():
                if id(sub) not in seen:  # aliases share one parser
                    seen[id(sub)] = name
                    out[name] = sub
            return out
    return {}


def cli_commands() -> list[tuple[str, argparse.ArgumentParser]]:
    """``("ranklens", parser)``, then every subcommand, depth first (``ranklens asl ties`` ...)."""
    from ranklens.cli import build_parser

    out: list[tuple[str, argparse.ArgumentParser]] = []

    def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
        out.append((prefix, parser))
        for name, sub in _subcommands(parser).items():
            walk(f"{prefix} {name}", sub)

    walk("ranklens", build_parser())
    return out


def cli_reference() -> str:
    """Markdown: one section per command with its ``--help`` text."""
    parts = []
    with _columns():
        for command, parser in cli_commands():
            level = "#" * min(2 + command.count(" ") - (1 if " " in command else 0), 4)
            parts.append(f"{level} `{command}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    return "\n".join(parts)


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _default(f: dataclasses.Field) -> str:
    if f.default is not dataclasses.MISSING:
        return f"`{f.default!r}`"
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f"`{f.default_factory()!r}`"  # type: ignore[misc]
    return "required"


def _allowed(meta: dict) -> str:
    if meta.get("choices"):
        return ", ".join(f"`{c}`" for c in meta["choices"])
    lo, hi = meta.get("min"), meta.get("max")
    if lo is not None or hi is not None:
        return f"{'' if lo is None else lo} .. {'' if hi is None else hi}"
    return "path" if meta.get("path") else ""


def params_table(name: str) -> str:
    """Markdown: the parameters of analysis ``name`` and its result kinds."""
    from ranklens.registry import get_analysis

    a = get_analysis(name)
    rows = ["| parameter | CLI option | default | allowed | meaning |", "|---|---|---|---|---|"]
    for f in dataclasses.fields(a.params):
        meta = dict(f.metadata)
        cli = meta.get("cli") or "--" + f.name.replace("_", "-")
        rows.append(f"| `{f.name}` | `{cli}` | {_cell(_default(f))} | {_cell(_allowed(meta))} | "
                    f"{_cell(meta.get('doc', ''))} |")
    kinds = "\n".join(f"- `{k.name}`" + (f": {k.title}" if k.title else "") for k in a.kinds)
    return (f"Parameters of `{a.params.__module__}.{a.params.__qualname__}` (the CLI options of "
            f"`ranklens {a.name}`, the `params` of an experiment step `type = \"{a.name}\"`):\n\n"
            + "\n".join(rows) + f"\n\nResult kinds it writes (`Result.kind`, one directory each):\n\n{kinds}\n")


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - mkdocs hook signature
    if _CLI in markdown:
        markdown = markdown.replace(_CLI, cli_reference())
    return _PARAMS.sub(lambda m: params_table(m.group(1)), markdown)
