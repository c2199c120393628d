"""Built-in probes, registered by name (``ranklens ls probes``).

Names: ``mm-<variable>-ctrl-<control>`` (measure-and-match), ``tr-<manipulation>``
(textual manipulation; ``-rel``/``-nonrel`` variants restrict to relevant/non-relevant judged
documents), ``ds-<attribute>-<dataset>`` (dataset transfer), ``demo-<kind>`` (the demo pairs),
``pairs`` (any TSV/JSONL file: ``path=...``).

Dataset-transfer probes read their files from ``data_dir`` (a folder holding ``mrpc/``,
``jfleg/``, ``turkcorpus/``, ``wnc_sample/``, ``xsum_sample/``, ``nq_oracle_sample/``, ``gyafc/``,
``cnndm/``), or from an explicit ``path``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...errors import ValidationError
from ..base import register_probe
from .manipulation import (
    TRANSFORMS,
    Doc2QueryProbe,
    NonRelevantSentenceProbe,
    TransformProbe,
    TypoProbe,
)
from .measure_match import MM_VARIABLES, MeasureMatchProbe
from .transfer import NQ_ENTITY_TYPES, PairsProbe

DEFAULT_CAP = None  # the paper uses every sample


def resolve_data_dir(data_dir: str | None) -> str | None:
    """The folder of the dataset-transfer data and the misspelling lists: ``data_dir`` when it
    is a path; for ``"auto"`` (or ``None``) ``$RANKLENS_SHARED_DATA``, else
    ``$RANKLENS_PROBE_DATA``, else ``../shared/data`` when that folder exists, else ``None``.
    The same rule at every door (CLI, experiment file, Python)."""
    if data_dir and data_dir != "auto":
        return str(data_dir)
    for env in ("RANKLENS_SHARED_DATA", "RANKLENS_PROBE_DATA"):
        if os.environ.get(env):
            return os.environ[env]
    guess = Path("..") / "shared" / "data"
    return str(guess) if guess.is_dir() else None


def data_path(data_dir: str | None, sub: str, path: str | None, name: str) -> str:
    """``path`` or ``<data_dir>/<sub>`` (:func:`resolve_data_dir`); a path that does not exist
    makes the probe skip itself with the reason."""
    if path:
        return str(path)
    base = resolve_data_dir(data_dir)
    return str(Path(base) / sub) if base else f"<no data_dir>/{sub}"


def _mm(variable: str, control: str):
    def factory(cap: int | None = DEFAULT_CAP, len_tolerance: float = 0.0,
                overlap_tolerance: float = 0.0, overlap_zeros: bool = False) -> MeasureMatchProbe:
        return MeasureMatchProbe(variable=variable, control=control, cap=cap, len_tolerance=len_tolerance,
                                 overlap_tolerance=overlap_tolerance, overlap_zeros=overlap_zeros)
    return factory


for _v in MM_VARIABLES:
    for _c in MM_VARIABLES:
        if _v != _c:
            register_probe(f"mm-{_v}-ctrl-{_c}", _mm(_v, _c), family="measure-match",
                           description=f"judged docs differing in {_v} with equal {_c}; d1 = more {_v}")

_TR_DESC = {
    "shuffle-words": "shuffle words within each sentence",
    "shuffle-sents": "shuffle sentence order",
    "shuffle-preps": "shuffle prepositions within each sentence (shuffle_preps_scope=document: across the text)",
    "del-stops-punct": "remove stopwords and punctuation",
    "lemmatize": "replace words by lemmas",
    "typo": "common misspellings of non-stopwords (misspellings=auto: the Aspell/Wikipedia list "
            "under data_dir/misspellings/)",
    "doc2query": "append doc2query expansions (expander=MODEL_DIR|FILE)",
    "add-nonrel-sent": "append a sentence of a non-relevant document",
}


def typo_list(misspellings: str | None, data_dir: str | None) -> str | None:
    """The misspelling list a typo probe uses: a file path; ``"char"`` forces the
    character-level fallback; ``"auto"`` (or ``None``) is the Wikipedia/Aspell list under
    ``<data_dir>/misspellings/`` (:func:`resolve_data_dir`,
    :func:`ranklens.probes.typos.default_misspellings`), ``None`` when there is none (then the
    probe falls back to character typos and the driver warns)."""
    from ..typos import default_misspellings

    m = "auto" if misspellings is None else str(misspellings)
    if m.lower() in ("char", "chars", "none", "fallback"):
        return None
    if m != "auto":
        if not Path(m).is_file():
            raise ValidationError(f"misspellings={m!r}: no such file; give a .tab/.json list, 'auto' "
                                  "(data_dir/misspellings/) or 'char' for character-level typos")
        return m
    return default_misspellings(resolve_data_dir(data_dir))


def _tr(transform: str, subset: str):
    def factory(cap: int | None = DEFAULT_CAP, misspellings: str | None = "auto", rate: float = 0.5,
                expander: str | None = None, expander_obj: Any = None, data_dir: str | None = None,
                typo_stopwords: bool = False, nonrel_source: str = "same-query",
                lemmatize_stopwords: bool = False, shuffle_preps_scope: str = "sentence",
                nonrel_max_grade: int = 0, typo_max_edit: int | None = None) -> TransformProbe:
        grade = {"subset": subset, "nonrel_max_grade": int(nonrel_max_grade)}
        if transform == "typo":
            # typo_max_edit: None or -1 = the per-format default (Wikipedia's list whole)
            max_edit = None if typo_max_edit is None or int(typo_max_edit) == -1 else int(typo_max_edit)
            return TypoProbe(**grade, cap=cap, misspellings=typo_list(misspellings, data_dir),
                             rate=rate, stopwords=typo_stopwords, max_edit=max_edit,
                             char_requested=str(misspellings).lower() in ("char", "chars", "none", "fallback"))
        if transform == "doc2query":
            return Doc2QueryProbe(**grade, cap=cap, expander=expander or None, expander_obj=expander_obj)
        if transform == "add-nonrel-sent":
            return NonRelevantSentenceProbe(**grade, cap=cap, source=nonrel_source)
        return TransformProbe(transform=transform, **grade, cap=cap, lemmatize_stopwords=lemmatize_stopwords,
                              preposition_scope=shuffle_preps_scope)
    return factory


for _t in [*TRANSFORMS, "typo", "doc2query", "add-nonrel-sent"]:
    for _s in ("all", "rel", "nonrel"):
        register_probe(f"tr-{_t}" + ("" if _s == "all" else f"-{_s}"), _tr(_t, _s),
                       family="manipulation",
                       description=_TR_DESC[_t] + ("" if _s == "all" else f" ({_s} judged docs)")
                       + "; d1 = manipulated")


def _ds(name: str, loader: str, sub: str, symmetric: bool = False, **fixed: Any):
    filt = fixed.pop("_filter", None)

    def factory(data_dir: str | None = None, path: str | None = None, cap: int | None = DEFAULT_CAP,
                require_lemma_overlap: bool = True, **kw: Any) -> PairsProbe:
        kwargs = {**{k: v for k, v in kw.items() if k in _LOADER_OPTS.get(loader, ())}, **fixed}
        return PairsProbe(
            probe_name=name, loader=loader, path=data_path(data_dir, sub, path, name),
            dataset_name=sub, loader_kwargs=tuple(sorted(kwargs.items())), symmetric=symmetric,
            filter_column=filt[0] if filt else None, filter_value=filt[1] if filt else None,
            cap=cap, require_lemma_overlap=require_lemma_overlap)
    return factory


_LOADER_OPTS = {
    "mrpc": ("split",), "jfleg": ("split", "reference"), "turkcorpus": ("split", "reference"),
    "wnc": ("split",), "gyafc": ("reference",), "nq": ("seed", "question_filter"),
    "pairs": ("text_a", "text_b", "query", "pair_id"),
}

_DS = [
    ("ds-paraphrase-mrpc", "mrpc", "mrpc", True, {}, "MSR paraphrase pairs (symmetric)"),
    ("ds-fluency-jfleg", "jfleg", "jfleg", False, {}, "fluent reference vs learner sentence"),
    ("ds-fluency-jfleg-spell", "jfleg", "jfleg", False, {"spellchecked": True},
     "fluent reference vs spell-checked learner sentence"),
    ("ds-formality-gyafc", "gyafc", "gyafc", False, {}, "formal vs informal (licensed data)"),
    ("ds-simplicity-turk", "turkcorpus", "turkcorpus", False, {}, "Turker simplification vs original"),
    ("ds-neutrality-wnc", "wnc", "wnc_sample", False, {"split": "all"}, "neutralized vs biased"),
    ("ds-succinct-xsum", "xsum", "xsum_sample", False, {}, "summary vs article (XSum)"),
    ("ds-succinct-cnndm", "cnndm", "cnndm", False, {}, "highlights vs article (CNN/DailyMail)"),
    ("ds-factuality-nq", "nq", "nq_oracle_sample", False, {}, "original vs answer-swapped passage (PER, GPE, "
     "LOC, NORP, ORG answers)"),
]
for _n, _l, _sub, _sym, _fx, _d in _DS:
    register_probe(_n, _ds(_n, _l, _sub, _sym, **_fx), family="transfer", symmetric=_sym,
                   description=_d + ("" if _sym else "; d1 = attributed text"), needs_collection=False)
for _et in NQ_ENTITY_TYPES:
    register_probe(f"ds-factuality-nq-{_et.lower()}",
                   _ds(f"ds-factuality-nq-{_et.lower()}", "nq", "nq_oracle_sample", _filter=("entity_type", _et)),
                   family="transfer", description=f"original vs answer-swapped passage ({_et} answers)",
                   needs_collection=False)


def _pairs_factory(pairs_path: str | None = None, pairs_symmetric: bool = False, cap: int | None = DEFAULT_CAP,
                   name: str = "pairs", require_lemma_overlap: bool = True, **kw: Any) -> PairsProbe:
    path, symmetric = pairs_path, pairs_symmetric
    if not path:
        raise ValidationError("probe 'pairs' needs pairs_file (a TSV with header or JSONL file with "
                              "text_a, text_b and optional query columns)")
    opts = {k: v for k, v in kw.items() if k in _LOADER_OPTS["pairs"]}
    return PairsProbe(probe_name=name, loader="pairs", path=str(path), dataset_name=Path(path).stem,
                      loader_kwargs=tuple(sorted(opts.items())), symmetric=bool(symmetric), cap=cap,
                      require_lemma_overlap=require_lemma_overlap)


register_probe("pairs", _pairs_factory, family="transfer",
               description="pairs from any TSV/JSONL file (parameters pairs_file, pairs_symmetric)",
               needs_collection=False)

DEMO_KINDS = ("paraphrase", "fluency", "formality", "simplicity", "neutrality", "succinctness",
              "factuality")


def _demo(kind: str):
    def factory(cap: int | None = DEFAULT_CAP, require_lemma_overlap: bool = True) -> PairsProbe:
        return PairsProbe(probe_name=f"demo-{kind}", loader="demo", path=kind, dataset_name="demo",
                          symmetric=kind == "paraphrase", cap=cap,
                          require_lemma_overlap=require_lemma_overlap)
    return factory


for _k in DEMO_KINDS:
    register_probe(f"demo-{_k}", _demo(_k), family="transfer", symmetric=_k == "paraphrase",
                   description=f"demo collection {_k} pairs", needs_collection=False)
