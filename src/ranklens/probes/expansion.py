"""doc2query-style expanders for the ``tr-doc2query`` probe.

An expander maps documents to expansion queries: ``expand(doc_ids, texts) -> list[list[str]]``.

* :class:`Seq2SeqExpander`: any Hugging Face seq2seq model directory (docT5query checkpoints,
  e.g. ``castorini/doc2query-t5-base-msmarco`` once downloaded); top-k sampling as in
  docTTTTTquery, seeded.
* :class:`FileExpander`: precomputed expansions from a file: TSV ``doc_id<TAB>query`` (one row
  per query; a header ``doc_id\tquery`` is allowed) or JSONL ``{"doc_id": ..., "queries": [...]}``.

Generation is data preparation, not ranking, so it does not go through the scoring engine.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .._lazy import require
from ..errors import DataFormatError

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


@dataclass(kw_only=True)
class Seq2SeqExpander:
    """Sample ``num_queries`` queries per document from a local seq2seq model."""

    model_path: str
    num_queries: int = 4  # the paper: "we generate four queries to add to each document"
    max_new_tokens: int = 32
    top_k: int = 10
    max_input_tokens: int = 512
    seed: int = 0
    batch_size: int = 8
    device: str = "cpu"
    _model: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def fingerprint(self) -> str:
        from .._hashing import sha256_json

        cfg = Path(self.model_path) / "config.json"
        rev = cfg.read_text() if cfg.is_file() else self.model_path
        payload = {k: getattr(self, k) for k in ("num_queries", "max_new_tokens", "top_k", "seed")}
        return f"Seq2SeqExpander@{sha256_json([rev, payload])[:16]}"

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            tr = require("transformers", feature="doc2query expansion")
            tok = tr.AutoTokenizer.from_pretrained(self.model_path)
            model = tr.AutoModelForSeq2SeqLM.from_pretrained(self.model_path).to(self.device).eval()
            self._model = (tok, model)
        return self._model

    def expand(self, doc_ids: Sequence[str], texts: Sequence[str]) -> list[list[str]]:
        torch = require("torch", feature="doc2query expansion")
        tok, model = self._load()
        out: list[list[str]] = []
        for s in range(0, len(texts), self.batch_size):
            chunk = list(texts[s:s + self.batch_size])
            torch.manual_seed(self.seed + s)
            enc = tok(chunk, return_tensors="pt", padding=True, truncation=True,
                      max_length=self.max_input_tokens).to(self.device)
            with torch.no_grad():
                gen = model.generate(**enc, do_sample=True, top_k=self.top_k,
                                     max_new_tokens=self.max_new_tokens,
                                     num_return_sequences=self.num_queries)
            dec = tok.batch_decode(gen, skip_special_tokens=True)
            for i in range(len(chunk)):
                out.append([q.strip() for q in dec[i * self.num_queries:(i + 1) * self.num_queries]])
        return out


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
