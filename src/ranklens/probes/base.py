"""Probe samples and the :class:`Probe` base class (the registry of probes by name is
:mod:`ranklens.probes.catalog`).

A probe (ABNIRML, MacAvaney et al., TACL 2022) is a named, versioned generator of samples
``<q, d1, d2>``. For a ranker ``R`` the sample difference is ``diff = R(q, d1) - R(q, d2)``.

* **directional** probes: ``d1`` has an attribute ``d2`` lacks; the effect is ``+1`` if
  ``diff > delta``, ``-1`` if ``diff < -delta``, else ``0``; the probe score is the mean effect,
  in ``[-1, 1]``. Swapping ``d1`` and ``d2`` negates every effect (sign law).
* **symmetric** probes: the effect is ``1`` if ``|diff| > delta`` else ``0``; the score is in
  ``[0, 1]`` (0 = the ranker treats both texts alike).
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._hashing import sha256_texts

__all__ = [
    "Probe",
    "ProbeSample",
    "ProbeSamples",
    "cap_samples",
    "probe_rng",
    "samples_frame",
    "samples_hash",
]

CITATION = (
    "Sean MacAvaney, Sergey Feldman, Nazli Goharian, Doug Downey, Arman Cohan. "
    "ABNIRML: Analyzing the Behavior of Neural IR Models. TACL 10 (2022) 224-239. "
    "doi:10.1162/tacl_a_00457"
)


@dataclass(frozen=True, slots=True)
class ProbeSample:
    """One probe instance ``<q, d1, d2>``; ``diff = R(q, text_1) - R(q, text_2)``.

    Attributes:
        sample_id: unique within the probe.
        query_id: id of the query (or of the source pair for dataset-transfer probes).
        query: query text.
        text_1: ``d1``, the text with the probe's attribute (manipulated text, more relevant,
            fluent, ...).
        text_2: ``d2``, the text without it.
        doc_1_id: id of ``d1`` (derived ids such as ``"D12~shuffle-words"`` for rewrites).
        doc_2_id: id of ``d2``.
        meta: extra string fields (entity type, query method, ...).
    """

    sample_id: str
    query_id: str
    query: str
    text_1: str
    text_2: str
    doc_1_id: str = ""
    doc_2_id: str = ""
    meta: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ProbeSamples:
    """The samples of one probe plus how they were made.

    Attributes:
        samples: the samples (possibly empty).
        info: conventions actually used (e.g. ``{"lemmatizer": "spacy-lookup"}``), recorded in
            the result.
        skipped: a reason when the probe could not run (e.g. no doc2query model); then
            ``samples`` is empty.
        available: number of candidate samples before the cap was applied.
    """

    samples: tuple[ProbeSample, ...]
    info: Mapping[str, Any] = field(default_factory=dict)
    skipped: str | None = None
    available: int | None = None

    @property
    def hash(self) -> str:
        """Content hash of the ordered samples (query, d1, d2 texts and ids)."""
        return samples_hash(self.samples)


def samples_hash(samples: Sequence[ProbeSample]) -> str:
    """SHA-256 over the ordered samples' ids and texts (identical inputs <=> identical hash)."""
    parts: list[str] = []
    for s in samples:
        parts.extend((s.sample_id, s.query_id, s.query, s.doc_1_id, s.text_1, s.doc_2_id, s.text_2))
    return sha256_texts(parts)


def samples_frame(samples: Sequence[ProbeSample]) -> pd.DataFrame:
    """Samples as a DataFrame (``sample_id, query_id, query, doc_1_id, doc_2_id, text_1,
    text_2`` plus one ``meta_<key>`` column per meta key)."""
    rows = []
    for s in samples:
        row = {
            "sample_id": s.sample_id, "query_id": s.query_id, "query": s.query,
            "doc_1_id": s.doc_1_id, "doc_2_id": s.doc_2_id, "text_1": s.text_1, "text_2": s.text_2,
        }
        row.update({f"meta_{k}": v for k, v in s.meta})
        rows.append(row)
    cols = ["sample_id", "query_id", "query", "doc_1_id", "doc_2_id", "text_1", "text_2"]
    return pd.DataFrame(rows, columns=None if rows else cols)


def probe_rng(seed: int, name: str) -> np.random.Generator:
    """A generator that depends only on ``seed`` and the probe name, so a probe's samples do
    not change when other probes are selected or the order changes."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(name.encode("utf-8"))])


def cap_samples(items: list[Any], cap: int | None, rng: np.random.Generator) -> list[Any]:
    """Reproducible sub-sample of at most ``cap`` items, kept in their original order (``cap`` 0 or
    ``None``: every item)."""
    if not cap or len(items) <= cap:
        return list(items)
    keep = np.sort(rng.choice(len(items), size=cap, replace=False))
    return [items[i] for i in keep]


class Probe(ABC):
    """Base class of every probe.

    Subclasses set ``name``, ``version``, ``family`` (``"measure-match"``, ``"manipulation"``,
    ``"transfer"``), ``symmetric``, ``dataset`` and implement :meth:`generate`. Probes are
    parameters-only objects; generating samples never mutates the collection.
    """

    name: str = "probe"
    version: str = "1"
    family: str = "custom"
    symmetric: bool = False
    dataset: str = ""
    description: str = ""
    citation: str = CITATION

    @property
    def key(self) -> str:
        """``name@version``: the identity used in result stores."""
        return f"{self.name}@{self.version}"

    def params(self) -> dict[str, Any]:
        """Parameters that change the samples (recorded in provenance)."""
        return {}

    @abstractmethod
    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        """Make the samples. ``collection`` is a :class:`~ranklens.io.Collection` for
        measure-and-match and manipulation probes; dataset-transfer probes ignore it."""

    def __repr__(self) -> str:
        p = ", ".join(f"{k}={v!r}" for k, v in sorted(self.params().items()))
        return f"{type(self).__name__}(name={self.name!r}{', ' if p else ''}{p})"
