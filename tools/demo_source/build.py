"""Regenerate the demo collection files from the hand-written sources in this folder.

Run ``python -m tools.demo_source.build`` after editing a topic module or
``pairs.py``. The script validates everything (sentence indices against
:func:`ranklens.text.split_sentences`, judged ids, no tabs or newlines in text) and rewrites the
files under ``ranklens/datasets/demo/``. It is a maintenance tool, not part of the public API.

Authoring format of a topic module (``topic_*.py``):

- ``TOPIC``: short topic name.
- ``QUERIES``: ``[(query_id, text), ...]`` test queries.
- ``TRAIN``: ``[(query_id, kind, text), ...]`` training queries, kind in paraphrase/related/unlike.
- ``DOCS``: ``[(doc_id, title, [sentence, ...], judgements), ...]`` where judgements maps a query
  id (test or training, any topic) to a grade ``int`` or, for test queries with grade >= 2, a
  string ``"grade:i,j"`` naming the 0-based indices of the sentences that carry the answer.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

from ranklens.text import split_sentences, tokenize

HERE = Path(__file__).resolve().parent
OUT = HERE.parent.parent / "src" / "ranklens" / "datasets" / "demo"  # kept out of the wheel: only the generated files ship
TRAIN_KINDS = ("paraphrase", "related", "unlike")


def _clean(text: str, where: str) -> str:
    if "\t" in text or "\n" in text or "\r" in text:
        raise SystemExit(f"{where}: text contains a tab or newline")
    if text != text.strip() or "  " in text:
        raise SystemExit(f"{where}: stray whitespace in {text!r}")
    return text


def _topic_modules() -> list:
    names = sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("topic_"))
    return [importlib.import_module(f"{__package__}.{n}") for n in names]


def build(out: Path = OUT) -> dict[str, int]:
    """Validate the sources and write the demo files under ``out``; returns counts."""
    mods = _topic_modules()
    queries: dict[str, str] = {}
    train: dict[str, tuple[str, str]] = {}
    docs: list[dict] = []
    sentences: dict[str, list[str]] = {}
    judg: list[tuple[str, str, object]] = []
    problems: list[str] = []
    for mod in mods:
        for qid, text in mod.QUERIES:
            if qid in queries:
                problems.append(f"duplicate query id {qid}")
            queries[qid] = _clean(text, qid)
        for qid, kind, text in mod.TRAIN:
            if qid in train or kind not in TRAIN_KINDS:
                problems.append(f"bad train query {qid} {kind}")
            train[qid] = (kind, _clean(text, qid))
        for doc_id, title, sents, j in mod.DOCS:
            if doc_id in sentences:
                problems.append(f"duplicate doc id {doc_id}")
            for s in sents:
                _clean(s, doc_id)
            text = " ".join(sents)
            if split_sentences(text) != list(sents):
                problems.append(f"{doc_id}: split_sentences gives {len(split_sentences(text))} "
                                f"sentences, source has {len(sents)}: {split_sentences(text)}")
            nw = len(tokenize(text))
            if not (3 <= len(sents) <= 6) or not (50 <= nw <= 120):
                problems.append(f"{doc_id}: {len(sents)} sentences, {nw} words")
            sentences[doc_id] = list(sents)
            docs.append({"doc_id": doc_id, "title": _clean(title, doc_id), "text": text,
                         "topic": mod.TOPIC})
            for qid, g in j.items():
                judg.append((qid, doc_id, g))
    qrels, tqrels, sub = [], [], []
    seen = set()
    for qid, doc_id, g in judg:
        if (qid, doc_id) in seen:
            problems.append(f"duplicate judgement {qid} {doc_id}")
        seen.add((qid, doc_id))
        if isinstance(g, str):
            grade_s, _, idx = g.partition(":")
            grade = int(grade_s)
            rel = {int(i) for i in idx.split(",") if i}
        else:
            grade, rel = int(g), set()
        if qid in queries:
            qrels.append((qid, doc_id, grade))
            if grade >= 2:
                n = len(sentences[doc_id])
                if not rel or max(rel) >= n:
                    problems.append(f"{qid} {doc_id}: grade {grade} needs valid sentence indices, got {g!r}")
                sub.extend((qid, doc_id, i, int(i in rel)) for i in range(n))
            elif rel:
                problems.append(f"{qid} {doc_id}: sentence indices on grade {grade}")
        elif qid in train:
            tqrels.append((qid, doc_id, grade))
        else:
            problems.append(f"{doc_id}: judgement for unknown query {qid}")
    if problems:
        raise SystemExit("demo sources invalid:\n  " + "\n  ".join(problems))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "docs.jsonl", "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    with open(out / "queries.tsv", "w", encoding="utf-8") as f:
        f.write("query_id\ttext\n")
        f.writelines(f"{q}\t{t}\n" for q, t in sorted(queries.items()))
    with open(out / "train_queries.tsv", "w", encoding="utf-8") as f:
        f.write("query_id\ttext\tkind\n")
        f.writelines(f"{q}\t{t}\t{k}\n" for q, (k, t) in sorted(train.items()))
    for name, rows in (("qrels.trec", qrels), ("train_qrels.trec", tqrels)):
        with open(out / name, "w", encoding="utf-8") as f:
            f.writelines(f"{q} 0 {d} {g}\n" for q, d, g in sorted(rows))
    with open(out / "subdoc_qrels.tsv", "w", encoding="utf-8") as f:
        f.write("query_id\tdoc_id\tsentence_index\trelevant\n")
        f.writelines(f"{q}\t{d}\t{i}\t{r}\n" for q, d, i, r in sorted(sub))
    n_pairs = _build_pairs(out, {d["doc_id"]: d for d in docs})
    return {"docs": len(docs), "queries": len(queries), "qrels": len(qrels), "train": len(train),
            "train_qrels": len(tqrels), "subdoc": len(sub), "pairs": n_pairs}


def _build_pairs(out: Path, docs: dict[str, dict]) -> int:
    try:
        pairs = importlib.import_module(f"{__package__}.pairs")
    except ModuleNotFoundError:
        return 0
    (out / "pairs").mkdir(exist_ok=True)
    total = 0
    for kind, rows in pairs.PAIRS.items():
        lines = ["pair_id\ttext_a\ttext_b\tquery\n"]
        for i, row in enumerate(rows, 1):
            if kind == "succinctness":  # (summary, doc_id): b = full passage, query = its title
                a, doc_id = row
                b, q = docs[doc_id]["text"], docs[doc_id]["title"]
            else:
                a, b, q = row
            pid = f"{kind[:4]}{i:02d}"
            for t in (a, b, q):
                if t:
                    _clean(t, pid)
            if a == b:
                raise SystemExit(f"{pid}: identical texts")
            lines.append(f"{pid}\t{a}\t{b}\t{q}\n")
        (out / "pairs" / f"{kind}.tsv").write_text("".join(lines), encoding="utf-8")
        total += len(rows)
    return total


if __name__ == "__main__":
    sys.stdout.write(json.dumps(build(), indent=1) + "\n")
