"""Training every trainer on every distinct training set of a list of splits, resumably
(:func:`train_variants`), and the record of one trained model (:class:`TrainedVariant`).

Each variant lives under ``out_dir/<trainer>/<training_id>/``; a finished variant (``done.json``)
is reloaded, not retrained, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import inspect
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ValidationError
from ..files import write_text_atomic
from .similarity import _check_queries
from .splits import Split, _ordered
from .trainers import _corpus_digest, _trainer_identity, _write_done, training_id

__all__ = ["TrainedVariant", "train_variants"]

@dataclass(frozen=True)
class TrainedVariant:
    """One trained model: which trainer, on which split's training set(s)."""

    trainer: str
    split: str
    regimes: tuple[str, ...]  # the split regimes whose training set this model was trained on
    training_id: str
    ranker: Any = field(compare=False, repr=False)
    output_dir: str | None = None
    seconds: float = 0.0
    resumed: bool = False
    #: the trainer's class and parameters (as in the training id), recorded in the regime table's provenance
    trainer_params: Any = field(default=None, compare=False, repr=False)

def _trainer_name(trainer: Any) -> str:
    name = getattr(trainer, "name", None)
    if isinstance(name, str) and name:
        return name
    return getattr(trainer, "__name__", type(trainer).__name__)

def _call_train(trainer: Any, tq: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str],
                output_dir: Path, engine: Any) -> Any:
    fn = trainer.train if hasattr(trainer, "train") else trainer
    if not callable(fn):
        raise ValidationError(f"trainer {trainer!r} has no train() method and is not callable")
    params = inspect.signature(fn).parameters
    kw: dict[str, Any] = {}
    if "output_dir" in params:
        kw["output_dir"] = output_dir
    if "engine" in params:
        kw["engine"] = engine
    return fn(tq, qrels, corpus, **kw)

def train_variants(
    trainers: Sequence[Any],
    splits: Sequence[Split],
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    out_dir: str | os.PathLike[str],
    *,
    engine: Any = None,
    on_variant: Callable[[TrainedVariant], None] | None = None,
) -> list[TrainedVariant]:
    """Train every trainer on every distinct training set of ``splits`` (resumable).

    Each variant lives in ``out_dir/<trainer name>/<training_id>/``; with a ``done.json`` there
    and a trainer that has ``load(...)``, the model is reloaded instead of retrained. Regimes of one
    split that share a training set (ReSTTest) share one model.

    Args:
        trainers: built-in trainers, objects with ``train``, or plain callables.
        splits: from :class:`~.splits.ReSTrain` / :class:`~.splits.ReSTTest`.
        queries: every query (training and test), ``query_id`` and ``text``.
        qrels: judgments of at least the training queries.
        corpus: ``doc_id -> text``.
        out_dir: checkpoint root.
        on_variant: called after each variant (e.g. for logging progress).
    """
    q = _check_queries(queries, "queries")
    text = dict(zip(q["query_id"], q["text"]))
    root = Path(out_dir)
    cdig = _corpus_digest(corpus)
    out: list[TrainedVariant] = []
    names = [_trainer_name(t) for t in trainers]
    if len(set(names)) != len(names):
        raise ValidationError(f"trainer names must be distinct (they name the checkpoint folders), got {names}")
    for trainer, tname in zip(trainers, names):
        for split in splits:
            groups: dict[tuple[str, ...], list[str]] = {}
            for regime in _ordered(split.regimes):
                groups.setdefault(tuple(sorted(split.train_ids(regime))), []).append(regime)
            for train_ids, regimes in groups.items():
                missing = [x for x in train_ids if x not in text]
                if missing:
                    raise ValidationError(f"split {split.name!r}: training query {missing[0]!r} has no text in queries")
                tq = pd.DataFrame({"query_id": list(train_ids), "text": [text[x] for x in train_ids]})
                tid = training_id(trainer, tq, qrels, cdig)
                vdir = root / tname / tid
                t0 = time.time()
                resumed = False
                loader = getattr(trainer, "load", None)
                if (vdir / "done.json").is_file() and loader is not None:
                    lp = inspect.signature(loader).parameters
                    kw = {k: v for k, v in {"corpus": corpus, "train_queries": tq, "qrels": qrels}.items() if k in lp}
                    ranker = loader(vdir, tid, **kw)
                    resumed = True
                else:
                    vdir.mkdir(parents=True, exist_ok=True)
                    ranker = _call_train(trainer, tq, qrels, corpus, vdir, engine)
                    if not (vdir / "done.json").is_file():
                        _write_done(vdir, {"trainer": tname, "training_id": tid})
                write_text_atomic(vdir / "variant.json", json.dumps(
                    {"trainer": tname, "split": split.name, "regimes": regimes, "split_fingerprint": split.fingerprint,
                     "n_train": len(train_ids)}, indent=2), what="variant marker")
                v = TrainedVariant(trainer=tname, split=split.name, regimes=tuple(regimes), training_id=tid,
                                   ranker=ranker, output_dir=str(vdir), seconds=time.time() - t0, resumed=resumed,
                                   trainer_params=_trainer_identity(trainer))
                out.append(v)
                if on_variant is not None:
                    on_variant(v)
    return out
