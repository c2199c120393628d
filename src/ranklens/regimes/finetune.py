"""The neural trainers (Zhan et al., §4.2):

- :class:`BiEncoderTrainer`: fine-tunes a sentence-transformers bi-encoder with in-batch negatives
  (``MultipleNegativesRankingLoss``), one (query, positive) pair per judged positive.
- :class:`CrossEncoderTrainer`: fine-tunes a sentence-transformers cross-encoder with the paper's
  pairwise cross-entropy over (query, positive, negative) triples (judged and random corpus
  negatives); ``loss="pointwise"`` uses ``BinaryCrossEntropyLoss`` instead.

Both can hold out ``dev_fraction`` of the training queries and keep the checkpoint with the best
dev MRR@10 (the paper selects checkpoints on a development set). The manual training loop
(:mod:`.optimise`, instead of ``SentenceTransformerTrainer``) exists because that trainer needs
the ``datasets`` and ``accelerate`` packages, which ranklens does not depend on; the loss modules
are the library's own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..files import atomic_output
from .declaration import Params
from .optimise import _dev_info, _make_dev, _optimise, _seed_all, dev_split
from .rankers import FineTunedBiEncoderRanker, FineTunedCrossEncoderRanker
from .similarity import _check_queries
from .trainers import _corpus_digest, _write_done, training_id

__all__ = ["CROSS_ENCODER_LOSSES", "BiEncoderTrainer", "CrossEncoderTrainer", "in_batch_negative_batches"]

DEFAULTS = Params()

CROSS_ENCODER_LOSSES = ("pairwise", "pointwise")

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

def _save_model(model: Any, target: Path) -> None:
    """``model.save`` (sentence-transformers writes a folder) into a temp folder beside ``target``,
    renamed into place: a full disk is an ``OutputError`` naming ``target`` and leaves no half model."""
    with atomic_output(target, what="fine-tuned model directory", directory=True) as tmp:
        model.save(str(tmp))


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

    model: str = DEFAULTS.base_model
    epochs: int = DEFAULTS.epochs
    batch_size: int = DEFAULTS.batch_size
    max_steps: int | None = DEFAULTS.max_steps
    lr: float = 2e-5
    warmup_ratio: float = 0.1
    max_seq_length: int = 128
    rel: int = 1
    seed: int = 0
    device: str | None = None
    name: str = "bi-encoder"
    show_progress: bool | None = None
    checkpoint_every: int = 100
    dev_fraction: float = DEFAULTS.dev_fraction
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
            _save_model(model, Path(output_dir) / "model")
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
    ``judged_negatives``) and ``corpus_negatives`` documents drawn from the corpus (seeded).

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

    model: str = DEFAULTS.base_model
    epochs: int = DEFAULTS.epochs
    batch_size: int = DEFAULTS.batch_size
    max_steps: int | None = DEFAULTS.max_steps
    lr: float = 2e-5
    warmup_ratio: float = 0.1
    max_length: int = 256
    judged_negatives: int = 4
    corpus_negatives: int = 1
    rel: int = 1
    seed: int = 0
    device: str | None = None
    name: str = "cross-encoder"
    show_progress: bool | None = None
    checkpoint_every: int = 100
    loss: str = DEFAULTS.reranker_loss
    dev_fraction: float = DEFAULTS.dev_fraction
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
            for j in rng.integers(0, len(doc_ids), size=self.corpus_negatives):
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
            _save_model(model, Path(output_dir) / "model")
        _write_done(Path(output_dir) if output_dir else None,
                    {"trainer": self.name, "training_id": tid, "steps": len(batches), "examples": len(items),
                     "loss": self.loss, "loss_first": losses[0] if losses else None,
                     "loss_last": losses[-1] if losses else None, "seconds": time.time() - t0, "device": device,
                     "resumed_at_step": resumed_at, **_dev_info(dev, dev_q)})
        ranker = FineTunedCrossEncoderRanker(path=str(Path(output_dir) / "model") if output_dir else resolve_model(self.model),
                                             training_id=tid, max_length=self.max_length, device=self.device)
        return ranker.attach(model)
