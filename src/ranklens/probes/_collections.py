"""Collection loading for probes: :func:`ranklens.io.load_collection` when available, with a
small fallback for plain directories (``docs.jsonl``, ``queries.tsv``, ``qrels.trec``; also a
``derived/`` sub-folder as in the shared Cranfield copy) so probes do not depend on import order
of the io helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataFormatError


def load_collection_any(spec: Any) -> Any:
    """A :class:`~ranklens.io.Collection` from a spec (or the collection itself)."""
    if not isinstance(spec, (str, Path)):
        return spec
    try:
        from ..io import load_collection  # type: ignore[attr-defined]
    except ImportError:
        load_collection = None
    if load_collection is not None:
        try:
            return load_collection(spec)
        except Exception:
            if not Path(spec).is_dir():
                raise
    if str(spec) == "demo":
        from ..datasets.demo import load_demo  # type: ignore[attr-defined]

        return load_demo()
    return _read_dir(Path(spec))


def _read_dir(d: Path) -> Any:
    from ..io.collection import Collection, DocStore

    if (d / "derived").is_dir() and not (d / "docs.jsonl").exists():
        d = d / "derived"
    docs_p, q_p = d / "docs.jsonl", d / "queries.tsv"
    qrels_p = next((d / n for n in ("qrels.trec", "qrels.txt") if (d / n).is_file()), None)
    if not docs_p.is_file() or not q_p.is_file():
        raise DataFormatError("expected docs.jsonl and queries.tsv in the collection directory", path=d)
    docs = {}
    with docs_p.open(encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                r = json.loads(line)
                did = str(r.get("doc_id") or r.get("docno") or r.get("_id") or r.get("id"))
                text = str(r.get("text", ""))
                title = str(r.get("title", "") or "")
                docs[did] = text if (not title or text.startswith(title)) else f"{title}. {text}"
    q = pd.read_csv(q_p, sep="\t", dtype=str, keep_default_na=False)
    if "query_id" not in q.columns:
        q = pd.read_csv(q_p, sep="\t", dtype=str, header=None, names=["query_id", "text"], keep_default_na=False)
    queries = q[["query_id", "text"]].astype(object)
    qrels = None
    if qrels_p is not None:
        rows = [ln.split() for ln in qrels_p.read_text().splitlines() if ln.strip()]
        qrels = pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                              "relevance": [int(r[3]) for r in rows]})
        qrels["relevance"] = qrels["relevance"].astype("int64")
    return Collection(name=d.parent.name if d.name == "derived" else d.name,
                      docs=DocStore(docs, name=d.name), queries=queries, qrels=qrels)
