"""Entry points of one group, read straight from the installed distributions' ``entry_points.txt``.

``importlib.metadata.entry_points(group=...)`` imports ``email``, ``zipfile`` and ``csv`` and
parses every distribution's metadata: about half of ``ranklens --help``'s start-up. This reads the
same files (``*.dist-info/entry_points.txt`` and ``*.egg-info/entry_points.txt`` in each
``sys.path`` folder, the first distribution of a name winning, as ``importlib.metadata`` does) and
parses only the lines of the group asked for. ``tests/cli/test_startup.py`` checks it against
``importlib.metadata`` on every group installed.
"""

from __future__ import annotations

import os
import re
import sys

__all__ = ["entry_points"]

_DIST = re.compile(r"^(?P<name>.+?)(?:-[^-]*)?\.(?:dist-info|egg-info)$")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _section(text: str, group: str) -> list[tuple[str, str]]:
    """``(name, value)`` of the lines of ``[group]`` in an ``entry_points.txt`` (INI syntax)."""
    out: list[tuple[str, str]] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            inside = line[1:-1].strip() == group
            continue
        if inside and "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out


def entry_points(group: str, path: list[str] | None = None) -> tuple[tuple[str, str], ...]:
    """``(name, value)`` of every entry point in ``group`` of the distributions on ``path``
    (default ``sys.path``), in ``sys.path`` order; a distribution name seen twice counts once."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for folder in path if path is not None else sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for entry in names:
            m = _DIST.match(entry)
            if m is None:
                continue
            key = _normalized(m.group("name"))
            if key in seen:
                continue
            seen.add(key)
            try:
                with open(os.path.join(folder or ".", entry, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if group in text:
                out.extend(_section(text, group))
    return tuple(out)
