"""Readers for the split files the authors published (jingtaozhan/extrapolate-eval).

The authors released their MS MARCO passage splits as TREC qrels files:

- ``restrain_files/msmarco-passage/<size>/{interpolate,extrapolate}.train-qrel.txt``: the
  ReSTrain training qrels (sizes 14k, 45k, 200k). The test set is unchanged (TREC DL 2019 +
  2020), so the files hold no test queries: pass ``test_ids``.
- ``resttest_files/msmarco-passage/bucket-<n>/train-qrel.txt`` (the training qrels of the
  four other buckets) and ``{interpolate,extrapolate}.<test_set>-qrel.txt`` for the test sets
  ``dev`` (MS MARCO dev), ``trec19`` and ``trec20``. Bucket ``n`` becomes fold ``n - 1``.

This module reads the layout into plain values (query ids read from the qrels files with the
project's TREC reader; every query with any judgment counts): :func:`published_split_fields` gives
the fields of one :class:`~.splits.Split`, which :func:`~.splits.read_published_split` and
:meth:`~.splits.Split.load` build.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..errors import DataFormatError, ValidationError
from .names import EXTRAPOLATION, INTERPOLATION

__all__ = ["PUBLISHED_TEST_SETS", "is_published_split", "published_split_dirs", "published_split_fields"]

PUBLISHED_TEST_SETS = ("dev", "trec19", "trec20")
_RESTRAIN = ("interpolate.train-qrel.txt", "extrapolate.train-qrel.txt")


def _ids(path: Path) -> tuple[str, ...]:
    from ..io import read_qrels

    if not path.is_file():
        raise DataFormatError("missing file of the authors' split layout (extrapolate-eval); the repository's "
                              "large ReSTTest train-qrel.txt files may be absent from a snapshot: download them",
                              path=path)
    q = read_qrels(path)
    return tuple(dict.fromkeys(q["query_id"].astype(str)))


def is_published_split(directory: str | os.PathLike[str]) -> bool:
    """True when ``directory`` has the authors' ReSTrain or ReSTTest file layout."""
    d = Path(directory)
    if all((d / f).is_file() for f in _RESTRAIN):
        return True
    return any(d.glob("interpolate.*-qrel.txt")) and any(d.glob("extrapolate.*-qrel.txt"))


def published_split_fields(directory: str | os.PathLike[str], *, test_ids: Any = None,
                           test_set: str = "dev") -> dict[str, Any]:
    """The :class:`~.splits.Split` fields (``name``, ``method``, ``params``, ``regimes``, and
    ``fold`` for ReSTTest) of one published split directory.

    Args:
        directory: a ``restrain_files/<corpus>/<size>`` or ``resttest_files/<corpus>/bucket-<n>``
            directory of extrapolate-eval.
        test_ids: ReSTrain only: the unchanged test query ids (the paper: TREC DL 2019 + 2020);
            a sequence of ids or a DataFrame with ``query_id``.
        test_set: ReSTTest only: ``dev``, ``trec19`` or ``trec20`` (which test qrels to read).

    Raises:
        DataFormatError: a file of the layout is missing or malformed (named).
        ValidationError: ReSTrain without ``test_ids``, or an unknown ``test_set``.
    """
    d = Path(directory)
    src = {"source": "jingtaozhan/extrapolate-eval", "path": str(d)}
    if all((d / f).is_file() for f in _RESTRAIN):
        if test_ids is None:
            raise ValidationError(f"{d}: the authors' ReSTrain files hold only training qrels; pass test_ids (the "
                                  "paper's test set: the TREC DL 2019 + 2020 query ids)")
        ids = test_ids["query_id"] if hasattr(test_ids, "columns") else test_ids
        te = tuple(dict.fromkeys(str(x) for x in ids))
        return {"name": f"restrain-{d.name}", "method": "restrain", "params": {"method": "restrain", **src},
                "regimes": {INTERPOLATION: (_ids(d / _RESTRAIN[0]), te), EXTRAPOLATION: (_ids(d / _RESTRAIN[1]), te)}}
    if test_set not in PUBLISHED_TEST_SETS:
        raise ValidationError(f"test_set must be one of {PUBLISHED_TEST_SETS}, got {test_set!r}")
    if not is_published_split(d):
        raise DataFormatError("not a split directory: neither split.json (Split.save) nor the authors' "
                              "{interpolate,extrapolate}.*-qrel.txt files", path=d)
    m = re.search(r"(\d+)$", d.name)
    fold = int(m.group(1)) - 1 if m else None
    train = _ids(d / "train-qrel.txt")
    return {"name": f"resttest-{test_set}-fold{fold if fold is not None else d.name}", "method": "resttest",
            "fold": fold, "params": {"method": "resttest", "test_set": test_set, **src},
            "regimes": {INTERPOLATION: (train, _ids(d / f"interpolate.{test_set}-qrel.txt")),
                        EXTRAPOLATION: (train, _ids(d / f"extrapolate.{test_set}-qrel.txt"))}}


def published_split_dirs(root: str | os.PathLike[str]) -> list[Path]:
    """Every published split directory under ``root`` (``root`` itself when it is one), sorted by
    depth and natural path order."""
    r = Path(root)
    if is_published_split(r):
        return [r]
    dirs = sorted({p.parent for p in qrel_files(r) if is_published_split(p.parent)},
                  key=lambda p: (len(p.parts), _natural(p)))
    if not dirs:
        raise DataFormatError("no split directory of the authors' layout (*-qrel.txt) below", path=r)
    return dirs


def qrel_files(root: str | os.PathLike[str]) -> list[Path]:
    """Every ``*-qrel.txt`` below ``root``, following symbolic links (a data folder is often a
    link to a shared copy; ``Path.rglob`` does not follow them before Python 3.13)."""
    return [Path(d) / f for d, _, files in os.walk(root, followlinks=True) for f in files if f.endswith("-qrel.txt")]


def _natural(p: Path) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(p))]
