"""Duplicate (query, doc) rows of a ranked run: a 32-bit fingerprint per doc id read straight
from the Arrow buffers, (query, fingerprint) keys shared with the qrels join, one sort of
them, and an exact check on the strings of the few queries with a repeated key; and
the error message that names the first pair.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []


def _doc_fingerprints(docs) -> np.ndarray:
    """A 32-bit fingerprint per string (length + first, middle and last 8 bytes), read straight
    from the Arrow buffers. Equal strings always get equal fingerprints; different strings
    rarely do, so callers verify candidate matches on the strings themselves."""
    import pyarrow as pa

    chunks = docs.chunks if isinstance(docs, pa.ChunkedArray) else [docs]
    # folded to 32 bits: half the memory of a 10M-row run; a collision only makes a query a
    # candidate that the exact string check then clears (~1 in 10^4 queries of 1,000 docs)
    out = np.zeros(sum(len(c) for c in chunks), np.uint32)
    at = 0
    c1, c2, c3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), \
        np.uint64(0x165667B19E3779F9)
    for c in chunks:
        n = len(c)
        if n == 0:
            continue
        if pa.types.is_large_string(c.type) or pa.types.is_large_binary(c.type):
            odt = np.dtype(np.int64)
        elif pa.types.is_string(c.type) or pa.types.is_binary(c.type):
            odt = np.dtype(np.int32)
        else:
            c = c.cast(pa.string())
            odt = np.dtype(np.int32)
        bufs = c.buffers()
        off = np.frombuffer(bufs[1], odt, count=n + 1, offset=c.offset * odt.itemsize)
        data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
        lo, hi = int(off[0]), int(off[-1])
        pad = np.zeros(hi - lo + 24, np.uint8)
        pad[8:8 + hi - lo] = data[lo:hi]
        # u[i] = the 8 bytes data[lo + i - 8 .. lo + i - 1] as a little-endian integer
        u = np.ndarray(shape=(hi - lo + 9,), dtype="<u8", buffer=pad, offset=0, strides=(1,))
        start = off[:-1].astype(np.int64) - lo
        length = np.diff(off).astype(np.int64)
        k = np.minimum(length, 8).astype(np.uint64)
        # last min(L, 8) bytes: the high (later) bytes of the word that ends at the string end
        fp = u[start + length]
        fp >>= (np.uint64(8) - k) * np.uint64(8)  # k = 0 (empty string): shift 64, fixed below
        short = np.flatnonzero(k < 8)
        if short.size:
            fp[short[k[short] == 0]] = 0
        fp *= c1
        # first min(L, 8) bytes; bytes past the end of short strings masked off
        first = u[start + 8]
        if short.size:
            first[short] &= (np.uint64(1) << (k[short] * np.uint64(8))) - np.uint64(1)
        first *= c2
        fp ^= first
        del first
        # middle 8 bytes, only for strings longer than 16 (shorter ones are covered already)
        long_ = np.flatnonzero(length > 16)
        if long_.size:
            fp[long_] ^= u[start[long_] + length[long_] // 2 + 4] * c3
        fp ^= length.astype(np.uint64) << np.uint64(48)
        fp ^= fp >> np.uint64(32)
        out[at:at + n] = fp.astype(np.uint32)
        at += n
    return out


def pair_keys(qcode: np.ndarray, docs) -> np.ndarray:
    """uint64 per run row: ``query code << 32 | doc fingerprint`` (:func:`_doc_fingerprints`).
    Equal (query, doc) pairs give equal keys; the join with the qrels and the duplicate check
    share them (one pass over the doc id strings)."""
    key = qcode.astype(np.uint64)
    key <<= np.uint64(32)
    key |= _doc_fingerprints(docs)
    return key


def _find_duplicates(order: np.ndarray, qcode: np.ndarray, counts: np.ndarray, docs,
                     keys: np.ndarray | None = None) -> dict | None:
    """Repeated (query, doc) pairs in a ranked run (flat rank order ``order``, query codes
    ``qcode`` of the run rows, ``keys``: their :func:`pair_keys`, computed when None).

    One sort of the keys (numpy's SIMD sort; the rank order is not needed to find equal keys)
    finds the queries with a repeated key; only those are then checked on the doc id strings,
    so the result is exact.

    Returns:
        ``None`` when every pair is unique, else ``{"drop_rows": run rows of the later
        (worse-ranked) occurrences, "first": (query index, doc id, rank a, rank b, row a,
        row b), "queries": number of queries with duplicates}``.
    """
    import pyarrow as pa

    if keys is None:
        keys = pair_keys(qcode, docs)
    srt = np.sort(keys)  # 3x faster here than the stable sort of the keys in rank order
    rep = srt[1:][srt[1:] == srt[:-1]]
    del srt
    if not rep.size:
        return None
    offsets = np.concatenate([[0], np.cumsum(counts)])
    drop: list[int] = []
    first = None
    queries = 0
    for qi in np.unique(rep >> np.uint64(32)).astype(np.int64).tolist():
        rr = order[offsets[qi]:offsets[qi + 1]]
        ids = docs.take(pa.array(rr.astype(np.int64))).to_pylist()
        seen: dict[str, int] = {}
        found = False
        for pos, d in enumerate(ids):
            if d in seen:
                drop.append(int(rr[pos]))
                found = True
                if first is None:
                    first = (qi, d, seen[d] + 1, pos + 1, int(rr[seen[d]]), int(rr[pos]))
            else:
                seen[d] = pos
        queries += found
    if not drop:
        return None
    return {"drop_rows": np.asarray(drop, np.int64), "first": first, "queries": queries}


def _duplicate_message(dup: dict, query_ids: list, scores, source: str) -> str:
    qi, doc, ra, rb, row_a, row_b = dup["first"]
    sa, sb = scores[row_a].as_py(), scores[row_b].as_py()
    n = int(dup["drop_rows"].size)
    return (f"{source}: duplicate (query_id, doc_id) = ({query_ids[qi]!r}, {doc!r}) at ranks "
            f"{ra} and {rb} (scores {sa:g} and {sb:g}); {n} repeated row(s) in "
            f"{dup['queries']} quer{'y' if dup['queries'] == 1 else 'ies'}. A run must list each "
            "pair once: remove the repeats (e.g. df.drop_duplicates(['query_id', 'doc_id'])), or "
            "pass duplicates='best' (CLI: --duplicates best) to keep each pair's best-ranked row")
