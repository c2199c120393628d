"""Measure-and-match probes (ABNIRML §2.2.1, Table 1).

Characteristics of a judged (query, document) pair:

* ``rel``: the relevance grade from the qrels;
* ``len``: number of non-stopword tokens of the document (stop words: ``stopword_list``, scikit-learn's
  list by default, ``"terrier"`` = Terrier's, the reference code's index);
* ``tf``: vector of Porter-stemmed query-term frequencies in the document (non-stopword terms);
* ``overlap``: share of the document's non-stopword tokens whose stem is a query term.

For a (variable, control) pair, samples are pairs of judged documents of the same query that
*match* on the control and *differ* on the variable; ``d1`` is the document with more of the
variable (higher grade, longer, higher TF, larger overlap). Matching rules:

* ``rel``: equal grades; differ: different grades.
* ``len``: identical lengths (the paper: "a control (matching based on identical values)"; the
  reference code's epsilon is 0); ``mm_len_tolerance`` > 0 (relative) is a named deviation that
  matches lengths within that share; differ: beyond it.
* ``tf``: identical TF vectors; differ: ``d1`` has a higher TF for at least one query term and
  no lower TF for any (TF dominance; non-dominated pairs are not samples).
* ``overlap``: identical overlaps (compared exactly as fractions); ``mm_overlap_tolerance`` > 0
  (absolute) is a named deviation; differ: beyond it. Documents with overlap 0 (no query term)
  take no part in overlap pairs, as a control or as the variable: the paper's text does not say,
  its reference code (``Overlap``: "don't do 0s") does so, and its sample counts follow from it
  (DL19 passages here: 18,505 equal-overlap pairs with zeros, 3,087 without);
  ``mm_overlap_zeros=True`` keeps them.

Candidate pairs are enumerated in a deterministic order (query id, then doc ids) and
sub-sampled with the probe's seeded generator to at most ``cap`` samples (0: every one).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ValidationError
from ..text import content_terms
from ..text import stopword_list as named_stopwords
from .base import Probe, ProbeSample, ProbeSamples, cap_samples
from .declaration import Params

__all__ = ["MM_VARIABLES", "MeasureMatchProbe", "doc_features"]

DEFAULTS = Params()

MM_VARIABLES = ("rel", "len", "tf", "overlap")


def doc_features(query: str, doc: str, relevance: int,
                 stopword_list: str = DEFAULTS.stopword_list) -> dict[str, Any]:
    """The four characteristics of a judged pair (see module docstring); ``stopword_list``: the
    stop-word list's name (:func:`ranklens.text.stopword_list`)."""
    qterms = sorted(set(content_terms(query, stopwords=stopword_list)))
    dterms = content_terms(doc, stopwords=stopword_list)
    counts = Counter(dterms)
    n = len(dterms)
    return {
        "rel": int(relevance),
        "len": n,
        "tf": tuple(counts.get(t, 0) for t in qterms),
        "overlap": (sum(counts.get(t, 0) for t in qterms) / n) if n else 0.0,
        "overlap_frac": Fraction(sum(counts.get(t, 0) for t in qterms), n) if n else Fraction(0),
    }


