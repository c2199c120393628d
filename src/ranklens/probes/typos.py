"""Misspelling lists for the typo probe, and a character-level typo fallback.

:func:`load_misspellings` reads the common formats (format detected from the content):

* TSV/tab file ``misspelling<TAB>correction`` (Aspell benchmark ``*.batch0.tab``; Wikipedia's
  "Lists of common misspellings/For machines" also uses ``misspelling->correction`` lines);
* JSON object ``misspelling -> correction`` (NL-Augmenter ``spell_corrections.json``);
* JSON object ``correct word -> [misspellings]`` (NL-Augmenter ``spell_errors.json``, Birkbeck
  corpora; noisy, so by default variants farther than :data:`NOISY_LIST_MAX_EDIT` edits are
  dropped from this format only).

The result maps a lower-case correct word to a sorted tuple of its misspellings. Wikipedia's list
(the paper's source, footnote 6) is used whole by default: its variants are real misspellings even
when they are far from the word ("copywrite" for "copyright"); ``max_edit`` filters every format
on request.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import DataFormatError

__all__ = [
    "DEFAULT_MISSPELLINGS",
    "NOISY_LIST_MAX_EDIT",
    "char_typo",
    "default_misspellings",
    "edit_distance",
    "load_misspellings",
]

#: The list used when a data folder holds ``misspellings/`` and no list is named (Wikipedia's
#: "Lists of common misspellings/For machines", as in GNU Aspell's benchmark data).
DEFAULT_MISSPELLINGS = "aspell_bench/common-all.batch0.tab"

#: Edit-distance filter applied by default to the noisy ``correct -> [misspellings]`` JSON lists
#: (Birkbeck corpora) only.
NOISY_LIST_MAX_EDIT = 2


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (small strings; plain dynamic programming)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def default_misspellings(data_dir: str | os.PathLike[str] | None) -> str | None:
    """The misspelling list of a data folder: ``<data_dir>/misspellings/`` +
    :data:`DEFAULT_MISSPELLINGS` when present, else the first ``.tab``/``.tsv``/``.json`` file
    under ``<data_dir>/misspellings/`` (sorted by path); ``None`` when there is no such folder
    (the typo probe then falls back to character-level typos)."""
    if not data_dir:
        return None
    folder = Path(data_dir) / "misspellings"
    if not folder.is_dir():
        return None
    preferred = folder / DEFAULT_MISSPELLINGS
    if preferred.is_file():
        return str(preferred)
    files = sorted(f for f in folder.rglob("*") if f.is_file()
                   and f.suffix.lower() in (".tab", ".tsv", ".json"))
    return str(files[0]) if files else None


def load_misspellings(path: str | os.PathLike[str], *, max_edit: int | None = None,
                      min_length: int = 3) -> dict[str, tuple[str, ...]]:
    """Read a misspelling list (see module docstring) into ``{correct: (misspellings, ...)}``.

    Args:
        path: a ``.tab``/``.tsv``/``.txt`` or ``.json`` file.
        max_edit: drop variants more than this many edits from the correct word, in every format
            (0 = keep all). ``None`` (default): :data:`NOISY_LIST_MAX_EDIT` on the noisy
            ``correct -> [misspellings]`` JSON lists only, every variant of the other formats
            kept (Wikipedia's list whole, as the paper uses it).
        min_length: ignore correct words shorter than this.

    Raises:
        DataFormatError: on a file that matches none of the formats (names file and line).
    """
    return dict(_load(str(Path(path)), max_edit, min_length))


@lru_cache(maxsize=8)
def _load(path: str, max_edit: int | None, min_length: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    p = Path(path)
    if not p.is_file():
        raise DataFormatError("misspellings file not found; pass a .tab or .json list", path=p)
    text = p.read_text(encoding="utf-8", errors="replace")
    pairs: list[tuple[str, str, bool]] = []  # (correct, misspelling, from a noisy list)
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"invalid JSON: {exc.msg}", path=p, line=exc.lineno) from None
        for k, v in obj.items():
            if isinstance(v, list):
                pairs.extend((k.replace("_", " "), m, True) for m in v if isinstance(m, str))
            elif isinstance(v, str):
                pairs.append((v, k, False))
            else:
                raise DataFormatError(
                    f"value of {k!r} must be a string (misspelling -> correction) or a list "
                    "(correct -> misspellings)", path=p)
    else:
        for i, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "\t" in line:
                wrong, right = line.split("\t", 1)
            elif "->" in line:
                wrong, right = line.split("->", 1)
            else:
                raise DataFormatError(
                    "expected 'misspelling<TAB>correction' or 'misspelling->correction'", path=p, line=i)
            for r in right.split(","):
                pairs.append((r.strip(), wrong.strip(), False))
    out: dict[str, set[str]] = defaultdict(set)
    for right, wrong, noisy in pairs:
        r, w = right.lower(), wrong.lower()
        if not r or not w or r == w or " " in r or " " in w or len(r) < min_length:
            continue
        limit = (NOISY_LIST_MAX_EDIT if noisy else 0) if max_edit is None else max_edit
        if limit and edit_distance(r, w) > limit:
            continue
        out[r].add(w)
    return tuple((k, tuple(sorted(v))) for k, v in sorted(out.items()))


_KEYBOARD = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def _neighbours(ch: str) -> str:
    for r, row in enumerate(_KEYBOARD):
        c = row.find(ch)
        if c >= 0:
            near = [row[c - 1] if c > 0 else "", row[c + 1] if c + 1 < len(row) else ""]
            for rr in (r - 1, r + 1):
                if 0 <= rr < len(_KEYBOARD) and c < len(_KEYBOARD[rr]):
                    near.append(_KEYBOARD[rr][c])
            return "".join(near)
    return ""


def char_typo(word: str, rng: np.random.Generator) -> str:
    """One character-level typo (fallback when no misspelling list is given): swap two
    adjacent letters, drop, double, or replace a letter by a keyboard neighbour. The first
    letter is kept; words shorter than 4 letters are returned unchanged."""
    if len(word) < 4 or not word.isalpha():
        return word
    i = int(rng.integers(1, len(word) - 1))
    op = int(rng.integers(4))
    if op == 0:
        out = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    elif op == 1:
        out = word[:i] + word[i + 1:]
    elif op == 2:
        out = word[:i] + word[i] + word[i:]
    else:
        near = _neighbours(word[i].lower()) or "e"
        out = word[:i] + near[int(rng.integers(len(near)))] + word[i + 1:]
    return out if out != word else word[:i] + word[i + 1:]
