"""doc2query-style expanders for the ``tr-doc2query`` probe.

An expander maps documents to expansion queries: ``expand(doc_ids, texts) -> list[list[str]]``.

* :class:`~ranklens.rankers.doc2query.Seq2SeqExpander`: any Hugging Face seq2seq model directory
  (docT5query checkpoints), sampling seeded queries; it lives with the DT5Q ranker in
  :mod:`ranklens.rankers.doc2query`.
* :class:`FileExpander`: precomputed expansions from a file: TSV ``doc_id<TAB>query`` (one row
  per query; a header ``doc_id\tquery`` is allowed) or JSONL ``{"doc_id": ..., "queries": [...]}``.

Generation is data preparation, not ranking, so it does not go through the scoring engine.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import DataFormatError
from ..rankers.doc2query import Seq2SeqExpander

__all__ = ["Expander", "FileExpander", "Seq2SeqExpander", "make_expander"]


class Expander(Protocol):
    """Produces expansion queries for documents."""

    @property
    def fingerprint(self) -> str: ...

    def expand(self, doc_ids: Sequence[str], texts: Sequence[str]) -> list[list[str]]: ...


@dataclass(kw_only=True)
class FileExpander:
    """Expansions read from a TSV or JSONL file (see module docstring); documents without an
    entry get no expansion."""

    path: str

    @property
    def fingerprint(self) -> str:
        from .._hashing import sha256_file

        return f"FileExpander@{sha256_file(self.path)[:16]}"

    def _table(self) -> dict[str, list[str]]:
        p = Path(self.path)
        if not p.is_file():
            raise DataFormatError("expansions file not found", path=p)
        out: dict[str, list[str]] = defaultdict(list)
        with p.open(encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                if line.lstrip().startswith("{"):
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise DataFormatError(f"invalid JSON ({exc.msg})", path=p, line=i) from None
                    if "doc_id" not in rec or "queries" not in rec:
                        raise DataFormatError("JSONL record needs 'doc_id' and 'queries'", path=p, line=i)
                    out[str(rec["doc_id"])].extend(str(q) for q in rec["queries"])
                else:
                    parts = line.split("\t")
                    if len(parts) != 2:
                        raise DataFormatError(
                            f"expected 'doc_id<TAB>query', got {len(parts)} column(s)", path=p, line=i)
                    if i == 1 and parts == ["doc_id", "query"]:
                        continue
                    out[parts[0]].append(parts[1])
        return dict(out)

    def expand(self, doc_ids: Sequence[str], texts: Sequence[str]) -> list[list[str]]:
        table = self._table()
        return [list(table.get(d, [])) for d in doc_ids]


def make_expander(spec: str | None) -> Expander | None:
    """``None`` -> no expander; a directory -> :class:`Seq2SeqExpander`; a file ->
    :class:`FileExpander`.

    Raises:
        DataFormatError: when the path does not exist.
    """
    if not spec:
        return None
    p = Path(spec)
    if p.is_dir():
        return Seq2SeqExpander(model_path=str(p))
    if p.is_file():
        return FileExpander(path=str(p))
    raise DataFormatError("doc2query expander: not a model directory nor an expansions file", path=p)
