"""Trainers: ``train(train_queries, qrels, corpus) -> Ranker`` (Zhan et al., §4.2): the
:class:`Trainer` protocol, the training id every trained model is known by (:func:`training_id`)
and the cheap built-ins:

- :class:`BM25Trainer`: grid-searches BM25 ``k1``/``b`` for nDCG@10 on the training queries.
- :class:`MemorizingTrainer`: the memorising sanity baseline (:class:`~.rankers.MemorizingRanker`).
- :class:`CallableTrainer`: any ``fn(train_queries, qrels, corpus) -> Ranker``.

The neural trainers are in :mod:`.finetune`, their loop in :mod:`.optimise`; training every
trainer on every split is :func:`~.variants.train_variants`.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from .._hashing import sha256_json, sha256_texts
from ..errors import ValidationError
from ..files import atomic_output, write_text_atomic
from .optimise import CHECKPOINT_DIR
from .rankers import MemorizingRanker, tuned_bm25
from .similarity import _check_queries

__all__ = [
    "BM25Trainer",
    "CallableTrainer",
    "MemorizingTrainer",
    "Trainer",
    "training_id",
]

@runtime_checkable
class Trainer(Protocol):
    """Anything with ``train(train_queries, qrels, corpus) -> Ranker``.

    ``train_queries``: DataFrame (``query_id``, ``text``); ``qrels``: DataFrame (``query_id``,
    ``doc_id``, ``relevance``), possibly covering more queries than ``train_queries``;
    ``corpus``: mapping ``doc_id -> text`` (e.g. a :class:`~ranklens.io.DocStore`).
    Built-in trainers also accept ``output_dir=`` (checkpoints) as a keyword.
    """

    def train(self, train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str]) -> Any: ...

def _corpus_digest(corpus: Mapping[str, str]) -> str:
    return sha256_texts(f"{k}\t{corpus[k]}" for k in sorted(corpus))[:16]

def training_id(trainer: Any, train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus_digest: str) -> str:
    """Digest of trainer parameters, training queries, their qrels and the corpus."""
    q = _check_queries(train_queries, "train_queries")
    ids = set(q["query_id"])
    sub = qrels.loc[qrels["query_id"].astype(str).isin(ids)]
    rows = sorted(f"{a}\t{b}\t{int(c)}" for a, b, c in zip(sub["query_id"].astype(str), sub["doc_id"].astype(str), sub["relevance"]))
    payload = {"trainer": _trainer_identity(trainer),
               "queries": sorted(f"{a}\t{b}" for a, b in zip(q["query_id"], q["text"])),
               "qrels": sha256_texts(rows), "corpus": corpus_digest}
    return sha256_json(payload)[:16]

def _trainer_identity(trainer: Any) -> Any:
    """Class and parameters; callables by module + qualified name (never by memory address)."""
    import dataclasses

    def ident(v: Any) -> Any:
        if callable(v) and not isinstance(v, type):
            return f"{getattr(v, '__module__', '?')}.{getattr(v, '__qualname__', type(v).__name__)}"
        return v

    if dataclasses.is_dataclass(trainer):
        params = {f.name: ident(getattr(trainer, f.name)) for f in dataclasses.fields(trainer)
                  if f.name not in {"show_progress", "device", "checkpoint_every"}}
        return {"class": type(trainer).__qualname__, **params}
    return ident(trainer) if callable(trainer) and not hasattr(trainer, "train") else type(trainer).__qualname__

def _write_done(output_dir: Path | None, info: Mapping[str, Any]) -> None:
    if output_dir is not None:
        write_text_atomic(output_dir / "done.json", json.dumps(info, indent=2, sort_keys=True, default=str),
                          what="training marker")
        shutil.rmtree(output_dir / CHECKPOINT_DIR, ignore_errors=True)

@dataclass(frozen=True)
class BM25Trainer:
    """BM25 with ``k1``/``b`` chosen by grid search on the training queries (the paper tunes
    Anserini's BM25 "on the training data with grid search").

    Objective: mean ``measure`` (ir_measures) of each training query's top-``grid_depth`` BM25 run
    retrieved from the whole corpus (:func:`ranklens.rankers.retrieval.retrieve`, bm25s); ties in
    the objective go to the earlier grid point. The model is
    :func:`~.rankers.tuned_bm25` (``ranklens.rankers.BM25Ranker``, Lucene idf).
    """

    k1_grid: tuple[float, ...] = (0.6, 0.9, 1.2, 1.5, 2.0)
    b_grid: tuple[float, ...] = (0.2, 0.4, 0.6, 0.75, 0.9)
    measure: str = "nDCG@10"
    grid_depth: int = 100
    name: str = "bm25-tuned"

    def __post_init__(self) -> None:
        if not self.k1_grid or not self.b_grid:
            raise ValidationError(f"BM25Trainer: k1_grid and b_grid must be non-empty, got {self.k1_grid} and "
                                  f"{self.b_grid}")
        if self.grid_depth < 1:
            raise ValidationError(f"BM25Trainer: grid_depth must be >= 1, got {self.grid_depth}")

    def load(self, output_dir: Path, tid: str, corpus: Mapping[str, str]) -> Any:
        """Rebuild the tuned ranker from ``done.json`` (refits corpus statistics)."""
        info = json.loads((output_dir / "done.json").read_text())
        return tuned_bm25(info["k1"], info["b"], [corpus[d] for d in corpus])

    def _grid(self, q: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], engine: Any) -> pd.DataFrame:
        from ..rankers import BM25Ranker
        from ..rankers.retrieval import retrieve
        from .scoring import evaluate_run

        rows = []
        for k1 in self.k1_grid:
            for b in self.b_grid:
                run = retrieve(BM25Ranker(k1=k1, b=b, method="lucene"), q, corpus, k=self.grid_depth, engine=engine)
                pq = evaluate_run(run, qrels, [self.measure], q["query_id"].tolist())
                rows.append({"k1": k1, "b": b, self.measure: float(pq["value"].mean()) if len(pq) else float("nan")})
        return pd.DataFrame(rows)

    def train(self, train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], *,
              output_dir: str | os.PathLike[str] | None = None, engine: Any = None) -> Any:
        """Grid-search and return the tuned ranker; the grid goes to ``output_dir/grid.tsv``."""
        q = _check_queries(train_queries, "train_queries")
        tid = training_id(self, train_queries, qrels, _corpus_digest(corpus))
        sub_qrels = qrels.loc[qrels["query_id"].astype(str).isin(set(q["query_id"]))]
        grid = self._grid(q, sub_qrels, corpus, engine)
        vals = grid[self.measure].fillna(-np.inf).to_numpy()
        best = grid.iloc[int(np.argmax(vals))]  # first maximum: the earlier grid point wins ties
        if output_dir is not None:
            with atomic_output(Path(output_dir) / "grid.tsv", what="BM25 grid table") as tmp:
                grid.to_csv(tmp, sep="\t", index=False)
        _write_done(Path(output_dir) if output_dir else None,
                    {"trainer": self.name, "training_id": tid, "k1": float(best["k1"]), "b": float(best["b"]),
                     self.measure: float(best[self.measure])})
        return tuned_bm25(best["k1"], best["b"], [corpus[d] for d in corpus])

@dataclass(frozen=True)
class MemorizingTrainer:
    """The memorising baseline: remembers which training queries judged which documents relevant."""

    rel: int = 1
    name: str = "memorizing"

    def load(self, output_dir: Path, tid: str, train_queries: pd.DataFrame, qrels: pd.DataFrame,
             corpus: Mapping[str, str]) -> MemorizingRanker:
        """Rebuild (cheap, deterministic)."""
        return self.train(train_queries, qrels, corpus)

    def train(self, train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], *,
              output_dir: str | os.PathLike[str] | None = None) -> MemorizingRanker:
        """Build the memorising ranker."""
        q = _check_queries(train_queries, "train_queries")
        tid = training_id(self, train_queries, qrels, _corpus_digest(corpus))
        pos_of = {qid: i for i, qid in enumerate(q["query_id"])}
        positives: dict[str, list[int]] = {}
        sub = qrels.loc[qrels["query_id"].astype(str).isin(set(pos_of)) & (qrels["relevance"].astype("int64") >= self.rel)]
        for qid, did in zip(sub["query_id"].astype(str), sub["doc_id"].astype(str)):
            if did in corpus:
                positives.setdefault(corpus[did], []).append(pos_of[qid])
        _write_done(Path(output_dir) if output_dir else None,
                    {"trainer": self.name, "training_id": tid, "documents": len(positives)})
        return MemorizingRanker.build(q["text"].tolist(), positives, training_id=tid)

@dataclass(frozen=True)
class CallableTrainer:
    """Wrap ``fn(train_queries, qrels, corpus) -> Ranker`` (``output_dir=`` passed if accepted)."""

    fn: Callable[..., Any]
    name: str = "callable"

    def train(self, train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], *,
              output_dir: str | os.PathLike[str] | None = None) -> Any:
        """Call the function."""
        if output_dir is not None and "output_dir" in inspect.signature(self.fn).parameters:
            return self.fn(train_queries, qrels, corpus, output_dir=output_dir)
        return self.fn(train_queries, qrels, corpus)
