"""Collections: documents (random access by id), queries and optional qrels."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ..errors import ValidationError
from ..types import DOC_ID, QUERY_ID, TEXT

__all__ = ["Collection", "DocStore", "judged_existence_warnings"]


class DocStore(Mapping[str, str]):
    """Read-only mapping ``doc_id -> text`` with bulk access.

    The in-memory implementation keeps a dict; streaming stores for big corpora implement the
    same interface (``__getitem__``, ``__iter__`` over ids in corpus order, ``__len__``,
    ``get_many``, ``iter_docs``).
    """

    #: the reader's warnings (ids with invisible characters, ...); empty for a store built in Python
    warnings: tuple[str, ...] = ()

    def __init__(self, texts: Mapping[str, str] | Iterable[tuple[str, str]], *, name: str = "docs",
                 metadata: pd.DataFrame | None = None) -> None:
        items = texts.items() if isinstance(texts, Mapping) else texts
        self._texts: dict[str, str] = {}
        for doc_id, text in items:
            if not isinstance(doc_id, str):
                raise ValidationError(f"{name}: doc_id must be str, got {type(doc_id).__name__} {doc_id!r}")
            if not isinstance(text, str):
                raise ValidationError(f"{name}: text of doc {doc_id!r} must be str, got {type(text).__name__}")
            if doc_id in self._texts:
                raise ValidationError(f"{name}: duplicate doc_id {doc_id!r}")
            self._texts[doc_id] = text
        self.name = name
        self.metadata = metadata

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, name: str = "docs") -> DocStore:
        """From a DataFrame with ``doc_id`` and ``text`` columns (other columns kept as metadata)."""
        missing = {DOC_ID, TEXT} - set(frame.columns)
        if missing:
            raise ValidationError(f"{name}: docs frame lacks column(s) {sorted(missing)}")
        meta = frame.drop(columns=[TEXT]) if len(frame.columns) > 2 else None
        return cls(zip(frame[DOC_ID].astype(str), frame[TEXT].astype(str)), name=name, metadata=meta)

    def __getitem__(self, doc_id: str) -> str:
        try:
            return self._texts[doc_id]
        except KeyError:
            raise KeyError(f"{self.name}: no document with doc_id {doc_id!r}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def get_many(self, doc_ids: Sequence[str]) -> list[str]:
        """Texts of ``doc_ids`` in order; raises ``KeyError`` naming the first unknown id."""
        return [self[d] for d in doc_ids]

    def iter_docs(self) -> Iterator[tuple[str, str]]:
        """``(doc_id, text)`` in corpus order."""
        return iter(self._texts.items())

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({DOC_ID: list(self._texts), TEXT: list(self._texts.values())})

    def __repr__(self) -> str:
        return f"DocStore(name={self.name!r}, n={len(self)})"


@dataclass(frozen=True)
class Collection:
    """A test collection: documents, queries (``query_id``, ``text``) and optional qrels
    (``query_id``, ``doc_id``, ``relevance``)."""

    name: str
    docs: DocStore
    queries: pd.DataFrame
    qrels: pd.DataFrame | None = None
    meta: Mapping[str, str] = field(default_factory=dict)

    def query_text(self, query_id: str) -> str:
        row = self.queries.loc[self.queries[QUERY_ID] == query_id]
        if row.empty:
            raise KeyError(f"{self.name}: no query with query_id {query_id!r}")
        return str(row[TEXT].iloc[0])

    def queries_dict(self) -> dict[str, str]:
        return dict(zip(self.queries[QUERY_ID].astype(str), self.queries[TEXT].astype(str)))

    def __repr__(self) -> str:
        nq = len(self.queries)
        nr = 0 if self.qrels is None else len(self.qrels)
        return f"Collection(name={self.name!r}, docs={len(self.docs)}, queries={nq}, qrels={nr})"


def judged_existence_warnings(qrels: pd.DataFrame | None, docs: DocStore, queries: pd.DataFrame,
                              source: object) -> list[str]:
    """Warnings, with counts, for qrels that judge documents or queries the collection does not hold
    (the same check for every collection format)."""
    if qrels is None or qrels.empty:
        return []
    out = []
    doc_ids = pd.unique(qrels[DOC_ID].astype(str))
    missing = [d for d in doc_ids if d not in docs]
    if missing:
        n_rows = int(qrels[DOC_ID].astype(str).isin(set(missing)).sum())
        out.append(f"{source}: the qrels judge {len(missing)} document(s) that are not in the collection "
                   f"({n_rows} judgment(s); e.g. {missing[0]!r}): they count as relevant-but-unretrievable")
    qids = set(queries[QUERY_ID].astype(str))
    qmissing = [q for q in pd.unique(qrels[QUERY_ID].astype(str)) if q not in qids]
    if qmissing:
        n_rows = int(qrels[QUERY_ID].astype(str).isin(set(qmissing)).sum())
        out.append(f"{source}: the qrels judge {len(qmissing)} query id(s) that are not among the queries "
                   f"({n_rows} judgment(s); e.g. {qmissing[0]!r}): those judgments are never used")
    return out
