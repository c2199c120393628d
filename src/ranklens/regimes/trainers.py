"""Trainers: ``train(train_queries, qrels, corpus) -> Ranker`` (Zhan et al., §4.2).

Built-ins:

- :class:`BiEncoderTrainer`: fine-tunes a sentence-transformers bi-encoder with in-batch negatives
  (``MultipleNegativesRankingLoss``), one (query, positive) pair per judged positive.
- :class:`CrossEncoderTrainer`: fine-tunes a sentence-transformers cross-encoder with the paper's
  pairwise cross-entropy over (query, positive, negative) triples (judged and random corpus
  negatives); ``loss="pointwise"`` uses ``BinaryCrossEntropyLoss`` instead.

Both neural trainers can hold out ``dev_fraction`` of the training queries and keep the
checkpoint with the best dev MRR@10 (the paper selects checkpoints on a development set).
- :class:`BM25Trainer`: grid-searches BM25 ``k1``/``b`` for nDCG@10 on the training queries.
- :class:`MemorizingTrainer`: the memorising sanity baseline (:class:`~.rankers.MemorizingRanker`).
- :class:`CallableTrainer`: any ``fn(train_queries, qrels, corpus) -> Ranker``.

The manual training loops (instead of ``SentenceTransformerTrainer``) exist because that trainer
needs the ``datasets`` and ``accelerate`` packages, which ranklens does not depend on; the loss
modules are the library's own.

:func:`train_variants` trains every trainer on every distinct training set of a list of splits,
under ``out_dir/<trainer>/<training_id>/``; a finished variant (``done.json``) is reloaded, not
retrained, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from .._hashing import sha256_json, sha256_texts
from ..errors import DataFormatError, ValidationError
from .rankers import FineTunedBiEncoderRanker, FineTunedCrossEncoderRanker, MemorizingRanker, tuned_bm25
from .similarity import _check_queries
from .splits import Split, _ordered

__all__ = [
    "BM25Trainer",
    "BiEncoderTrainer",
    "CallableTrainer",
    "CrossEncoderTrainer",
    "MemorizingTrainer",
    "Trainer",
    "TrainedVariant",
    "train_variants",
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


def _positive_pairs(train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], rel: int) -> list[tuple[str, str, str]]:
    """(query_id, query text, positive doc text) for every judged positive found in the corpus."""
    q = _check_queries(train_queries, "train_queries")
    text = dict(zip(q["query_id"], q["text"]))
    sub = qrels.loc[qrels["query_id"].astype(str).isin(set(text)) & (qrels["relevance"].astype("int64") >= rel)]
    out = []
    missing = 0
    for qid, did in zip(sub["query_id"].astype(str), sub["doc_id"].astype(str)):
        doc = corpus.get(did)
        if doc is None:
            missing += 1
            continue
        out.append((qid, text[qid], doc))
    if not out:
        raise ValidationError(
            f"no training pairs: none of the {len(text)} training queries has a positive (relevance >= {rel}) "
            f"in the corpus ({missing} positives missing from the corpus); check query ids and the corpus"
        )
    return out


def in_batch_negative_batches(order: list[int], pairs: Sequence[tuple[str, str, str]],
                              batch_size: int) -> list[list[int]]:
    """Cut ``order`` (indices into ``pairs`` = (query_id, query, positive)) into batches for
    in-batch negatives in which no query and no positive text occurs twice -- a repeated query
    would make its other positive a negative, a repeated positive would be its own negative.
    A pair that clashes waits for the next batch (order otherwise kept); batches of one pair
    (no negative) are dropped."""
    batches: list[list[int]] = []
    pending = list(order)
    while pending:
        batch: list[int] = []
        queries: set[str] = set()
        docs: set[str] = set()
        rest: list[int] = []
        for i in pending:
            qid, _, doc = pairs[i]
            if len(batch) < batch_size and qid not in queries and doc not in docs:
                batch.append(i)
                queries.add(qid)
                docs.add(doc)
            else:
                rest.append(i)
        if len(batch) > 1:
            batches.append(batch)
        pending = rest  # the first pending pair always fits, so this shrinks every round
    return batches


def _seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:  # pragma: no cover - torch is optional for BM25/memorising
        pass


def _schedule(optimizer: Any, total: int, warmup: int) -> Any:
    import torch

    def f(step: int) -> float:
        if step < warmup:
            return (step + 1) / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)


def _write_done(output_dir: Path | None, info: Mapping[str, Any]) -> None:
    if output_dir is not None:
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / "done.json").write_text(json.dumps(info, indent=2, sort_keys=True, default=str))
        shutil.rmtree(output_dir / CHECKPOINT_DIR, ignore_errors=True)


#: sub-folder of a training run's ``output_dir`` holding the latest checkpoint while it runs
CHECKPOINT_DIR = "checkpoint"


def _load_checkpoint(ckpt: Path, n_batches: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The checkpoint under ``ckpt`` (``state.pt``: tensors only, read with ``weights_only=True``;
    ``state.json``: step, losses, scheduler), or ``None`` when absent or from another schedule.

    Raises:
        DataFormatError: ``state.pt`` is not a weights-only file (e.g. a planted pickle that would run
            code): it is refused, never unpickled.
    """
    import pickle

    import torch

    meta_path = ckpt.with_suffix(".json")
    if not ckpt.is_file() or not meta_path.is_file():
        return None
    try:
        tensors = torch.load(ckpt, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, AttributeError, TypeError) as exc:
        raise DataFormatError(f"training checkpoint refused: not a weights-only torch file ({str(exc)[:200]}); "
                              "delete the checkpoint folder to train from the start", path=ckpt) from None
    try:
        meta = json.loads(meta_path.read_text())
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"invalid JSON: {exc.msg}", path=meta_path, line=exc.lineno) from None
    if not isinstance(tensors, dict) or int(tensors.get("step", torch.tensor(-1))) != meta.get("step"):
        return None  # killed between the two writes: start over
    return (tensors, meta) if meta.get("n_batches") == n_batches else None