@dataclass(frozen=True, repr=False)
class MeasureMatchProbe(Probe):
    """Vary ``variable`` while holding ``control`` fixed, over judged documents."""

    variable: str
    control: str
    cap: int = DEFAULTS.cap
    mm_len_tolerance: float = DEFAULTS.mm_len_tolerance
    mm_overlap_tolerance: float = DEFAULTS.mm_overlap_tolerance
    mm_overlap_zeros: bool = DEFAULTS.mm_overlap_zeros
    stopword_list: str = DEFAULTS.stopword_list
    family = "measure-match"

    def __post_init__(self) -> None:
        for k in (self.variable, self.control):
            if k not in MM_VARIABLES:
                raise ValidationError(f"measure-and-match characteristic must be one of {MM_VARIABLES}, got {k!r}")
        if self.variable == self.control:
            raise ValidationError("variable and control must differ")
        named_stopwords(self.stopword_list)  # an unknown list name is an error here, not at the first document

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"mm-{self.variable}-ctrl-{self.control}"

    def params(self) -> dict[str, Any]:
        return {"variable": self.variable, "control": self.control, "cap": self.cap or None,
                "mm_len_tolerance": self.mm_len_tolerance, "mm_overlap_tolerance": self.mm_overlap_tolerance,
                "mm_overlap_zeros": self.mm_overlap_zeros, "stopword_list": self.stopword_list}

    def _exact(self) -> bool:
        return (self.control != "len" or self.mm_len_tolerance == 0) and (
            self.control != "overlap" or self.mm_overlap_tolerance == 0)

    def _match(self, key: str, a: dict, b: dict) -> bool:
        if key == "len":
            return abs(a["len"] - b["len"]) <= self.mm_len_tolerance * max(a["len"], b["len"], 1)
        if key == "overlap":
            if not self.mm_overlap_zeros and (a["overlap_frac"] == 0 or b["overlap_frac"] == 0):
                return False  # the reference code: "don't do 0s"
            if self.mm_overlap_tolerance == 0:  # exact: a_tf / a_len == b_tf / b_len without rounding
                return a["overlap_frac"] == b["overlap_frac"]
            return abs(a["overlap"] - b["overlap"]) <= self.mm_overlap_tolerance
        return a[key] == b[key]

    def _greater(self, a: dict, b: dict) -> bool:
        """True when ``a`` has more of the variable than ``b`` (and they differ)."""
        v = self.variable
        if v == "tf":
            return all(x >= y for x, y in zip(a["tf"], b["tf"])) and any(
                x > y for x, y in zip(a["tf"], b["tf"]))
        if v == "overlap" and not self.mm_overlap_zeros and (a["overlap_frac"] == 0 or b["overlap_frac"] == 0):
            return False
        if v in ("len", "overlap"):
            key = "overlap_frac" if v == "overlap" else v
            return not self._match(v, a, b) and a[key] > b[key]
        return a[v] > b[v]

    def generate(self, collection: Any, *, rng: np.random.Generator) -> ProbeSamples:
        if collection is None or collection.qrels is None:
            raise ValidationError(f"probe {self.name} needs a collection with qrels (--collection)")
        queries = collection.queries_dict()
        qrels = collection.qrels
        cands: list[ProbeSample] = []
        for qid, grp in sorted(qrels.groupby("query_id", sort=True), key=lambda kv: str(kv[0])):
            qid = str(qid)
            if qid not in queries:
                continue
            q = queries[qid]
            docs = []
            for did, rel in sorted(zip(grp["doc_id"].astype(str), grp["relevance"].astype(int))):
                if did in collection.docs:
                    docs.append((did, doc_features(q, collection.docs[did], rel, self.stopword_list)))
            for i in range(len(docs)):
                for j in range(i + 1, len(docs)):
                    (ia, fa), (ib, fb) = docs[i], docs[j]
                    if not self._match(self.control, fa, fb):
                        continue
                    if self._greater(fa, fb):
                        d1, d2 = ia, ib
                    elif self._greater(fb, fa):
                        d1, d2 = ib, ia
                    else:
                        continue
                    cands.append(ProbeSample(
                        sample_id=f"{qid}|{d1}|{d2}", query_id=qid, query=q,
                        text_1=collection.docs[d1], text_2=collection.docs[d2],
                        doc_1_id=d1, doc_2_id=d2,
                    ))
        kept = cap_samples(cands, self.cap, rng)
        return ProbeSamples(tuple(kept), info={"direction": f"d1 has more {self.variable}",
                                                  "control": "identical" if self._exact() else "tolerance"},
                            available=len(cands))

