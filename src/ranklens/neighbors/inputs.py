"""Sentence-pair and sentence files for the neighbour analyses.

Formats (tab-separated, no quoting: STS-B and MRPC contain ``"`` characters):

* **STS-B** (``sts-dev.csv`` ...): no header; ``genre, file, year, id, score, sentence1, sentence2``
  (a few rows carry two extra source columns). Pair id ``<file name>:<line>``; ``genre`` kept
  (``main-news``, ``main-captions``, ``main-forums``).
* **MRPC** (``msr_paraphrase_*.txt``): header ``Quality  #1 ID  #2 ID  #1 String  #2 String``;
  ``score`` = Quality (0/1), pair id ``<#1 ID>-<#2 ID>``.
* **generic**: a header with ``text_a``, ``text_b``, ``score`` and optionally ``pair_id``,
  ``genre``.
* **sentences**: any of the above (both sentences of every pair), a TSV with a ``text`` column
  (and optionally ``id``), or plain text with one sentence per line.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ..errors import DataFormatError

__all__ = ["read_pairs", "read_query_ids", "read_sentences"]


def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return [r for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE) if r and any(c.strip() for c in r)]


def _score(value: str, path: Path, line: int) -> float:
    try:
        return float(value)
    except ValueError as exc:
        raise DataFormatError(f"score {value!r} is not a number", path=path, line=line) from exc


def _stsb(rows: list[list[str]], path: Path) -> pd.DataFrame:
    out = []
    for i, r in enumerate(rows, start=1):
        if len(r) < 7:
            raise DataFormatError(f"STS-B rows have at least 7 tab-separated columns, got {len(r)}", path=path, line=i)
        out.append((f"{path.name}:{i}", r[0], _score(r[4], path, i), r[5], r[6]))
    return pd.DataFrame(out, columns=["pair_id", "genre", "score", "text_a", "text_b"])


def _with_header(rows: list[list[str]], path: Path) -> pd.DataFrame:
    head = [c.strip() for c in rows[0]]
    if head[:5] == ["Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"]:  # MRPC
        out = [(f"{r[1]}-{r[2]}", _score(r[0], path, i), r[3], r[4]) for i, r in enumerate(rows[1:], start=2)]
        return pd.DataFrame(out, columns=["pair_id", "score", "text_a", "text_b"])
    missing = {"text_a", "text_b", "score"} - set(head)
    if missing:
        raise DataFormatError(f"pairs file lacks column(s) {sorted(missing)} in its header (expected text_a, "
                              "text_b, score; or an STS-B or MRPC file)", path=path, line=1)
    bad = [i for i, r in enumerate(rows[1:], start=2) if len(r) != len(head)]
    if bad:
        raise DataFormatError(f"{len(head)} columns expected, got {len(rows[bad[0] - 1])}", path=path, line=bad[0])
    df = pd.DataFrame(rows[1:], columns=head)
    df["score"] = [_score(v, path, i) for i, v in enumerate(df["score"], start=2)]
    return df


def _is_stsb(rows: list[list[str]]) -> bool:
    r = rows[0]
    if len(r) < 7:
        return False
    try:
        float(r[4])
    except ValueError:
        return False
    return True


def read_pairs(path: str | Path) -> pd.DataFrame:
    """Sentence pairs ``pair_id, text_a, text_b, score[, genre]`` (``"demo"``: the demo
    paraphrase pairs, score 5)."""
    if str(path) == "demo":
        from ..datasets.demo import load_demo_pairs

        df = load_demo_pairs("paraphrase")
        return pd.DataFrame({"pair_id": df["pair_id"].astype(str), "text_a": df["text_a"],
                             "text_b": df["text_b"], "score": 5.0})
    p = Path(path)
    rows = _rows(p)
    if not rows:
        raise DataFormatError("empty pairs file", path=p, line=1)
    return _stsb(rows, p) if _is_stsb(rows) else _with_header(rows, p)


def read_sentences(path: str | Path) -> list[tuple[str, str]]:
    """``(id, sentence)`` items of a sentence file (module docstring); duplicates are kept here
    (the corpus removes and counts them)."""
    if str(path) == "demo":
        pairs = read_pairs("demo")
        return [(f"demo:{r.pair_id}:{s}", t) for r in pairs.itertuples() for s, t in (("a", r.text_a), ("b", r.text_b))]
    p = Path(path)
    rows = _rows(p)
    if not rows:
        raise DataFormatError("empty sentences file", path=p, line=1)
    head = [c.strip() for c in rows[0]]
    if "text" in head and "text_a" not in head:
        ti = head.index("text")
        ii = head.index("id") if "id" in head else None
        return [(r[ii] if ii is not None else f"{p.name}:{n}", r[ti]) for n, r in enumerate(rows[1:], start=2)]
    if _is_stsb(rows) or {"text_a", "text_b"} <= set(head) or head[:1] == ["Quality"]:
        pairs = read_pairs(p)
        return [(f"{r.pair_id}:{s}", t) for r in pairs.itertuples() for s, t in (("a", r.text_a), ("b", r.text_b))]
    return [(f"{p.name}:{n}", "\t".join(r)) for n, r in enumerate(rows, start=1)]


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
