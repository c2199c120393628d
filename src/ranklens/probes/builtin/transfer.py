"""Dataset-transfer probes (ABNIRML §2.2.3, Table 3): loaders for the published files and the
probe that turns text pairs into ``<q, d1, d2>`` samples.

Every loader returns a DataFrame with columns ``pair_id, text_a, text_b, query`` (``query`` may
be empty) where ``text_a`` has the attribute (paraphrase: either; fluent, formal, simple,
neutral, summary/succinct, factual) and ``text_b`` lacks it. The probe uses ``d1 = text_a``,
``d2 = text_b``, so a positive score means the ranker prefers the attributed text.

Query construction (paper): when a pair has no query, a noun chunk present in both texts, drawn
at random (spaCy's parser through :func:`ranklens.text.load_spacy`; without a pipeline the
shared-content-run fallback of :mod:`ranklens.probes.nlp`, recorded and warned about); samples
whose query shares no non-stopword lemma with both texts are discarded (the paper states this
filter for GYAFC and the summarization probes; a noun-chunk query made only of stopwords, such as
"it", is discarded by it too). The method that ran is recorded as ``query_method``. The
reference code also requires chunks longer than 5 characters; the paper does not.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import DataFormatError, ValidationError
from ...text import STOPWORDS, tokenize
from ..base import Probe, ProbeSample, ProbeSamples

__all__ = [
    "NQ_ENTITY_TYPES",
    "PairsProbe",
    "load_cnndm",
    "load_gyafc",
    "load_jfleg",
    "load_mrpc",
    "load_nq_factuality",
    "load_pairs_file",
    "load_turkcorpus",
    "load_wnc",
    "load_xsum",
]

PAIR_COLUMNS = ["pair_id", "text_a", "text_b", "query"]
NQ_ENTITY_TYPES = ("PER", "GPE", "LOC", "NORP", "ORG")  # the paper's NER types


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


def _content_len(text: str) -> int:
    return sum(1 for t in tokenize(text) if t not in STOPWORDS)


def _answer_pattern(answer: str) -> re.Pattern[str]:
    """Case-insensitive whole-word match of ``answer``: word boundaries (``\\b``) on both
    sides, written as ``(?<!\\w)``/``(?!\\w)`` so that answers that start or end with
    punctuation (``$5``, ``U.S.``) are matched too."""
    return re.compile(rf"(?<!\w){re.escape(answer)}(?!\w)", re.IGNORECASE)


class NLPUnavailable(ValidationError):
    """A probe needs the spaCy pipeline and none is installed (the probe is skipped)."""


def _nq_records(p: Path) -> list[tuple[int, str, str, str, list[str]]]:
    """(line, question, gold passage, first answer found in it, all answers lower-cased)."""
    recs = []
    for i, r in enumerate(_jsonl(p), 1):
        ctxs = r.get("ctxs") or []
        gold = next((c for c in ctxs if c.get("isgold")), ctxs[0] if ctxs else None)
        if gold is None or not r.get("answers"):
            continue
        passage = " ".join(str(gold.get("text", "")).split())
        for a in r["answers"]:
            a = " ".join(str(a).split())
            if a and _answer_pattern(a).search(passage):
                recs.append((i, str(r["question"]), passage, a, [x.lower() for x in r["answers"]]))
                break
    return recs


def load_nq_factuality(path: str | os.PathLike[str], *, seed: int = 0,
                       question_filter: str = "answer") -> pd.DataFrame:
    """Natural Questions factuality pairs (paper §2.2.3) from ``nq-open-oracle.jsonl.gz``
    (question, answers, one gold passage in ``ctxs``).

    For each question, the first answer found as whole words in the gold passage is typed with
    spaCy NER (:func:`ranklens.probes.nlp.answer_entity_types`: PER, GPE, LOC, NORP or ORG, the
    paper's types; answers of other or no type are dropped). Questions that contain their answer
    are discarded (the paper; ``question_filter="any-token"``: the reference code's stricter
    filter, any word of the answer). Every whole-word occurrence of the answer is replaced by the
    answer of *another* question with the same entity type and the same number of non-stopword
    tokens (chosen with ``seed``), never by one of this question's answers.
    ``text_a`` = original (factual), ``text_b`` = replaced, ``query`` = question; columns
    ``entity_type``, ``answer``, ``replacement``.

    Raises:
        NLPUnavailable: without a spaCy pipeline.
    """
    from ..nlp import answer_entity_types

    p = Path(path)
    if p.is_dir():
        p = p / "nq-open-oracle.jsonl.gz"
    recs = _nq_records(p)
    types, how = answer_entity_types([r[3] for r in recs])
    if recs and not types:
        raise NLPUnavailable(f"NQ factuality needs spaCy named entities: {how}")
    if question_filter not in ("answer", "any-token"):
        raise ValidationError(f"question_filter must be 'answer' or 'any-token', got {question_filter!r}")
    kept = []
    for rec, t in zip(recs, types):
        q, ans = rec[1], rec[3]
        words = [ans] if question_filter == "answer" else tokenize(ans)
        if t is None or any(_answer_pattern(w).search(q) for w in words):
            continue
        kept.append((rec, t, (t, _content_len(ans))))
    groups: dict[tuple[str, int], list[str]] = defaultdict(list)
    for rec, _t, key in kept:
        groups[key].append(rec[3])
    rng = np.random.default_rng(seed)
    rows = []
    for (i, q, passage, ans, all_ans), t, key in kept:
        pool = sorted({x for x in groups[key] if x.lower() not in all_ans})
        if not pool:
            continue
        repl = pool[int(rng.integers(len(pool)))]
        new = _answer_pattern(ans).sub(lambda _m, r=repl: r, passage)
        if new != passage:
            rows.append({"pair_id": f"nq-{i}", "text_a": passage, "text_b": new, "query": q,
                         "entity_type": t, "answer": ans, "replacement": repl})
    return _frame(rows, ("entity_type", "answer", "replacement"))


def _read_pairs_tsv(p: Path) -> pd.DataFrame:
    """A TSV with a header, every line with the header's number of fields. Checked by hand:
    pandas takes extra leading fields as an index (or drops them with ``index_col=False``) and
    accepts the line."""
    from ...io._columns import decode, default_encoding, read_bytes

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


@lru_cache(maxsize=16)
def _cached_load(loader: str, path: str, kwargs: tuple[tuple[str, Any], ...]) -> pd.DataFrame:
    return LOADERS[loader](path, **dict(kwargs))


def _demo_loader(kind: str, **_: Any) -> pd.DataFrame:
    from ...datasets.demo import load_demo_pairs

    f = load_demo_pairs(kind)
    f = f.copy()
    f["query"] = f["query"].fillna("").astype(str)
    return f[PAIR_COLUMNS]


LOADERS: dict[str, Callable[..., pd.DataFrame]] = {
    "mrpc": load_mrpc, "jfleg": load_jfleg, "gyafc": load_gyafc, "turkcorpus": load_turkcorpus,
    "wnc": load_wnc, "xsum": load_xsum, "cnndm": load_cnndm, "nq": load_nq_factuality,
    "pairs": load_pairs_file, "demo": _demo_loader,
}


#: loaders whose queries the paper takes from the data (titles), not from noun chunks
_TITLED = {"xsum": "article title", "cnndm": "article title", "gyafc": "Yahoo Answers question title"}


@dataclass(frozen=True, repr=False)
class PairsProbe(Probe):
    """Text pairs -> samples ``<q, text_a, text_b>`` (see module docstring).

    Attributes:
        probe_name: registry name.
        loader: key of :data:`LOADERS`.
        path: file or directory for the loader (for ``demo``: the pair kind).
        loader_kwargs: extra loader arguments (sorted tuple of pairs).
        symmetric: paraphrase-style probe (effect = ``|diff| > delta``).
        filter_column/filter_value: keep rows whose column equals the value (NQ entity type).
        cap: maximum number of samples (sub-sampled with the probe's generator).
        require_lemma_overlap: discard samples whose query shares no non-stopword lemma with
            both texts (the paper's filter).
    """

    probe_name: str
    loader: str
    path: str
    dataset_name: str = ""
    loader_kwargs: tuple[tuple[str, Any], ...] = ()
    symmetric: bool = False  # type: ignore[misc]
    filter_column: str | None = None
    filter_value: str | None = None
    cap: int | None = None
    require_lemma_overlap: bool = True
    frame: Any = field(default=None, compare=False)
    family = "transfer"

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.probe_name

    @property
    def dataset(self) -> str:  # type: ignore[override]
        return self.dataset_name or self.loader

    def params(self) -> dict[str, Any]:
        return {"loader": self.loader, "path": self.path, "loader_kwargs": dict(self.loader_kwargs),
                "filter": f"{self.filter_column}={self.filter_value}" if self.filter_column else None,
                "cap": self.cap, "require_lemma_overlap": self.require_lemma_overlap}

    def load(self) -> pd.DataFrame:
        """The loader's pair frame (filtered)."""
        if self.frame is not None:
            f = self.frame
        else:
            if self.loader not in LOADERS:
                raise ValidationError(f"unknown pairs loader {self.loader!r}; one of {sorted(LOADERS)}")
            f = _cached_load(self.loader, str(self.path), self.loader_kwargs)
        if self.filter_column:
            f = f[f[self.filter_column].astype(str) == str(self.filter_value)]
        return f

    def _unavailable(self) -> str | None:
        if self.frame is None and self.loader not in ("demo",) and not Path(self.path).exists():
            return (f"data not found: {self.path} (set data_dir to a folder holding '{self.dataset}/', "
                    "or give the file)")
        return None

    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        why = self._unavailable()
        if why is None:
            try:
                frame = self.load()
            except NLPUnavailable as exc:
                why = str(exc)
        if why is not None:
            return ProbeSamples((), info={}, skipped=why)
        rows = list(frame[PAIR_COLUMNS].itertuples(index=False, name=None))
        order = [int(i) for i in rng.permutation(len(rows))]  # visit in random order, stop at the cap
        kept: list[tuple[int, ProbeSample]] = []
        dropped, methods = 0, set()
        start = 0
        while start < len(order) and (self.cap is None or len(kept) < self.cap):
            size = 512 if self.cap is None else min(512, 2 * (self.cap - len(kept)) + 8)
            made, d, how = self._block([(i, rows[i]) for i in order[start:start + size]], rng,
                                       None if self.cap is None else self.cap - len(kept))
            start += size
            kept.extend(made)
            dropped += d
            methods |= how
        kept.sort(key=lambda x: x[0])
        info: dict[str, Any] = {
            "query_method": ",".join(sorted(methods)) or "none",
            "convention": "d1 = text_a (attributed), d2 = text_b",
            "pairs_in_file": len(rows), "pairs_dropped_no_query": dropped,
        }
        made = methods - {"given"}
        if self.loader in _TITLED and made:
            info["deviation"] = (f"{len(rows) - sum(1 for r in rows if str(r[3] or '').strip())} of {len(rows)} "
                                 f"pairs have no title: their queries are shared noun chunks (the paper: the "
                                 f"{_TITLED[self.loader]})")
        if any(m.startswith("fallback") for m in methods):
            info["fallback"] = "no spaCy pipeline: queries from shared content-word runs, lemma table"
        return ProbeSamples(tuple(s for _i, s in kept), info=info, available=len(rows))

    def _block(self, block: list[tuple[int, tuple[Any, ...]]], rng: np.random.Generator, room: int | None,
               ) -> tuple[list[tuple[int, ProbeSample]], int, set[str]]:
        """Samples of a block of pairs: a shared noun chunk as the query where there is none (the
        paper), then the lemma filter; one spaCy pass over the block's texts."""
        from ..nlp import chunks_and_lemmas, lemma_sets, pick_shared_chunk

        texts = [t for _i, (_p, a, b, _q) in block for t in (a, b)]
        feats, how = chunks_and_lemmas(texts)
        fallback = how.startswith("fallback")
        queries: list[str | None] = []
        methods = set()
        for k, (_i, (_p, _a, _b, q)) in enumerate(block):
            q = "" if q is None or (isinstance(q, float) and np.isnan(q)) else str(q)
            if q.strip():
                queries.append(q)
                methods.add("given")
                continue
            (ca, _la), (cb, _lb) = feats[2 * k], feats[2 * k + 1]
            queries.append(pick_shared_chunk(ca, cb, rng, fallback=fallback))
            methods.add(how if fallback else "spacy-noun-chunk")
        qlem, _ = lemma_sets([q or "" for q in queries]) if self.require_lemma_overlap else ([], "")
        out, dropped = [], 0
        for k, (i, (pid, a, b, _q)) in enumerate(block):
            q = queries[k]
            ok = q is not None and (not self.require_lemma_overlap or (
                qlem[k] & feats[2 * k][1] and qlem[k] & feats[2 * k + 1][1]))
            if not ok:
                dropped += 1
                continue
            out.append((i, ProbeSample(sample_id=str(pid), query_id=str(pid), query=str(q), text_1=a, text_2=b,
                                       doc_1_id=f"{pid}:a", doc_2_id=f"{pid}:b")))
            if room is not None and len(out) >= room:
                break
        return out, dropped, methods


__all__ += ["LOADERS"]
