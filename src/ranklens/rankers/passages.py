"""Long documents: split into passages, score each with a base ranker, aggregate.

:func:`maxp` is the paper's document ranker (Pandian, Ganguly & MacAvaney §4.1, after Zhang et
al. 2020): non-overlapping chunks of 3 sentences, document score = the maximum chunk score. The
model spec ``maxp:SPEC[:N]`` (:func:`ranklens.specs.maxp_from_spec`) builds it at every door.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ValidationError
from .base import BaseRanker, named_fingerprint

__all__ = ["PassageRanker", "is_maxp", "maxp", "split_passages"]

SPLITS = ("sentences", "tokens")
AGGREGATES = ("max", "first", "mean")


def split_passages(text: str, *, split: str = "sentences", size: int = 3, stride: int = 2) -> list[str]:
    """Overlapping windows of ``size`` sentences (or word tokens), starting every ``stride`` units.

    Windows are cut from the original text (character offsets from
    :func:`ranklens.text.sentence_spans` / :func:`ranklens.text.word_spans`), so formatting inside a
    window is kept. The last window ends at the last unit: no unit is ever dropped. A text with
    no unit (empty or punctuation only) is one passage, the text itself.
    """
    from ..text import sentence_spans, word_spans

    if split not in SPLITS:
        raise ValidationError(f"split must be one of {SPLITS}, got {split!r}")
    if size < 1 or stride < 1:
        raise ValidationError(f"size and stride must be >= 1, got size={size}, stride={stride}")
    spans = sentence_spans(text) if split == "sentences" else word_spans(text)
    n = len(spans)
    if n == 0:
        return [text]
    out = []
    start = 0
    while True:
        end = min(start + size, n)
        out.append(text[spans[start][0] : spans[end - 1][1]])
        if end >= n:
            break
        start += stride
    return out


@dataclass(kw_only=True)
class PassageRanker(BaseRanker):
    """Score long texts by their passages (MaxP / FirstP / MeanP, Dai & Callan 2019).

    Every text is cut by :func:`split_passages`; the (query, passage) pairs are scored with
    ``base`` THROUGH the scoring engine (:func:`ranklens.engine.score_pairs`, the default engine
    unless ``engine`` is given), so passage scores are deduplicated and cached under the base
    ranker's own fingerprint and shared with any other use of that ranker; the aggregate is then
    cached by the outer engine under this ranker's fingerprint.

    Args:
        base: any ranker.
        split: ``"sentences"`` or ``"tokens"`` (word tokens); size, stride: window and step in
            those units.
        aggregate: ``"max"`` (MaxP), ``"first"`` (FirstP) or ``"mean"`` (MeanP).
        engine: the engine for passage scores (not part of the identity).
    """

    base: Any
    split: str = "sentences"
    size: int = 3
    stride: int = 2
    aggregate: str = "max"
    batch_size: int = 32
    engine: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ValidationError(f"PassageRanker: split must be one of {SPLITS}, got {self.split!r}")
        if self.aggregate not in AGGREGATES:
            raise ValidationError(f"PassageRanker: aggregate must be one of {AGGREGATES}, got {self.aggregate!r}")
        if self.size < 1 or self.stride < 1:
            raise ValidationError(f"PassageRanker: size and stride must be >= 1, got {self.size}, {self.stride}")

    @property
    def fingerprint(self) -> str:
        payload = {"split": self.split, "size": self.size, "stride": self.stride,
                   "aggregate": self.aggregate, "base": self.base.fingerprint}
        return named_fingerprint("PassageRanker", payload)

    def passages(self, text: str) -> list[str]:
        """The passages of ``text``."""
        return split_passages(text, split=self.split, size=self.size, stride=self.stride)

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        from ..engine import score_pairs

        pq: list[str] = []
        pt: list[str] = []
        owner: list[int] = []
        for i, (q, t) in enumerate(zip(queries, texts)):
            ps = self.passages(t)
            if self.aggregate == "first":
                ps = ps[:1]
            pq.extend([q] * len(ps))
            pt.extend(ps)
            owner.extend([i] * len(ps))
        scores = score_pairs(self.base, pq, pt, engine=self.engine)
        idx = np.asarray(owner, dtype=np.int64)
        n = len(queries)
        if self.aggregate == "mean":
            return np.bincount(idx, weights=scores, minlength=n) / np.bincount(idx, minlength=n)
        out = np.full(n, -np.inf)
        np.maximum.at(out, idx, scores)  # "first" keeps one passage, so max = that score
        return out


def maxp(base: Any, size: int = 3, *, engine: Any = None) -> PassageRanker:
    """MaxP over fixed, non-overlapping chunks of ``size`` sentences (the paper's document ranker:
    size 3). Its chunks are the chunks of the explainer's document mode, so the explained θ is
    the ranking score."""
    return PassageRanker(base=base, split="sentences", size=size, stride=size, aggregate="max", engine=engine)


def is_maxp(ranker: Any, size: int) -> bool:
    """Whether ``ranker`` is :func:`maxp` with chunks of ``size`` sentences."""
    return (isinstance(ranker, PassageRanker) and ranker.split == "sentences" and ranker.aggregate == "max"
            and ranker.size == size and ranker.stride == size)