def _save_checkpoint(ckpt: Path, model: Any, optimizer: Any, sched: Any, step: int, losses: list[float],
                     n_batches: int, dev: _DevState | None = None) -> None:
    import torch

    ckpt.parent.mkdir(parents=True, exist_ok=True)
    tmp = ckpt.with_suffix(".tmp")
    tensors = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state(),
               "step": torch.tensor(step)}
    if dev is not None and dev.best_state is not None:
        tensors["best"] = dev.best_state
    torch.save(tensors, tmp)
    os.replace(tmp, ckpt)
    meta = {"step": step, "losses": losses, "n_batches": n_batches, "scheduler": sched.state_dict(),
            "dev_history": dev.history if dev is not None else []}
    tmp_json = ckpt.with_suffix(".json.tmp")
    tmp_json.write_text(json.dumps(meta, default=float))
    os.replace(tmp_json, ckpt.with_suffix(".json"))


@dataclass
class _DevState:
    """Dev-set checkpoint selection while training (mutable, private to one training run)."""

    evaluate: Callable[[], float]
    steps: frozenset[int]
    history: list[list[float]] = field(default_factory=list)  # [step, dev score]
    best_state: dict[str, Any] | None = None

    def check(self, model: Any, step: int) -> None:
        import torch

        if step not in self.steps:
            return
        model.eval()
        with torch.no_grad():
            score = float(self.evaluate())
        model.train()
        if not self.history or score > max(v for _, v in self.history):  # first best kept on ties
            self.best_state = {k: v.detach().to("cpu").clone() for k, v in model.state_dict().items()}
        self.history.append([step, score])

    def best_step(self) -> int | None:
        if not self.history:
            return None
        best = max(v for _, v in self.history)
        return int(next(st for st, v in self.history if v == best))


