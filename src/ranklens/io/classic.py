"""The classic test collections as collections: Cranfield, CISI, CACM and NPL found by their files
and loaded from their raw files (the SMART/NPL parsers of :mod:`ranklens.io.smart`) or from the
derived TREC-style files (the readers of :mod:`ranklens.io.readers` and :mod:`ranklens.io.trec`).

Kept apart from the format parsers so that ``smart`` and ``readers`` do not import each other.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import DataFormatError
from ..types import QUERY_ID, TEXT
import warnings

from ..errors import RanklensWarning
from .collection import Collection, DocStore, judged_existence_warnings
from .readers import read_docs, read_queries
from .smart import PathLike, read_npl, read_raw_qrels, read_smart
from .trec import read_qrels

__all__ = ["SMART_COLLECTIONS", "detect_smart_collection", "load_smart_collection"]

# name -> (docs file, queries file, qrels file, qrels fmt, doc fields, include title in derived docs)
SMART_COLLECTIONS: dict[str, dict] = {
    "cranfield": {"docs": "cran.all.1400", "queries": "cran.qry", "qrels": "cranqrel", "fmt": "cranqrel",
                  "fields": ("W",), "derived_title": False},
    "cisi": {"docs": "CISI.ALL", "queries": "CISI.QRY", "qrels": "CISI.REL", "fmt": "cisi",
             "fields": ("T", "W"), "derived_title": True},
    "cacm": {"docs": "cacm.all", "queries": "query.text", "qrels": "qrels.text", "fmt": "cacm",
             "fields": ("T", "W"), "derived_title": True},
    "npl": {"docs": "doc-text", "queries": "query-text", "qrels": "rlv-ass", "fmt": "npl",
            "fields": (), "derived_title": False},
}


def detect_smart_collection(directory: PathLike) -> str | None:
    """Name of the classic collection whose raw files are in ``directory`` (or ``None``)."""
    d = Path(directory)
    for name, spec in SMART_COLLECTIONS.items():
        if (d / spec["docs"]).is_file():
            return name
    return None


def _shared_root(name: str = "") -> Path | None:
    """The data root holding ``name``: ``$RANKLENS_DATA`` (``$RANKLENS_SHARED_DATA``, its old name),
    else the user data cache (:func:`ranklens.datareg.cache_dir`) when it holds ``name``; never a
    folder relative to the working directory."""
    from ..datareg import cache_dir, explicit_root

    root, _how = explicit_root(None)
    if root is not None:
        return root
    cache = cache_dir()
    return cache if name and (cache / name).is_dir() else None


def _resolve_dir(name_or_dir: PathLike, source: str) -> tuple[Path, str]:
    p = Path(name_or_dir)
    if not p.is_dir():
        root = _shared_root(str(name_or_dir))
        if root is None or not (root / str(name_or_dir)).is_dir():
            raise DataFormatError(
                f"no directory {str(name_or_dir)!r} (looked in the working directory, "
                f"{root or '$RANKLENS_DATA (not set)'} and the user data cache); pass a directory, or set "
                f"RANKLENS_DATA to the folder that holds {sorted(SMART_COLLECTIONS)}"
            )
        p = root / str(name_or_dir)
    if (p / source).is_dir():
        p = p / source
    name = detect_smart_collection(p)
    if name is None and (p.parent / "raw").is_dir():
        name = detect_smart_collection(p.parent / "raw")
    if name is None:
        raise DataFormatError(f"not a Cranfield/CISI/CACM/NPL directory (none of "
                              f"{[s['docs'] for s in SMART_COLLECTIONS.values()]} found)", path=p)
    return p, name


def _notes(*parts) -> list[str]:
    out: list[str] = []
    for part in parts:
        for n in part:
            if n not in out:
                out.append(n)
    return out


def _collection(name: str, docs: DocStore, queries, qrels, meta: dict, docs_frame=None) -> Collection:
    """The collection, with its readers' warnings and the judged-existence check in ``meta["warnings"]``
    (issued as :class:`RanklensWarning` too)."""
    exist = judged_existence_warnings(qrels, docs, queries, meta.get("path", name))
    for n in exist:
        warnings.warn(n, RanklensWarning, stacklevel=3)
    notes = _notes(getattr(docs, "warnings", ()), () if docs_frame is None else docs_frame.attrs.get("warnings", ()),
                   queries.attrs.get("warnings", ()), () if qrels is None else qrels.attrs.get("warnings", ()), exist)
    return Collection(name=name, docs=docs, queries=queries, qrels=qrels, meta={**meta, "warnings": notes})


def load_smart_collection(name_or_dir: PathLike, *, source: str = "raw", encoding: str | None = None) -> Collection:
    """Load Cranfield, CISI, CACM or NPL from their raw files or the derived TREC-style files.

    Conventions (identical for both sources, so both give the same qrels): numeric ids without
    leading zeros; Cranfield query ids are positions 1..225 (as in ``cranqrel``; the ``.I``
    number is kept in ``queries["original_id"]``) and gains are ``5 - code`` (-1 -> 0); doc text
    is ``.W`` for Cranfield (it repeats the title), title + abstract for CISI and CACM, the
    record text for NPL, and the title where that text is empty (Cranfield docs 471, 995); query
    text is ``.W`` only.

    Args:
        name_or_dir: ``"cranfield"``, ``"cisi"``, ``"cacm"``, ``"npl"`` (looked up under
            ``$RANKLENS_DATA``, then the user data cache) or a directory (the collection folder or its ``raw/``).
        source: ``"raw"`` (original files) or ``"derived"`` (``docs.jsonl``, ``queries.tsv``,
            ``qrels.trec``).
    """
    if source not in ("raw", "derived"):
        raise DataFormatError(f"source={source!r}; use 'raw' or 'derived'")
    d, name = _resolve_dir(name_or_dir, source)
    spec = SMART_COLLECTIONS[name]
    if source == "derived":
        docs = read_docs(d / "docs.jsonl", include_title=spec["derived_title"], encoding=encoding)
        queries = read_queries(d / "queries.tsv", encoding=encoding)
        if "original_I" in queries.columns:
            queries = queries.rename(columns={"original_I": "original_id"})
        qrels = read_qrels(d / "qrels.trec", encoding=encoding)
        return _collection(name, docs, queries, qrels, {"source": "derived", "path": str(d)})
    if name == "npl":
        docs_df = read_npl(d / spec["docs"], encoding=encoding)
        queries = read_npl(d / spec["queries"], id_column=QUERY_ID, encoding=encoding)
    else:
        docs_df = read_smart(d / spec["docs"], spec["fields"], encoding=encoding, strip_zeros=True)
        queries = read_smart(d / spec["queries"], ("W",), id_column=QUERY_ID, encoding=encoding, strip_zeros=True)
        notes = queries.attrs.get("warnings", ())
        queries = queries[[QUERY_ID, TEXT, "original_id"]]
        queries.attrs["warnings"] = notes
        if name == "cranfield":
            queries = queries.assign(**{QUERY_ID: [str(i) for i in range(1, len(queries) + 1)]})
    if "title" in docs_df.columns:  # empty text (Cranfield 471, 995): use the title, as read_docs does
        empty = docs_df[TEXT] == ""
        docs_df.loc[empty, TEXT] = docs_df.loc[empty, "title"]
    qrels = read_raw_qrels(d / spec["qrels"], fmt=spec["fmt"], encoding=encoding)
    docs = DocStore.from_frame(docs_df.drop(columns=["original_id"], errors="ignore"), name=name)
    notes = queries.attrs.get("warnings", ())
    queries = queries.reset_index(drop=True)
    queries.attrs["warnings"] = notes
    return _collection(name, docs, queries, qrels, {"source": "raw", "path": str(d)}, docs_frame=docs_df)
