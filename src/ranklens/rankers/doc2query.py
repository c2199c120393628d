"""doc2query: documents expanded with generated queries, and the DT5Q ranker over them.

* :class:`Seq2SeqExpander`: any Hugging Face seq2seq model directory (docT5query checkpoints,
  e.g. ``castorini/doc2query-t5-base-msmarco`` once downloaded) sampling expansion queries for
  texts, top-k sampling as in docTTTTTquery, seeded. The ``tr-doc2query`` probe uses it too
  (:mod:`ranklens.probes.expansion`).
* :class:`DT5QRanker`: the ABNIRML paper's DT5Q ranker, BM25 over doc2query-expanded texts (model
  spec ``dt5q:<model dir>``, :mod:`ranklens.specs`).

Generation is data preparation, not ranking, so it does not go through the scoring engine.
"""

from __future__ import annotations

import dataclasses
import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._lazy import require
from ..errors import ValidationError
from .base import named_fingerprint
from .bm25 import BM25Ranker

__all__ = ["DT5QRanker", "Seq2SeqExpander"]


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
    seed_per_text: bool = False
    _model: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def fingerprint(self) -> str:
        cfg = Path(self.model_path) / "config.json"
        rev = cfg.read_text() if cfg.is_file() else self.model_path
        payload = {k: getattr(self, k) for k in ("num_queries", "max_new_tokens", "top_k", "seed")}
        if self.seed_per_text:
            payload["seed_per_text"] = True
        return named_fingerprint("Seq2SeqExpander", [rev, payload])

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            tr = require("transformers", feature="doc2query expansion")
            tok = tr.AutoTokenizer.from_pretrained(self.model_path)
            model = tr.AutoModelForSeq2SeqLM.from_pretrained(self.model_path).to(self.device).eval()
            self._model = (tok, model)
        return self._model

    def expand(self, doc_ids: Sequence[str], texts: Sequence[str]) -> list[list[str]]:
        """``num_queries`` sampled queries per text; with ``seed_per_text`` each text is generated
        alone with a seed of its own (``seed`` + CRC-32 of the text), so a text's expansion does not
        depend on the other texts of the call (what a ranker needs)."""
        torch = require("torch", feature="doc2query expansion")
        tok, model = self._load()
        out: list[list[str]] = []
        step = 1 if self.seed_per_text else self.batch_size
        for s in range(0, len(texts), step):
            chunk = list(texts[s:s + step])
            torch.manual_seed(self.seed + (zlib.crc32(chunk[0].encode("utf-8")) if self.seed_per_text else s))
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


@dataclass(kw_only=True)
class DT5QRanker:
    """DT5Q (ABNIRML §3.1; Nogueira & Lin 2019): every text is expanded with ``num_queries``
    doc2query queries (the paper: four, from the authors' docT5query model) and scored by BM25
    over the expanded text, BM25's statistics taken from the expanded corpus ("we use BM25 as a
    scoring function over the expanded documents"). Model spec ``dt5q:<seq2seq model dir>``.

    Each text's expansion is seeded by the text itself (:attr:`Seq2SeqExpander.seed_per_text`), so
    a score does not depend on which other texts share its batch (the engine caches scores).
    ``k1``/``b`` are :class:`~ranklens.rankers.bm25.BM25Ranker`'s defaults.
    """

    model_path: str
    num_queries: int = 4
    k1: float = 0.9
    b: float = 0.4
    device: str = "cpu"
    _bm25: Any = field(default=None, init=False, repr=False, compare=False)
    _exp: Any = field(default=None, init=False, repr=False, compare=False)
    _memo: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return f"DT5Q({Path(self.model_path).name})"

    def _expander(self) -> Seq2SeqExpander:
        if self._exp is None:
            self._exp = Seq2SeqExpander(model_path=self.model_path, num_queries=self.num_queries, device=self.device,
                                        seed_per_text=True)
        return self._exp

    @property
    def fingerprint(self) -> str:
        bm25 = self._bm25.fingerprint if self._bm25 is not None else "unfitted"
        return named_fingerprint("DT5QRanker", {"expander": self._expander().fingerprint, "bm25": bm25})

    def expand(self, texts: Sequence[str]) -> list[str]:
        """Each text followed by its expansion queries (memoised per ranker)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            for t, qs in zip(todo, self._expander().expand([""] * len(todo), todo)):
                self._memo[t] = " ".join([t.rstrip(), *(q for q in qs if q.strip())])
        return [self._memo[t] for t in texts]

    def fit(self, corpus_texts: Sequence[str]) -> DT5QRanker:
        """A fitted copy: BM25 statistics of the expanded corpus."""
        new = dataclasses.replace(self)
        new._memo, new._exp = self._memo, self._expander()
        new._bm25 = BM25Ranker(k1=self.k1, b=self.b).fit(new.expand(list(corpus_texts)))
        return new

    def score(self, queries: Sequence[str], texts: Sequence[str]) -> Any:
        """BM25 of each query against the expanded text."""
        if self._bm25 is None:
            raise ValidationError("DT5QRanker is not fitted: ranklens.specs.make_ranker('dt5q:<model dir>', corpus=docs) "
                                  "or DT5QRanker(...).fit(corpus_texts)")
        return self._bm25.score(list(queries), self.expand(texts))