def _eval_steps(n_batches: int, per_epoch: int, eval_every: int) -> frozenset[int]:
    """Steps after which the dev set is evaluated: every ``eval_every`` steps (0: every 2 epochs,
    the paper's) and the last step."""
    every = eval_every if eval_every > 0 else 2 * max(1, per_epoch)
    return frozenset([*range(every, n_batches + 1, every), n_batches])


def _resume(ckpt: Path | None, n_batches: int, model: Any, optimizer: Any, sched: Any,
            dev: _DevState | None) -> tuple[int, list[float]]:
    import torch

    found = _load_checkpoint(ckpt, n_batches) if ckpt is not None else None
    if found is None:
        return 0, []
    tensors, meta = found
    model.load_state_dict(tensors["model"])
    optimizer.load_state_dict(tensors["optimizer"])
    sched.load_state_dict(meta["scheduler"])
    torch.set_rng_state(tensors["rng"])
    if dev is not None:
        dev.history = [list(x) for x in meta.get("dev_history", [])]
        dev.best_state = tensors.get("best")
    return int(meta["step"]), [float(x) for x in meta["losses"]]


def _optimise(model: Any, batches: list[list[int]], loss_of: Callable[[list[int]], Any], *, lr: float,
              warmup_ratio: float, output_dir: Path | None, checkpoint_every: int, desc: str,
              show_progress: bool | None, dev: _DevState | None = None) -> tuple[list[float], int]:
    """The optimisation loop of the neural trainers (AdamW, linear warm-up/decay, clipping).

    Every ``checkpoint_every`` steps (0: never) the model, optimiser and torch RNG states
    (tensors, ``state.pt``, read back with ``torch.load(weights_only=True)``) and the step, losses
    and scheduler state (``state.json``) are saved atomically under ``output_dir/checkpoint``; a
    run that finds a checkpoint there continues from it, so a killed training resumes where it
    stopped and ends with the same weights as an uninterrupted run (same seeded batches).
    With ``dev`` (dev-set checkpoint selection, the paper's) the dev score is computed after the
    steps in ``dev.steps`` and the model ends with the weights of the best one (kept in the
    checkpoint too). Returns the losses and the step it started from.
    """
    import torch

    from .._progress import progress

    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = _schedule(optimizer, len(batches), int(warmup_ratio * len(batches)))
    ckpt = output_dir / CHECKPOINT_DIR / "state.pt" if output_dir is not None and checkpoint_every > 0 else None
    start, losses = _resume(ckpt, len(batches), model, optimizer, sched, dev)
    model.train()
    bar = progress(total=len(batches), desc=desc, unit="step", show=show_progress, initial=start)
    try:
        for i in range(start, len(batches)):
            loss = loss_of(batches[i])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            sched.step()
            optimizer.zero_grad()
            losses.append(float(loss.detach()))
            bar.update(1)
            if dev is not None:
                dev.check(model, i + 1)
            if ckpt is not None and (i + 1) % checkpoint_every == 0 and i + 1 < len(batches):
                _save_checkpoint(ckpt, model, optimizer, sched, i + 1, losses, len(batches), dev)
    finally:
        bar.close()
    if dev is not None and dev.best_state is not None:
        model.load_state_dict(dev.best_state)
    model.eval()
    return losses, start


