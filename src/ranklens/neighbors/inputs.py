"""Query-id files of the neighbour analyses (``DOC#i`` corpus ids or a document's lede). The sentence-pair
and sentence readers are :func:`ranklens.io.pairs.read_pairs` and :func:`ranklens.io.pairs.read_sentences`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import DataFormatError

__all__ = ["read_query_ids"]


def read_query_ids(path: str | Path, known: Sequence[str]) -> list[str]:
    """Query ids, one per line: corpus ids (``DOC#i``, the i-th sentence of DOC; ``DOC`` itself
    when documents are not split), or a document id meaning its lede, the first sentence of DOC
    the corpus kept (``DOC#0`` unless it was filtered out; a lede that repeats an earlier
    document's sentence is kept under that document's id). Every id must be in ``known``."""
    p = Path(path)
    ids = [line.strip() for line in p.read_text(encoding="utf-8-sig").splitlines() if line.strip()]
    have = set(known)
    lede: dict[str, tuple[int, str]] = {}  # doc id -> (sentence index, corpus id) of its first kept sentence
    if any(q not in have for q in ids):
        for c in known:
            doc, sep, i = c.rpartition("#")
            if sep and i.isdigit() and (doc not in lede or int(i) < lede[doc][0]):
                lede[doc] = (int(i), c)
    out, missing = [], []
    for q in ids:
        if q in have:
            out.append(q)
        elif q in lede:
            out.append(lede[q][1])
        else:
            missing.append(q)
    if missing:
        raise DataFormatError(f"{len(missing)} query id(s) not in the corpus, e.g. {missing[:3]} (ids are "
                              "DOC#i for the i-th sentence of DOC, or DOC for its first sentence)", path=p)
    if not out:
        raise DataFormatError("no query id in the file", path=p)
    return list(dict.fromkeys(out))
