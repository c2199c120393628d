"""Readers of sentence-pair and transfer datasets (one module of the core: no analysis imports it
back). Every reader checks its format and raises :class:`~ranklens.errors.DataFormatError` naming the
file and line.

* **Transfer pairs** (``pair_id, text_a, text_b, query``; ``text_a`` has the attribute, ``text_b``
  lacks it, ``query`` may be empty): :func:`load_mrpc` (MSR paraphrases), :func:`load_jfleg`
  (fluency), :func:`load_gyafc` (formality), :func:`load_turkcorpus` (simplicity),
  :func:`load_wnc` (neutrality), :func:`load_xsum` and :func:`load_cnndm` (succinctness),
  :func:`load_pairs_file` (any TSV/JSONL file of pairs), and :func:`read_nq_oracle` (the records of
  Natural Questions' ``nq-open-oracle.jsonl.gz``, from which the probes build factuality pairs).
* **Scored sentence pairs** (``pair_id, text_a, text_b, score[, genre]``): :func:`read_pairs`
  reads STS-B, MRPC or a generic file with a header; :func:`read_sentences` the sentences of such a
  file, of a TSV with a ``text`` column, or of a plain text file (one sentence a line). Formats
  (tab-separated, no quoting: STS-B and MRPC contain ``"`` characters):

  - **STS-B** (``sts-dev.csv`` ...): no header; ``genre, file, year, id, score, sentence1,
    sentence2`` (a few rows carry two extra source columns). Pair id ``<file name>:<line>``;
    ``genre`` kept (``main-news``, ``main-captions``, ``main-forums``).
  - **MRPC** (``msr_paraphrase_*.txt``): header ``Quality  #1 ID  #2 ID  #1 String  #2 String``;
    ``score`` = Quality (0/1), pair id ``<#1 ID>-<#2 ID>``.
  - **generic**: a header with ``text_a``, ``text_b``, ``score`` and optionally ``pair_id``,
    ``genre``.
* **WikiQA** question-sentence pairs as a train/dev/test split: :func:`load_wikiqa`
  (:class:`RealSplitData`; its ``query_id<TAB>question`` header and ``corpus.tsv`` with
  ``sentence_id``/``sentence`` columns are not the generic readers' columns).
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataFormatError, ValidationError

__all__ = [
    "PAIR_COLUMNS",
    "RealSplitData",
    "answer_pattern",
    "load_cnndm",
    "load_gyafc",
    "load_jfleg",
    "load_mrpc",
    "load_pairs_file",
    "load_turkcorpus",
    "load_wikiqa",
    "load_wnc",
    "load_xsum",
    "read_nq_oracle",
    "read_pairs",
    "read_sentences",
]

PAIR_COLUMNS = ["pair_id", "text_a", "text_b", "query"]


def _frame(rows: list[dict[str, str]], extra: tuple[str, ...] = ()) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=[*PAIR_COLUMNS, *extra])


def _need(path: Path, what: str) -> Path:
    if not path.exists():
        raise DataFormatError(f"{what} not found (check --data-dir / path=)", path=path)
    return path


def _aligned(a: Path, b: Path) -> list[tuple[str, str]]:
    la = [x for x in _need(a, "file").read_text(encoding="utf-8").splitlines()]
    lb = [x for x in _need(b, "file").read_text(encoding="utf-8").splitlines()]
    if len(la) != len(lb):
        raise DataFormatError(f"{len(la)} lines, but the aligned file {b} has {len(lb)}; "
                              "the two files must be line-aligned", path=a)
    return list(zip(la, lb))


def load_mrpc(path: str | os.PathLike[str], *, split: str = "all",
              positives_only: bool = True) -> pd.DataFrame:
    """MSR Paraphrase Corpus (``msr_paraphrase_{train,test}.txt``: BOM, tab-separated, header
    ``Quality #1 ID #2 ID #1 String #2 String``; read with quoting disabled).

    Args:
        path: the file, or the directory holding ``msr_paraphrase_<split>.txt``.
        split: ``all`` (train + test, default: the paper's 3,421 samples come from both),
            ``train`` or ``test``.
        positives_only: keep only pairs labelled as paraphrases (``Quality == 1``).
    """
    p = Path(path)
    if p.is_dir():
        return pd.concat([_read_mrpc(p / f"msr_paraphrase_{sp}.txt", positives_only)
                          for sp in (["train", "test"] if split == "all" else [split])], ignore_index=True)
    return _read_mrpc(p, positives_only)


def _read_mrpc(p: Path, positives_only: bool) -> pd.DataFrame:
    rows = []
    with _need(p, "MRPC file").open(encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if not header or header[0].strip() != "Quality":
            raise DataFormatError("expected the MRPC header 'Quality\\t#1 ID\\t#2 ID\\t#1 String\\t#2 String'",
                                  path=p, line=1)
        for i, rec in enumerate(reader, 2):
            if not rec:
                continue
            if len(rec) != 5:
                raise DataFormatError(f"expected 5 tab-separated fields, got {len(rec)}", path=p, line=i)
            if positives_only and rec[0].strip() != "1":
                continue
            rows.append({"pair_id": f"{rec[1]}-{rec[2]}", "text_a": rec[3], "text_b": rec[4], "query": "",
                         "label": rec[0].strip()})
    return _frame(rows, ("label",))


def _refs(reference: int | str, n: int) -> list[int]:
    if str(reference) == "all":
        return list(range(n))
    try:
        k = int(reference)
    except ValueError:
        raise ValidationError(f"reference must be 'all' or 0..{n - 1}, got {reference!r}") from None
    if not 0 <= k < n:
        raise ValidationError(f"reference must be 'all' or 0..{n - 1}, got {reference!r}")
    return [k]


def load_jfleg(path: str | os.PathLike[str], *, split: str = "all", spellchecked: bool = False,
               reference: int | str = "all") -> pd.DataFrame:
    """JFLEG: ``text_a`` = a fluent correction ``<split>.ref<k>``, ``text_b`` = the learner sentence
    ``<split>.src`` (or ``<split>.spellchecked.src``). Identical pairs are dropped.

    Defaults follow the paper ("each non-fluent sentence is corrected ... by four fluent English
    speakers ... We treat each fluent text as a d1"): every reference (``reference="all"``) of both
    splits (``split="all"``: dev and test).

    Args:
        path: the JFLEG root (holding ``dev/`` and ``test/``) or one split directory.
    """
    root = Path(path)
    rows = []
    for sp in (["dev", "test"] if split == "all" else [split]):
        d = root / sp if (root / sp).is_dir() else root
        src = d / (f"{sp}.spellchecked.src" if spellchecked else f"{sp}.src")
        for k in _refs(reference, 4):
            for i, (a, b) in enumerate(_aligned(d / f"{sp}.ref{k}", src)):
                if a.strip() and b.strip() and a.strip() != b.strip():
                    rows.append({"pair_id": f"{sp}-{i}-ref{k}", "text_a": a.strip(), "text_b": b.strip(), "query": ""})
    return _frame(rows)


def load_gyafc(path: str | os.PathLike[str], *, reference: int = 0) -> pd.DataFrame:
    """GYAFC (Rao & Tetreault 2018; licensed, not shipped): a split directory with line-aligned
    ``formal`` and ``informal`` files (train/tune), or ``informal`` + ``formal.ref<k>`` (test).
    ``text_a`` = formal, ``text_b`` = informal. A parent directory (``Entertainment_Music``,
    ``Family_Relationships``) may be given: then every split below it is read."""
    root = Path(_need(Path(path), "GYAFC directory"))
    dirs = [root] if (root / "informal").is_file() else sorted(
        p.parent for p in root.rglob("informal") if p.is_file())
    if not dirs:
        raise DataFormatError("no 'informal' file found (expected GYAFC split directories)", path=root)
    rows = []
    for d in dirs:
        formal = d / "formal" if (d / "formal").is_file() else d / f"formal.ref{reference}"
        for i, (f_, inf) in enumerate(_aligned(formal, d / "informal")):
            if f_.strip() and inf.strip() and f_.strip() != inf.strip():
                rows.append({"pair_id": f"{d.relative_to(root.parent)}-{i}", "text_a": f_.strip(),
                             "text_b": inf.strip(), "query": ""})
    return _frame(rows)


def _unbracket(text: str) -> str:
    """PTB bracket tokens back to brackets (``-lrb-`` -> ``(``, ``-rrb-`` -> ``)``), as the
    reference code does: the Turkers often typed real brackets, so the tokens alone would make
    the pairs differ."""
    return text.strip().replace("-lrb-", "(").replace("-rrb-", ")")


def load_turkcorpus(path: str | os.PathLike[str], *, split: str = "all",
                    reference: int | str = "all") -> pd.DataFrame:
    """TurkCorpus/WikiTurk (``<split>.8turkers.tok.{norm,turk.K}``): ``text_a`` = a Turker
    simplification (``reference``: ``all`` = the eight of them, or 0..7), ``text_b`` = the original
    (``norm``); ``-lrb-``/``-rrb-`` become brackets (the reference code). Identical pairs are
    dropped. Defaults follow the paper (all simplifications of
    ``tune`` and ``test``: 17,849 samples there)."""
    d = Path(path)
    rows = []
    for sp in (["tune", "test"] if split == "all" else [split]):
        for k in _refs(reference, 8):
            pairs = _aligned(d / f"{sp}.8turkers.tok.turk.{k}", d / f"{sp}.8turkers.tok.norm")
            pairs = [(_unbracket(a), _unbracket(b)) for a, b in pairs]
            rows.extend({"pair_id": f"{sp}-{i}-turk{k}", "text_a": a, "text_b": b, "query": ""}
                        for i, (a, b) in enumerate(pairs) if a and b and a != b)
    return _frame(rows)


def load_wnc(path: str | os.PathLike[str], *, split: str = "test") -> pd.DataFrame:
    """Wiki Neutrality Corpus sample (``pre.<split>`` biased, ``post.<split>`` neutralized):
    ``text_a`` = neutral, ``text_b`` = biased. Identical pairs are dropped. ``split="all"``
    reads train and test."""
    d = Path(path)
    rows = []
    for sp in (["train", "test"] if split == "all" else [split]):
        for i, (a, b) in enumerate(_aligned(d / f"post.{sp}", d / f"pre.{sp}")):
            if a.strip() and b.strip() and a.strip() != b.strip():
                rows.append({"pair_id": f"{sp}-{i}", "text_a": a.strip(), "text_b": b.strip(), "query": ""})
    return _frame(rows)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(_need(path, "JSONL file"), "rt", encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DataFormatError(f"invalid JSON ({exc.msg})", path=path, line=i) from None
    return out


def load_xsum(path: str | os.PathLike[str]) -> pd.DataFrame:
    """XSum JSONL ``{"document", "summary", "id", "title"?}``: ``text_a`` = summary (succinct),
    ``text_b`` = article (newlines joined by spaces), ``query`` = title when present."""
    p = Path(path)
    if p.is_dir():
        p = next(iter(sorted(p.glob("*.jsonl*"))), p / "xsum.jsonl")
    rows = []
    for i, r in enumerate(_jsonl(p), 1):
        if "document" not in r or "summary" not in r:
            raise DataFormatError("record needs 'document' and 'summary'", path=p, line=i)
        rows.append({"pair_id": str(r.get("id", i)), "text_a": " ".join(str(r["summary"]).split()),
                     "text_b": " ".join(str(r["document"]).split()), "query": str(r.get("title", "") or "")})
    return _frame(rows)


def _read_story(p: Path) -> tuple[str, str]:
    body, highlights, in_hl = [], [], False
    for line in p.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "@highlight":
            in_hl = True
            continue
        (highlights if in_hl else body).append(line)
    return " ".join(body), " . ".join(highlights) + (" ." if highlights else "")


def load_cnndm(path: str | os.PathLike[str]) -> pd.DataFrame:
    """CNN/DailyMail: a directory of ``.story`` files (article lines, then ``@highlight``
    blocks), a single ``.story`` file, or a CSV with ``article``, ``highlights``, ``id`` (Hugging
    Face ``cnn_dailymail`` export) and optional ``title``. ``text_a`` = highlights (summary),
    ``text_b`` = article, ``query`` = title when present."""
    p = Path(_need(Path(path), "CNN/DailyMail path"))
    rows = []
    if p.is_dir() or p.suffix == ".story":
        files = sorted(p.glob("*.story")) if p.is_dir() else [p]
        for f in files:
            body, summ = _read_story(f)
            if body and summ:
                rows.append({"pair_id": f.stem, "text_a": summ, "text_b": body, "query": ""})
        return _frame(rows)
    frame = pd.read_csv(p, dtype=str, keep_default_na=False)
    missing = {"article", "highlights"} - set(frame.columns)
    if missing:
        raise DataFormatError(f"CSV lacks column(s) {sorted(missing)} (expected article, highlights, id)",
                              path=p, line=1)
    for i, r in enumerate(frame.itertuples(index=False)):
        d = r._asdict()
        rows.append({"pair_id": str(d.get("id") or i), "text_a": " ".join(d["highlights"].split()),
                     "text_b": " ".join(d["article"].split()), "query": d.get("title", "") or ""})
    return _frame(rows)


def answer_pattern(answer: str) -> re.Pattern[str]:
    """Case-insensitive whole-word match of ``answer``: word boundaries (``\\b``) on both
    sides, written as ``(?<!\\w)``/``(?!\\w)`` so that answers that start or end with
    punctuation (``$5``, ``U.S.``) are matched too."""
    return re.compile(rf"(?<!\w){re.escape(answer)}(?!\w)", re.IGNORECASE)


def read_nq_oracle(path: str | os.PathLike[str]) -> list[tuple[int, str, str, str, list[str]]]:
    """The records of Natural Questions' ``nq-open-oracle.jsonl.gz`` (``path`` or a folder holding it)
    whose gold passage (``isgold``, else the first context) contains one of the answers as whole words
    (:func:`answer_pattern`): ``(line, question, gold passage, first answer found in it, all answers
    lower-cased)``."""
    p = Path(path)
    if p.is_dir():
        p = p / "nq-open-oracle.jsonl.gz"
    recs = []
    for i, r in enumerate(_jsonl(p), 1):
        ctxs = r.get("ctxs") or []
        gold = next((c for c in ctxs if c.get("isgold")), ctxs[0] if ctxs else None)
        if gold is None or not r.get("answers"):
            continue
        passage = " ".join(str(gold.get("text", "")).split())
        for a in r["answers"]:
            a = " ".join(str(a).split())
            if a and answer_pattern(a).search(passage):
                recs.append((i, str(r["question"]), passage, a, [x.lower() for x in r["answers"]]))
                break
    return recs


def _read_pairs_tsv(p: Path) -> pd.DataFrame:
    """A TSV with a header, every line with the header's number of fields. Checked by hand:
    pandas takes extra leading fields as an index (or drops them with ``index_col=False``) and
    accepts the line."""
    from ._columns import decode, default_encoding, read_bytes

    lines = decode(read_bytes(p), p, default_encoding(None)).splitlines()  # the readers' decoding (BOM, gzip)
    if not lines:
        raise DataFormatError("empty pairs file; the first line must be a header (text_a, text_b, ...)", path=p, line=1)
    header = lines[0].split("\t")
    rows = []
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataFormatError(f"{len(fields)} tab-separated fields where the header has {len(header)} columns; "
                                  f"each line needs one field per header column (tabs inside a text must be "
                                  f"replaced)", path=p, line=no)
        rows.append(fields)
    return pd.DataFrame(rows, columns=header, dtype=str)


def load_pairs_file(path: str | os.PathLike[str], *, text_a: str = "text_a", text_b: str = "text_b",
                    query: str = "query", pair_id: str = "pair_id") -> pd.DataFrame:
    """Generic pairs from a TSV (with header) or JSONL file; column names are configurable.
    ``query`` and ``pair_id`` columns are optional."""
    p = Path(_need(Path(path), "pairs file"))
    if p.suffix in (".jsonl", ".gz") or p.name.endswith(".jsonl.gz"):
        frame = pd.DataFrame(_jsonl(p))
    else:
        frame = _read_pairs_tsv(p)
    missing = [c for c in (text_a, text_b) if c not in frame.columns]
    if missing:
        raise DataFormatError(f"missing column(s) {missing}; found {list(frame.columns)} "
                              "(set text_a=/text_b= to your column names)", path=p, line=1)
    out = pd.DataFrame({
        "pair_id": frame[pair_id].astype(str) if pair_id in frame else [str(i) for i in range(len(frame))],
        "text_a": frame[text_a].astype(str), "text_b": frame[text_b].astype(str),
        "query": frame[query].fillna("").astype(str) if query in frame else "",
    })
    return out[PAIR_COLUMNS]


# ---------------------------------------------------------- scored sentence pairs (STS-B, MRPC, generic)
def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return [r for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE) if r and any(c.strip() for c in r)]


def _pair_score(value: str, path: Path, line: int) -> float:
    try:
        return float(value)
    except ValueError as exc:
        raise DataFormatError(f"score {value!r} is not a number", path=path, line=line) from exc


def _stsb(rows: list[list[str]], path: Path) -> pd.DataFrame:
    out = []
    for i, r in enumerate(rows, start=1):
        if len(r) < 7:
            raise DataFormatError(f"STS-B rows have at least 7 tab-separated columns, got {len(r)}", path=path, line=i)
        out.append((f"{path.name}:{i}", r[0], _pair_score(r[4], path, i), r[5], r[6]))
    return pd.DataFrame(out, columns=["pair_id", "genre", "score", "text_a", "text_b"])


def _with_header(rows: list[list[str]], path: Path) -> pd.DataFrame:
    head = [c.strip() for c in rows[0]]
    if head[:5] == ["Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"]:  # MRPC
        out = [(f"{r[1]}-{r[2]}", _pair_score(r[0], path, i), r[3], r[4]) for i, r in enumerate(rows[1:], start=2)]
        return pd.DataFrame(out, columns=["pair_id", "score", "text_a", "text_b"])
    missing = {"text_a", "text_b", "score"} - set(head)
    if missing:
        raise DataFormatError(f"pairs file lacks column(s) {sorted(missing)} in its header (expected text_a, "
                              "text_b, score; or an STS-B or MRPC file)", path=path, line=1)
    bad = [i for i, r in enumerate(rows[1:], start=2) if len(r) != len(head)]
    if bad:
        raise DataFormatError(f"{len(head)} columns expected, got {len(rows[bad[0] - 1])}", path=path, line=bad[0])
    df = pd.DataFrame(rows[1:], columns=head)
    df["score"] = [_pair_score(v, path, i) for i, v in enumerate(df["score"], start=2)]
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


# ---------------------------------------------------------- WikiQA
@dataclass(frozen=True)
class RealSplitData:
    """Training queries, test queries, qrels (both), and the corpus (``doc_id -> text``)."""

    name: str
    train_queries: pd.DataFrame
    test_queries: pd.DataFrame
    qrels: pd.DataFrame
    corpus: dict[str, str]
    dev_queries: pd.DataFrame | None = None


def _read_wikiqa_tsv(path: Path, id_col: str, text_col: str) -> pd.DataFrame:
    if not path.is_file():
        raise DataFormatError("file not found; point to the wikiqa folder of the shared data", path=path)
    df = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    missing = {id_col, text_col} - set(df.columns)
    if missing:
        raise DataFormatError(f"missing column(s) {sorted(missing)} in the header", path=path, line=1)
    return pd.DataFrame({"query_id": df[id_col].to_numpy(dtype=object), "text": df[text_col].to_numpy(dtype=object)})


def load_wikiqa(root: str | os.PathLike[str]) -> RealSplitData:
    """WikiQA (``<root>/derived``): train queries as training set, test queries as test set,
    dev queries in ``dev_queries``; qrels of all splits (judged negatives included); 26k sentences."""
    from .trec import read_qrels

    d = Path(root) / "derived" if (Path(root) / "derived").is_dir() else Path(root)
    corpus_df = pd.read_csv(d / "corpus.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    corpus = dict(zip(corpus_df["sentence_id"], corpus_df["sentence"]))
    qs = {s: _read_wikiqa_tsv(d / f"queries.{s}.tsv", "query_id", "question") for s in ("train", "dev", "test")}
    qrels = pd.concat([read_qrels(d / f"qrels.{s}.trec") for s in ("train", "dev", "test")], ignore_index=True)
    return RealSplitData(name="wikiqa", train_queries=qs["train"], test_queries=qs["test"], qrels=qrels,
                         corpus=corpus, dev_queries=qs["dev"])
