"""Dataset-transfer probes (ABNIRML §2.2.3, Table 3): the probe that turns text pairs into
``<q, d1, d2>`` samples, and the NQ factuality pairs. The files are read by
:mod:`ranklens.io.pairs`.

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

import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..io.pairs import (
    PAIR_COLUMNS,
    answer_pattern,
    load_cnndm,
    load_gyafc,
    load_jfleg,
    load_mrpc,
    load_pairs_file,
    load_turkcorpus,
    load_wnc,
    load_xsum,
    read_nq_oracle,
)
from ..text import STOPWORDS, tokenize
from .base import Probe, ProbeSample, ProbeSamples
from .declaration import Params

#: the rules for the shared noun chunks a transfer query is drawn among (``Params.transfer_chunk_rule``)
CHUNK_RULES = ("content", "min-length", "any")
#: the ABNIRML paper's sample counts (Table 3's "Samples" column), for each ranklens transfer probe;
#: CNN/DM is the paper's CNN 7,154 + Daily Mail 18,930 and NQ (all) the sum of its five entity types
#: (the paper reports them separately). WNC, XSum and NQ in the shared data are samples of the
#: datasets (1,100, 1,000 and 2,655 pairs), so their counts are not comparable with the paper's.
PAPER_SAMPLES = {"ds-paraphrase-mrpc": 3421, "ds-fluency-jfleg": 5073, "ds-fluency-jfleg-spell": 5187,
                 "ds-formality-gyafc": 6721, "ds-simplicity-turk": 17849, "ds-neutrality-wnc": 178252,
                 "ds-succinct-xsum": 17938, "ds-succinct-cnndm": 7154 + 18930,
                 "ds-factuality-nq-per": 72983, "ds-factuality-nq-gpe": 33528, "ds-factuality-nq-loc": 962,
                 "ds-factuality-nq-norp": 4250, "ds-factuality-nq-org": 13831,
                 "ds-factuality-nq": 72983 + 33528 + 962 + 4250 + 13831}

__all__ = ["CHUNK_RULES", "PAPER_SAMPLES", "LOADERS", "NLPUnavailable", "NQ_ENTITY_TYPES", "PairsProbe", "load_nq_factuality"]

DEFAULTS = Params()
NQ_ENTITY_TYPES = ("PER", "GPE", "LOC", "NORP", "ORG")  # the paper's NER types


def _content_len(text: str) -> int:
    return sum(1 for t in tokenize(text) if t not in STOPWORDS)


class NLPUnavailable(ValidationError):
    """A probe needs the spaCy pipeline and none is installed (the probe is skipped)."""


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
    from .nlp import answer_entity_types

    recs = read_nq_oracle(path)
    types, how = answer_entity_types([r[3] for r in recs])
    if recs and not types:
        raise NLPUnavailable(f"NQ factuality needs spaCy named entities: {how}")
    if question_filter not in ("answer", "any-token"):
        raise ValidationError(f"question_filter must be 'answer' or 'any-token', got {question_filter!r}")
    kept = []
    for rec, t in zip(recs, types):
        q, ans = rec[1], rec[3]
        words = [ans] if question_filter == "answer" else tokenize(ans)
        if t is None or any(answer_pattern(w).search(q) for w in words):
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
        new = answer_pattern(ans).sub(lambda _m, r=repl: r, passage)
        if new != passage:
            rows.append({"pair_id": f"nq-{i}", "text_a": passage, "text_b": new, "query": q,
                         "entity_type": t, "answer": ans, "replacement": repl})
    return pd.DataFrame(rows, columns=[*PAIR_COLUMNS, "entity_type", "answer", "replacement"])


@lru_cache(maxsize=16)
def _cached_load(loader: str, path: str, kwargs: tuple[tuple[str, Any], ...]) -> pd.DataFrame:
    return LOADERS[loader](path, **dict(kwargs))


def _demo_loader(kind: str, **_: Any) -> pd.DataFrame:
    from ..datasets.demo import load_demo_pairs

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
        cap: maximum number of samples (sub-sampled with the probe's generator); 0 = every sample.
        require_lemma_overlap: discard samples whose query shares no non-stopword lemma with
            both texts (the paper's filter).
        chunk_rule: the shared noun chunks a query is drawn among (:data:`CHUNK_RULES`): ``content``
            (those passing the lemma filter, so a pair is discarded only when no shared chunk
            qualifies: the paper's "if no such chunk exists"), ``min-length`` (longer than 5
            characters: the reference code), ``any`` (any shared chunk; the lemma filter after).
    """

    probe_name: str
    loader: str
    path: str
    dataset_name: str = ""
    loader_kwargs: tuple[tuple[str, Any], ...] = ()
    symmetric: bool = False  # type: ignore[misc]
    filter_column: str | None = None
    filter_value: str | None = None
    cap: int = DEFAULTS.cap
    require_lemma_overlap: bool = True
    chunk_rule: str = DEFAULTS.transfer_chunk_rule
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
                "cap": self.cap or None, "require_lemma_overlap": self.require_lemma_overlap,
                "chunk_rule": self.chunk_rule}

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
        if self.chunk_rule not in CHUNK_RULES:
            raise ValidationError(f"probe {self.name}: transfer_chunk_rule must be one of {CHUNK_RULES}, "
                                  f"got {self.chunk_rule!r}")
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
        while start < len(order) and (not self.cap or len(kept) < self.cap):
            size = 512 if not self.cap else min(512, 2 * (self.cap - len(kept)) + 8)
            made, d, how = self._block([(i, rows[i]) for i in order[start:start + size]], rng,
                                       None if not self.cap else self.cap - len(kept))
            start += size
            kept.extend(made)
            dropped += d
            methods |= how
        kept.sort(key=lambda x: x[0])
        info: dict[str, Any] = {
            "query_method": ",".join(sorted(methods)) or "none",
            "convention": "d1 = text_a (attributed), d2 = text_b",
            "pairs_in_file": len(rows), "pairs_dropped_no_query": dropped, "chunk_rule": self.chunk_rule,
        }
        if self.name in PAPER_SAMPLES:  # the paper's sample count beside ours
            info["paper_samples"] = PAPER_SAMPLES[self.name]
        made = methods - {"given"}
        if self.loader in _TITLED and made:
            info["deviation"] = (f"{len(rows) - sum(1 for r in rows if str(r[3] or '').strip())} of {len(rows)} "
                                 f"pairs have no title: their queries are shared noun chunks (the paper: the "
                                 f"{_TITLED[self.loader]})")
        if any(m.startswith("fallback") for m in methods):
            info["fallback"] = "no spaCy pipeline: queries from shared content-word runs, lemma table"
        return ProbeSamples(tuple(s for _i, s in kept), info=info, available=len(rows))

    def _qualifying(self, shared: set[str], la: set[str], lb: set[str], chunk_lemmas: dict[str, set[str]],
                    ) -> set[str]:
        """The shared chunks a query may be drawn among under :attr:`chunk_rule`."""
        if self.chunk_rule == "min-length":
            return {c for c in shared if len(c) > 5}
        if self.chunk_rule == "content" and self.require_lemma_overlap:
            return {c for c in shared if chunk_lemmas.get(c, set()) & la and chunk_lemmas.get(c, set()) & lb}
        return shared

    def _block(self, block: list[tuple[int, tuple[Any, ...]]], rng: np.random.Generator, room: int | None,
               ) -> tuple[list[tuple[int, ProbeSample]], int, set[str]]:
        """Samples of a block of pairs: a shared noun chunk as the query where there is none (the
        paper), then the lemma filter; one spaCy pass over the block's texts."""
        from .nlp import chunks_and_lemmas, lemma_sets, pick_shared_chunk

        texts = [t for _i, (_p, a, b, _q) in block for t in (a, b)]
        feats, how = chunks_and_lemmas(texts)
        fallback = how.startswith("fallback")
        chunk_lemmas: dict[str, set[str]] = {}
        if self.chunk_rule == "content" and self.require_lemma_overlap:  # one lemma pass over the shared chunks
            shared_all = sorted({c for k, (_i, (_p, _a, _b, q)) in enumerate(block)
                                 for c in feats[2 * k][0] & feats[2 * k + 1][0]})
            chunk_lemmas = dict(zip(shared_all, lemma_sets(shared_all)[0] if shared_all else []))
        queries: list[str | None] = []
        methods = set()
        for k, (_i, (_p, _a, _b, q)) in enumerate(block):
            q = "" if q is None or (isinstance(q, float) and np.isnan(q)) else str(q)
            if q.strip():
                queries.append(q)
                methods.add("given")
                continue
            (ca, la), (cb, lb) = feats[2 * k], feats[2 * k + 1]
            shared = self._qualifying(ca & cb, la, lb, chunk_lemmas)
            queries.append(pick_shared_chunk(shared, shared, rng, fallback=fallback))
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

