"""The optimisation loop of the neural trainers (:mod:`.finetune`): AdamW with linear warm-up and
decay, resumable checkpoints (weights-only tensors + JSON, written atomically) and dev-set
checkpoint selection (MRR@10 on a held-out share of the training queries, the paper's "best
checkpoint on a development set").
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataFormatError, ValidationError
from ..files import atomic_output, write_text_atomic
from .similarity import _check_queries

__all__ = ["CHECKPOINT_DIR", "dev_candidates", "dev_mrr", "dev_split"]

#: sub-folder of a training run's ``output_dir`` holding the latest checkpoint while it runs
CHECKPOINT_DIR = "checkpoint"

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

    tensors = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state(),
               "step": torch.tensor(step)}
    if dev is not None and dev.best_state is not None:
        tensors["best"] = dev.best_state
    with atomic_output(ckpt, what="training checkpoint") as tmp:
        torch.save(tensors, tmp)
    meta = {"step": step, "losses": losses, "n_batches": n_batches, "scheduler": sched.state_dict(),
            "dev_history": dev.history if dev is not None else []}
    write_text_atomic(ckpt.with_suffix(".json"), json.dumps(meta, default=float), what="training checkpoint")

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
            cutoff: int = 10) -> float:
    """Mean reciprocal rank at ``cutoff`` over the dev items (ties: candidate order)."""
    rr = []
    for text, docs, flags in items:
        s = np.asarray(score(text, docs), dtype=np.float64)
        order = np.argsort(-s, kind="stable")[:cutoff]
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
