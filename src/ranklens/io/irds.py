"""``irds:<dataset-id>``: queries, documents, qrels and scored docs from ir_datasets.

ir_datasets is imported lazily (extra ``irds``). Datasets that need downloading do so through
ir_datasets itself; locally registered datasets (``ir_datasets.registry.register``) work offline.

Classic collections (``conventions="classic"``, the default): where ir_datasets' loader and the
classic distribution's files disagree, ranklens follows the files, so ``irds:cranfield`` and the
raw Cranfield files (:func:`ranklens.io.load_smart_collection`) give the same query ids and qrels:

- **Cranfield** (any dataset whose qrels come from ir_datasets' ``CranfieldQrels``): ``cranqrel``
  numbers queries 1..225 by their position in ``cran.qry`` and codes relevance 1 = complete
  answer .. 4 = minimum interest, -1 = no interest. ir_datasets passes the raw codes through as
  ``relevance`` (so a higher number means *less* relevant, and graded measures such as nDCG are
  inverted); ranklens maps them to the gain ``5 - code`` (-1 -> 0). Query ids are renumbered by
  position (ir_datasets >= 0.5 already does so; earlier versions used the ``.I`` number, which
  matches ``cranqrel`` for queries 1 and 2 only). Each mapping is a warning in
  ``qrels.attrs["warnings"]`` (it travels into ``Result.warnings``) and in ``Collection.meta``.
- **Vaswani / NPL**: ids and binary relevance already agree; nothing is changed.

``conventions="irds"`` keeps ir_datasets' values unchanged (with a warning for Cranfield that its
relevance codes run the wrong way for graded measures).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from .._lazy import require
from ..errors import DataFormatError, RanklensWarning, ValidationError
from ..types import DOC_ID, QUERY_ID, RELEVANCE, SCORE, TEXT
from .collection import Collection, DocStore

__all__ = ["CONVENTIONS", "IrdsDocStore", "classic_collection", "irds_dataset", "irds_qrels", "irds_queries", "irds_run",
           "load_irds"]

#: ``"classic"``: the classic distribution's query ids and gains (default); ``"irds"``: ir_datasets' own.
CONVENTIONS = ("classic", "irds")

CRANFIELD_GAINS = "5 - code for codes 1..4, 0 for -1"


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


def _check_conventions(conventions: str) -> None:
    if conventions not in CONVENTIONS:
        raise ValidationError(f"conventions={conventions!r}; use one of {CONVENTIONS}")


def classic_collection(ds) -> str | None:
    """``"cranfield"`` when an ir_datasets dataset's qrels come from ir_datasets' Cranfield loader
    (whatever id it is registered under), else ``None``."""
    try:
        handler = ds.qrels_handler() if ds.has_qrels() else None
    except Exception:  # noqa: BLE001 - a dataset without handlers is simply not a classic one
        return None
    return "cranfield" if handler is not None and type(handler).__name__ == "CranfieldQrels" else None


def _warn(message: str) -> str:
    warnings.warn(message, RanklensWarning, stacklevel=3)
    return message


def irds_queries(dataset_id: str, *, conventions: str = "classic") -> pd.DataFrame:
    """Queries as ``query_id``, ``text`` (``default_text()`` of each ir_datasets query).

    With ``conventions="classic"`` Cranfield queries are numbered 1..n by position (as
    ``cranqrel``); ir_datasets' own id is kept in ``original_id`` when it differs.
    """
    _check_conventions(conventions)
    ds = irds_dataset(dataset_id)
    if not ds.has_queries():
        raise DataFormatError(f"ir_datasets {_strip(dataset_id)!r} provides no queries")
    rows = [(str(q.query_id), _text_of(q)) for q in ds.queries_iter()]
    out = pd.DataFrame({QUERY_ID: pd.Series([r[0] for r in rows], dtype=str),
                        TEXT: pd.Series([r[1] for r in rows], dtype=str)})
    if conventions == "classic" and classic_collection(ds) == "cranfield":
        positions = [str(i) for i in range(1, len(rows) + 1)]
        if out[QUERY_ID].tolist() != positions:
            out = out.assign(original_id=out[QUERY_ID], **{QUERY_ID: pd.Series(positions, dtype=str)})
            out.attrs["warnings"] = (_warn(
                f"irds:{_strip(dataset_id)}: Cranfield query ids renumbered 1..{len(rows)} by position, as cranqrel "
                "numbers them (ir_datasets gave the .I numbers, kept in original_id)"),)
    return out


def irds_qrels(dataset_id: str, *, conventions: str = "classic") -> pd.DataFrame:
    """Qrels as ``query_id``, ``doc_id``, ``relevance`` (int64), validated.

    With ``conventions="classic"`` Cranfield's raw codes become the classic gains
    (``5 - code``, -1 -> 0), warned in ``attrs["warnings"]``; with ``"irds"`` the codes stay
    (warned: higher = less relevant).
    """
    from .frames import validate_qrels

    _check_conventions(conventions)
    ds = irds_dataset(dataset_id)
    if not ds.has_qrels():
        raise DataFormatError(f"ir_datasets {_strip(dataset_id)!r} provides no qrels")
    q, d, r = [], [], []
    for x in ds.qrels_iter():
        q.append(str(x.query_id))
        d.append(str(x.doc_id))
        r.append(int(x.relevance))
    rel = np.asarray(r, dtype=np.int64)
    notes: tuple[str, ...] = ()
    if classic_collection(ds) == "cranfield":
        source = f"irds:{_strip(dataset_id)}"
        if conventions == "classic":
            bad = sorted(set(rel.tolist()) - {-1, 1, 2, 3, 4})
            if bad:
                raise DataFormatError(f"Cranfield relevance code(s) {bad} are not -1, 1, 2, 3, 4; load with "
                                      "conventions='irds' to keep ir_datasets' values", path=source)
            rel = np.where(rel == -1, 0, 5 - rel).astype(np.int64)
            notes = (_warn(f"{source}: Cranfield relevance mapped from ir_datasets' raw cranqrel codes (1 = complete "
                           f"answer .. 4 = minimum interest, -1 = no interest) to the classic gains ({CRANFIELD_GAINS}), "
                           "as the raw files read by ranklens; conventions='irds' keeps the codes"),)
        else:
            notes = (_warn(f"{source}: Cranfield relevance kept as ir_datasets' raw codes, where 1 is the MOST "
                           "relevant and -1 not relevant: graded measures (nDCG) are inverted; conventions='classic' "
                           f"maps them to gains ({CRANFIELD_GAINS})"),)
    df = pd.DataFrame({QUERY_ID: pd.Series(q, dtype=str), DOC_ID: pd.Series(d, dtype=str), RELEVANCE: rel})
    out = validate_qrels(df, source=f"irds:{_strip(dataset_id)}")
    if notes:
        out.attrs["warnings"] = (*tuple(out.attrs.get("warnings", ())), *notes)
    return out


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


def load_irds(dataset_id: str, *, conventions: str = "classic") -> Collection:
    """A :class:`Collection` for ``irds:<id>``: docs (lazy), queries, qrels when provided.

    ``conventions``: ``"classic"`` (default) gives classic collections the query ids and gains of
    their original files (see the module docstring); ``"irds"`` keeps ir_datasets' values.
    ``meta["conventions"]`` records which, ``meta["warnings"]`` what was changed.
    """
    _check_conventions(conventions)
    did = _strip(dataset_id)
    ds = irds_dataset(did)
    qrels = irds_qrels(did, conventions=conventions) if ds.has_qrels() else None
    queries = irds_queries(did, conventions=conventions)
    notes = (*queries.attrs.get("warnings", ()), *(qrels.attrs.get("warnings", ()) if qrels is not None else ()))
    meta = {"source": "ir_datasets", "id": did, "conventions": conventions,
            "classic": classic_collection(ds), "warnings": list(notes)}
    return Collection(name=f"irds:{did}", docs=IrdsDocStore(did), queries=queries, qrels=qrels, meta=meta)