def dev_split(train_queries: pd.DataFrame, qrels: pd.DataFrame, fraction: float, seed: int, rel: int = 1,
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(training part, dev part): a seeded share ``fraction`` of the training queries that have
    a positive held out for checkpoint selection (none when ``fraction`` is 0)."""
    q = _check_queries(train_queries, "train_queries")
    if fraction <= 0:
        return q, q.iloc[:0]
    pos = set(qrels.loc[qrels["relevance"].astype("int64") >= rel, "query_id"].astype(str))
    cand = np.flatnonzero(q["query_id"].isin(pos).to_numpy())
    n_dev = int(round(len(cand) * fraction))
    if n_dev < 1 or n_dev >= len(cand):
        raise ValidationError(f"dev_fraction={fraction} of {len(cand)} training queries with a positive leaves no "
                              "dev or no training query; use a fraction between 1/n and (n-1)/n, or 0")
    dev = np.zeros(len(q), dtype=bool)
    dev[np.random.default_rng(seed).choice(cand, size=n_dev, replace=False)] = True
    return q.loc[~dev].reset_index(drop=True), q.loc[dev].reset_index(drop=True)


def dev_candidates(dev_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], negatives: int,
                   seed: int, rel: int = 1) -> list[tuple[str, list[str], list[bool]]]:
    """Per dev query: (text, candidate texts, is-positive flags): its judged documents plus
    ``negatives`` random corpus documents (seeded) -- a cheap re-ranking dev set."""
    rng = np.random.default_rng(seed)
    doc_ids = list(corpus)
    out = []
    for qid, text in zip(dev_queries["query_id"], dev_queries["text"]):
        sub = qrels.loc[qrels["query_id"].astype(str) == qid]
        judged = {str(d): int(r) >= rel for d, r in zip(sub["doc_id"], sub["relevance"]) if str(d) in corpus}
        for j in rng.integers(0, len(doc_ids), size=negatives):
            judged.setdefault(doc_ids[j], False)
        out.append((text, [corpus[d] for d in judged], list(judged.values())))
    return out


def dev_mrr(items: Sequence[tuple[str, list[str], list[bool]]], score: Callable[[str, list[str]], Any],
            k: int = 10) -> float:
    """Mean reciprocal rank at ``k`` over the dev items (ties: candidate order)."""
    rr = []
    for text, docs, flags in items:
        s = np.asarray(score(text, docs), dtype=np.float64)
        order = np.argsort(-s, kind="stable")[:k]
        hit = [i for i, o in enumerate(order) if flags[o]]
        rr.append(1.0 / (hit[0] + 1) if hit else 0.0)
    return float(np.mean(rr)) if rr else float("nan")


def _make_dev(dev_q: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str],
              score: Callable[[str, list[str]], Any], n_batches: int, per_epoch: int, t: Any) -> _DevState | None:
    if not len(dev_q):
        return None
    items = dev_candidates(dev_q, qrels, corpus, t.dev_negatives, t.seed, t.rel)
    return _DevState(evaluate=lambda: dev_mrr(items, score), steps=_eval_steps(n_batches, per_epoch, t.eval_every))


def _dev_info(dev: _DevState | None, dev_q: pd.DataFrame) -> dict[str, Any]:
    if dev is None:
        return {"dev_queries": 0}
    return {"dev_queries": len(dev_q), "dev_measure": "MRR@10 (judged + random negatives)",
            "dev_history": dev.history, "best_step": dev.best_step()}


CROSS_ENCODER_LOSSES = ("pairwise", "pointwise")


def _ce_logits(model: Any, pairs: list[tuple[str, str]]) -> Any:
    """Raw relevance logits of a sentence-transformers CrossEncoder for (query, doc) pairs, with
    gradients (the same preprocessing and forward as its own losses)."""
    from sentence_transformers.util import batch_to_device

    feats = batch_to_device(model.preprocess(pairs), model.device)
    return model(feats)["scores"].view(-1)


@dataclass(frozen=True)
class BiEncoderTrainer:
    """Fine-tune a sentence-transformers bi-encoder with MultipleNegativesRankingLoss.

    Args:
        model: model name or path (``"minilm"``: the offline all-MiniLM-L6-v2).
        epochs: passes over the (query, positive) pairs.
        batch_size: pairs per step (in-batch negatives = batch_size - 1).
        max_steps: stop after this many optimiser steps (``None``: all epochs).
        lr: AdamW learning rate (linear warm-up over ``warmup_ratio`` of the steps, then decay).
        max_seq_length: tokens per text.
        rel: minimum relevance of a positive.
        seed: seeds shuffling and torch.
        device: ``None`` = CUDA when available.
        name: display name.
        checkpoint_every: save a resumable checkpoint every this many steps under
            ``output_dir/checkpoint`` (0: never); a killed run continues from it.
        dev_fraction: share of the training queries (with a positive; seeded) held out as a dev
            set for checkpoint selection (0: none, the last step's weights). The paper evaluates
            every 2 epochs on a development set and keeps the best checkpoint; here the dev set
            re-ranks each dev query's judged documents plus ``dev_negatives`` random ones (MRR@10).
        eval_every: dev evaluation every this many steps (0: every 2 epochs, the paper's; the
            last step always).
        dev_negatives: random corpus documents per dev query.
    """

    model: str = "minilm"
    epochs: int = 1
    batch_size: int = 16
    max_steps: int | None = None
    lr: float = 2e-5
    warmup_ratio: float = 0.1
    max_seq_length: int = 128
    rel: int = 1
    seed: int = 0
    device: str | None = None
    name: str = "bi-encoder"
    show_progress: bool | None = None
    checkpoint_every: int = 100
    dev_fraction: float = 0.0
    eval_every: int = 0
    dev_negatives: int = 20

    def load(self, output_dir: Path, tid: str) -> FineTunedBiEncoderRanker:
        """The ranker of a finished run saved under ``output_dir``."""
        return FineTunedBiEncoderRanker(model=str(output_dir / "model"), training_id=tid,
                                        max_seq_length=self.max_seq_length, device=self.device)

    def train(self, train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], *,
              output_dir: str | os.PathLike[str] | None = None) -> FineTunedBiEncoderRanker:
        """Fine-tune and return the ranker (saved to ``output_dir/model`` when given)."""
        from .._lazy import require
        from .._models import resolve_device, resolve_model

        require("torch", feature="bi-encoder fine-tuning")
        st = require("sentence_transformers", feature="bi-encoder fine-tuning")
        from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

        tid = training_id(self, train_queries, qrels, _corpus_digest(corpus))
        fit_q, dev_q = dev_split(train_queries, qrels, self.dev_fraction, self.seed, self.rel)
        pairs = _positive_pairs(fit_q, qrels, corpus, self.rel)
        _seed_all(self.seed)
        device = resolve_device(self.device)
        model = st.SentenceTransformer(resolve_model(self.model), device=device)
        model.max_seq_length = self.max_seq_length
        loss_fn = MultipleNegativesRankingLoss(model)
        rng = np.random.default_rng(self.seed)
        batches: list[list[int]] = []
        for _ in range(self.epochs):
            batches += in_batch_negative_batches(rng.permutation(len(pairs)).tolist(), pairs, self.batch_size)
        if self.max_steps is not None:
            batches = batches[: self.max_steps]

        def loss_of(batch: list[int]) -> Any:
            qf = model.preprocess([pairs[i][1] for i in batch])
            df = model.preprocess([pairs[i][2] for i in batch])
            qf = {k: v.to(device) if hasattr(v, "to") else v for k, v in qf.items()}
            df = {k: v.to(device) if hasattr(v, "to") else v for k, v in df.items()}
            return loss_fn([qf, df], None)

        def score(text: str, docs: list[str]) -> Any:
            e = model.encode([text, *docs], normalize_embeddings=True, show_progress_bar=False)
            return e[1:] @ e[0]

        dev = _make_dev(dev_q, qrels, corpus, score, len(batches), -(-len(pairs) // self.batch_size), self)
        t0 = time.time()
        out = Path(output_dir) if output_dir else None
        losses, resumed_at = _optimise(model, batches, loss_of, lr=self.lr, warmup_ratio=self.warmup_ratio,
                                       output_dir=out, checkpoint_every=self.checkpoint_every,
                                       desc=f"training {self.name}", show_progress=self.show_progress, dev=dev)
        ranker = FineTunedBiEncoderRanker(model=str(Path(output_dir) / "model") if output_dir else resolve_model(self.model),
                                          training_id=tid, max_seq_length=self.max_seq_length, device=self.device)
        if output_dir is not None:
            model.save(str(Path(output_dir) / "model"))
        _write_done(Path(output_dir) if output_dir else None,
                    {"trainer": self.name, "training_id": tid, "steps": len(batches), "pairs": len(pairs),
                     "loss_first": losses[0] if losses else None, "loss_last": losses[-1] if losses else None,
                     "seconds": time.time() - t0, "device": device, "resumed_at_step": resumed_at,
                     **_dev_info(dev, dev_q)})
        return ranker.attach(model)


@dataclass(frozen=True)
class CrossEncoderTrainer:
    """Fine-tune a sentence-transformers cross-encoder (the paper's BERT reranker).

    Negatives per positive: the query's judged non-relevant documents (up to
    ``judged_negatives``) and ``random_negatives`` documents drawn from the corpus (seeded).

    Args:
        model: model name or path (``"minilm"`` gets a fresh 1-logit head).
        loss: ``"pairwise"`` (default, the paper's "pairwise cross-entropy loss": per
            (query, positive, negative) triple, softmax cross-entropy over the two scores) or
            ``"pointwise"`` (ranklens: binary cross-entropy on labelled pairs,
            sentence-transformers' ``BinaryCrossEntropyLoss``).
        epochs, batch_size, max_steps, lr, warmup_ratio, rel, seed, device, checkpoint_every,
            dev_fraction, eval_every, dev_negatives: as for :class:`BiEncoderTrainer`
            (``batch_size`` counts triples under the pairwise loss).
        max_length: tokens per (query, document) pair.
    """

    model: str = "minilm"
    epochs: int = 1
    batch_size: int = 16
    max_steps: int | None = None
    lr: float = 2e-5
    warmup_ratio: float = 0.1
    max_length: int = 256
    judged_negatives: int = 4
    random_negatives: int = 1
    rel: int = 1
    seed: int = 0
    device: str | None = None
    name: str = "cross-encoder"
    show_progress: bool | None = None
    checkpoint_every: int = 100
    loss: str = "pairwise"
    dev_fraction: float = 0.0
    eval_every: int = 0
    dev_negatives: int = 20

    def load(self, output_dir: Path, tid: str) -> FineTunedCrossEncoderRanker:
        """The ranker of a finished run saved under ``output_dir``."""
        return FineTunedCrossEncoderRanker(path=str(output_dir / "model"), training_id=tid,
                                           max_length=self.max_length, device=self.device)

    def triples(self, train_queries: pd.DataFrame, qrels: pd.DataFrame,
                corpus: Mapping[str, str]) -> list[tuple[str, str, str]]:
        """(query text, positive text, negative text) per positive and each of its negatives
        (judged, then random), in the order drawn."""
        pairs = _positive_pairs(train_queries, qrels, corpus, self.rel)
        q = _check_queries(train_queries, "train_queries")
        text = dict(zip(q["query_id"], q["text"]))
        sub = qrels.loc[qrels["query_id"].astype(str).isin(set(text)) & (qrels["relevance"].astype("int64") < self.rel)]
        negs: dict[str, list[str]] = {}
        for qid, did in zip(sub["query_id"].astype(str), sub["doc_id"].astype(str)):
            if did in corpus:
                negs.setdefault(qid, []).append(did)
        rng = np.random.default_rng(self.seed)
        doc_ids = list(corpus)
        out: list[tuple[str, str, str]] = []
        for qid, qt, pos in pairs:
            for did in negs.get(qid, [])[: self.judged_negatives]:
                out.append((qt, pos, corpus[did]))
            for j in rng.integers(0, len(doc_ids), size=self.random_negatives):
                if corpus[doc_ids[j]] != pos:
                    out.append((qt, pos, corpus[doc_ids[j]]))
        return out

    def examples(self, train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str]) -> list[tuple[str, str, float]]:
        """Pointwise (query text, document text, label) examples, in a seeded order: every
        positive once and every negative of :meth:`triples`."""
        out: list[tuple[str, str, float]] = []
        seen: set[tuple[str, str]] = set()
        for qt, pos, neg in self.triples(train_queries, qrels, corpus):
            if (qt, pos) not in seen:
                seen.add((qt, pos))
                out.append((qt, pos, 1.0))
            out.append((qt, neg, 0.0))
        for _qid, qt, pos in _positive_pairs(train_queries, qrels, corpus, self.rel):
            if (qt, pos) not in seen:  # positives without any negative
                seen.add((qt, pos))
                out.append((qt, pos, 1.0))
        order = np.random.default_rng(self.seed).permutation(len(out))
        return [out[i] for i in order]

    def _loss(self, model: Any, train_queries: pd.DataFrame, qrels: pd.DataFrame,
              corpus: Mapping[str, str]) -> tuple[list[Any], Callable[[list[int]], Any]]:
        """(training items, loss of a batch of item indices) for ``self.loss``."""
        import torch

        if self.loss == "pointwise":
            from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

            ex = self.examples(train_queries, qrels, corpus)
            bce = BinaryCrossEntropyLoss(model)

            def pointwise(batch: list[int]) -> Any:
                labels = torch.tensor([ex[i][2] for i in batch], dtype=torch.float32, device=model.device)
                return bce([[ex[i][0] for i in batch], [ex[i][1] for i in batch]], labels)

            return ex, pointwise
        tr = self.triples(train_queries, qrels, corpus)

        def pairwise(batch: list[int]) -> Any:
            pos = _ce_logits(model, [(tr[i][0], tr[i][1]) for i in batch])
            neg = _ce_logits(model, [(tr[i][0], tr[i][2]) for i in batch])
            logits = torch.stack([pos, neg], dim=1)
            return torch.nn.functional.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long,
                                                                         device=logits.device))

        return tr, pairwise

    def train(self, train_queries: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], *,
              output_dir: str | os.PathLike[str] | None = None) -> FineTunedCrossEncoderRanker:
        """Fine-tune and return the ranker (saved to ``output_dir/model`` when given)."""
        from .._lazy import require
        from .._models import resolve_device, resolve_model

        require("torch", feature="cross-encoder fine-tuning")
        st = require("sentence_transformers", feature="cross-encoder fine-tuning")

        if self.loss not in CROSS_ENCODER_LOSSES:
            raise ValidationError(f"CrossEncoderTrainer loss must be one of {CROSS_ENCODER_LOSSES}, got {self.loss!r}")
        tid = training_id(self, train_queries, qrels, _corpus_digest(corpus))
        fit_q, dev_q = dev_split(train_queries, qrels, self.dev_fraction, self.seed, self.rel)
        _seed_all(self.seed)
        device = resolve_device(self.device)
        model = st.CrossEncoder(resolve_model(self.model), num_labels=1, device=device, max_length=self.max_length)
        items, loss_of = self._loss(model, fit_q, qrels, corpus)
        batches: list[list[int]] = []
        rng = np.random.default_rng(self.seed)
        for _ in range(self.epochs):
            order = rng.permutation(len(items)).tolist()
            batches += [order[s:s + self.batch_size] for s in range(0, len(order), self.batch_size)]
        if self.max_steps is not None:
            batches = batches[: self.max_steps]
        if not batches:
            raise ValidationError(f"{self.name}: no training examples (no positive with a negative in the corpus)")

        def score(text: str, docs: list[str]) -> Any:
            return model.predict([(text, d) for d in docs], show_progress_bar=False)

        dev = _make_dev(dev_q, qrels, corpus, score, len(batches), -(-len(items) // self.batch_size), self)
        t0 = time.time()
        out = Path(output_dir) if output_dir else None
        losses, resumed_at = _optimise(model, batches, loss_of, lr=self.lr, warmup_ratio=self.warmup_ratio,
                                       output_dir=out, checkpoint_every=self.checkpoint_every,
                                       desc=f"training {self.name}", show_progress=self.show_progress, dev=dev)
        if output_dir is not None:
            model.save(str(Path(output_dir) / "model"))
        _write_done(Path(output_dir) if output_dir else None,
                    {"trainer": self.name, "training_id": tid, "steps": len(batches), "examples": len(items),
                     "loss": self.loss, "loss_first": losses[0] if losses else None,
                     "loss_last": losses[-1] if losses else None, "seconds": time.time() - t0, "device": device,
                     "resumed_at_step": resumed_at, **_dev_info(dev, dev_q)})
        ranker = FineTunedCrossEncoderRanker(path=str(Path(output_dir) / "model") if output_dir else resolve_model(self.model),
                                             training_id=tid, max_length=self.max_length, device=self.device)
        return ranker.attach(model)


@dataclass(frozen=True)
class BM25Trainer:
    """BM25 with ``k1``/``b`` chosen by grid search on the training queries (the paper tunes
    Anserini's BM25 "on the training data with grid search").

    Objective: mean ``measure`` (ir_measures) of each training query's top-``depth`` BM25 run
    retrieved from the whole corpus (:func:`ranklens.rankers.retrieval.retrieve`, bm25s); ties in
    the objective go to the earlier grid point. The model is
    :func:`~.rankers.tuned_bm25` (``ranklens.rankers.BM25Ranker``, Lucene idf).
    """

    k1_grid: tuple[float, ...] = (0.6, 0.9, 1.2, 1.5, 2.0)
    b_grid: tuple[float, ...] = (0.2, 0.4, 0.6, 0.75, 0.9)
    measure: str = "nDCG@10"
    depth: int = 100
    name: str = "bm25-tuned"

    def __post_init__(self) -> None:
        if not self.k1_grid or not self.b_grid:
            raise ValidationError(f"BM25Trainer: k1_grid and b_grid must be non-empty, got {self.k1_grid} and "
                                  f"{self.b_grid}")
        if self.depth < 1:
            raise ValidationError(f"BM25Trainer: depth must be >= 1, got {self.depth}")

    def load(self, output_dir: Path, tid: str, corpus: Mapping[str, str]) -> Any:
        """Rebuild the tuned ranker from ``done.json`` (refits corpus statistics)."""
        info = json.loads((output_dir / "done.json").read_text())
        return tuned_bm25(info["k1"], info["b"], [corpus[d] for d in corpus])

    def _grid(self, q: pd.DataFrame, qrels: pd.DataFrame, corpus: Mapping[str, str], engine: Any) -> pd.DataFrame:
        from ..rankers import BM25Ranker
        from ..rankers.retrieval import retrieve
        from .evaluation import evaluate_run

        rows = []
        for k1 in self.k1_grid:
            for b in self.b_grid:
                run = retrieve(BM25Ranker(k1=k1, b=b, method="lucene"), q, corpus, k=self.depth, engine=engine)
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
            Path(output_dir).mkdir(parents=True, exist_ok=True)
            grid.to_csv(Path(output_dir) / "grid.tsv", sep="\t", index=False)
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
                (vdir / "variant.json").write_text(json.dumps(
                    {"trainer": tname, "split": split.name, "regimes": regimes, "split_fingerprint": split.fingerprint,
                     "n_train": len(train_ids)}, indent=2))
                v = TrainedVariant(trainer=tname, split=split.name, regimes=tuple(regimes), training_id=tid,
                                   ranker=ranker, output_dir=str(vdir), seconds=time.time() - t0, resumed=resumed,
                                   trainer_params=_trainer_identity(trainer))
                out.append(v)
                if on_variant is not None:
                    on_variant(v)
    return out
