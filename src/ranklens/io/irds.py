"""``irds:<dataset-id>``: queries, documents, qrels and scored docs from ir_datasets.

ir_datasets is imported lazily (extra ``irds``). Datasets that need downloading do so through
ir_datasets itself; locally registered datasets (``ir_datasets.registry.register``) work offline.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from .._lazy import require
from ..errors import DataFormatError
from ..types import DOC_ID, QUERY_ID, RELEVANCE, SCORE, TEXT
from .collection import Collection, DocStore

__all__ = ["IrdsDocStore", "irds_dataset", "irds_qrels", "irds_queries", "irds_run", "load_irds"]


def _strip(dataset_id: str) -> str:
    return dataset_id[5:] if dataset_id.startswith("irds:") else dataset_id


def irds_dataset(dataset_id: str):
    """The ir_datasets ``Dataset`` for ``dataset_id`` (``irds:`` prefix optional)."""
    ir_datasets = require("ir_datasets", feature="irds:<id> datasets")
    did = _strip(dataset_id)
    try:
        return ir_datasets.load(did)
    except KeyError:
        raise DataFormatError(f"unknown ir_datasets id {did!r}; see https://ir-datasets.com "
                              f"or register a local dataset with ir_datasets.registry.register") from None


def _text_of(rec) -> str:
    if hasattr(rec, "default_text"):
        return str(rec.default_text())
    for f in ("text", "body", "title"):
        if hasattr(rec, f):
            return str(getattr(rec, f))
    raise DataFormatError(f"ir_datasets record {type(rec).__name__} has no text field")


def irds_queries(dataset_id: str) -> pd.DataFrame:
    """Queries as ``query_id``, ``text`` (``default_text()`` of each ir_datasets query)."""
    ds = irds_dataset(dataset_id)
    if not ds.has_queries():
        raise DataFormatError(f"ir_datasets {_strip(dataset_id)!r} provides no queries")
    rows = [(str(q.query_id), _text_of(q)) for q in ds.queries_iter()]
    return pd.DataFrame({QUERY_ID: pd.Series([r[0] for r in rows], dtype=str),
                         TEXT: pd.Series([r[1] for r in rows], dtype=str)})


def irds_qrels(dataset_id: str) -> pd.DataFrame:
    """Qrels as ``query_id``, ``doc_id``, ``relevance`` (int64), validated."""
    from .frames import validate_qrels

    ds = irds_dataset(dataset_id)
    if not ds.has_qrels():
        raise DataFormatError(f"ir_datasets {_strip(dataset_id)!r} provides no qrels")
    q, d, r = [], [], []
    for x in ds.qrels_iter():
        q.append(str(x.query_id))
        d.append(str(x.doc_id))
        r.append(int(x.relevance))
    df = pd.DataFrame({QUERY_ID: pd.Series(q, dtype=str), DOC_ID: pd.Series(d, dtype=str),
                       RELEVANCE: np.asarray(r, dtype=np.int64)})
    return validate_qrels(df, source=f"irds:{_strip(dataset_id)}")


def irds_run(dataset_id: str) -> pd.DataFrame:
    """The dataset's ``scoreddocs`` as a run (``query_id``, ``doc_id``, ``score``), validated."""
    from .frames import validate_run

    ds = irds_dataset(dataset_id)
    if not ds.has_scoreddocs():
        raise DataFormatError(f"ir_datasets {_strip(dataset_id)!r} provides no scoreddocs")
    q, d, s = [], [], []
    for x in ds.scoreddocs_iter():
        q.append(str(x.query_id))
        d.append(str(x.doc_id))
        s.append(float(x.score))
    df = pd.DataFrame({QUERY_ID: pd.Series(q, dtype=str), DOC_ID: pd.Series(d, dtype=str),
                       SCORE: np.asarray(s, dtype=np.float64)})
    return validate_run(df, source=f"irds:{_strip(dataset_id)}")


class IrdsDocStore(DocStore):
    """:class:`DocStore` backed by ir_datasets' ``docs_store()`` (random access) and
    ``docs_iter()`` (streaming); nothing is loaded up front."""

    def __init__(self, dataset_id: str) -> None:
        self.dataset_id = _strip(dataset_id)
        self.name = f"irds:{self.dataset_id}"
        self.metadata = None
        self._ds = irds_dataset(self.dataset_id)
        if not self._ds.has_docs():
            raise DataFormatError(f"ir_datasets {self.dataset_id!r} provides no documents")
        self._store = None
        self._len: int | None = None

    def _docstore(self):
        if self._store is None:
            self._store = self._ds.docs_store()
        return self._store

    def __getitem__(self, doc_id: str) -> str:
        try:
            return _text_of(self._docstore().get(doc_id))
        except KeyError:
            raise KeyError(f"{self.name}: no document with doc_id {doc_id!r}") from None

    def get_many(self, doc_ids: Sequence[str]) -> list[str]:
        found = self._docstore().get_many(list(doc_ids))
        missing = [d for d in doc_ids if d not in found]
        if missing:
            raise KeyError(f"{self.name}: no document with doc_id {missing[0]!r}")
        return [_text_of(found[d]) for d in doc_ids]

    def __iter__(self) -> Iterator[str]:
        return (str(d.doc_id) for d in self._ds.docs_iter())

    def __len__(self) -> int:
        if self._len is None:
            n = self._ds.docs_count()
            self._len = int(n) if n is not None else sum(1 for _ in self._ds.docs_iter())
        return self._len

    def __contains__(self, doc_id: object) -> bool:
        try:
            self._docstore().get(doc_id)
            return True
        except KeyError:
            return False

    def iter_docs(self) -> Iterator[tuple[str, str]]:
        return ((str(d.doc_id), _text_of(d)) for d in self._ds.docs_iter())

    def to_frame(self) -> pd.DataFrame:
        ids, texts = zip(*self.iter_docs()) if len(self) else ((), ())
        return pd.DataFrame({DOC_ID: pd.Series(ids, dtype=str), TEXT: pd.Series(texts, dtype=str)})

    def __repr__(self) -> str:
        return f"IrdsDocStore({self.dataset_id!r})"


def load_irds(dataset_id: str) -> Collection:
    """A :class:`Collection` for ``irds:<id>``: docs (lazy), queries, qrels when provided."""
    did = _strip(dataset_id)
    ds = irds_dataset(did)
    qrels = irds_qrels(did) if ds.has_qrels() else None
    return Collection(name=f"irds:{did}", docs=IrdsDocStore(did), queries=irds_queries(did), qrels=qrels,
                      meta={"source": "ir_datasets", "id": did})
