"""The probes by name: the registry (:func:`register_probe`, :func:`list_probes`,
:func:`select_probes`, :func:`get_probe`) and the built-in probes registered in it (``ranklens ls
probes``).

Names: ``mm-<variable>-ctrl-<control>`` (measure-and-match), ``tr-<manipulation>``
(textual manipulation; ``-rel``/``-nonrel`` variants restrict to relevant/non-relevant judged
documents), ``ds-<attribute>-<dataset>`` (dataset transfer), ``demo-<kind>`` (the demo pairs),
``pairs`` (any TSV/JSONL file: ``pairs_file=...``).

The factories take the analysis's parameters by their ``Params`` names
(:class:`ranklens.probes.declaration.Params`), so one options dict (the ``Params`` fields) serves
every probe. Dataset-transfer probes read their files from ``data_dir`` (a folder holding ``mrpc/``,
``jfleg/``, ``turkcorpus/``, ``wnc_sample/``, ``xsum_sample/``, ``nq_oracle_sample/``, ``gyafc/``,
``cnndm/``), or from an explicit ``path``.
"""

from __future__ import annotations

import fnmatch
import os
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ValidationError
from .base import Probe
from .declaration import Params
from .manipulation import (
    TRANSFORMS,
    Doc2QueryProbe,
    NonRelevantSentenceProbe,
    TransformProbe,
    TypoProbe,
)
from .measure_match import MM_VARIABLES, MeasureMatchProbe
from .transfer import NQ_ENTITY_TYPES, PairsProbe

__all__ = [
    "PROBES",
    "ProbeInfo",
    "data_path",
    "get_probe",
    "list_probes",
    "register_probe",
    "resolve_data_dir",
    "resource_dir",
    "select_probes",
    "typo_list",
]

DEFAULTS = Params()

#: option names before the one-vocabulary rename -> their ``Params`` names (accepted by
#: :func:`get_probe` with a FutureWarning for one release)
RENAMED_OPTIONS = {"rate": "typo_rate", "len_tolerance": "mm_len_tolerance",
                   "overlap_tolerance": "mm_overlap_tolerance", "overlap_zeros": "mm_overlap_zeros",
                   "split": "transfer_split", "reference": "transfer_reference",
                   "question_filter": "nq_question_filter", "pairs_path": "pairs_file"}


@dataclass(frozen=True)
class ProbeInfo:
    """Registry entry: how to build a probe by name."""

    name: str
    family: str
    symmetric: bool
    description: str
    factory: Callable[..., Probe]
    needs_collection: bool = True


PROBES: dict[str, ProbeInfo] = {}


def register_probe(
    name: str, factory: Callable[..., Probe], *, family: str, symmetric: bool = False,
    description: str = "", needs_collection: bool = True,
) -> None:
    """Add a probe factory (``factory(**options) -> Probe``) under ``name``.

    Raises:
        ValidationError: if ``name`` is already registered.
    """
    if name in PROBES:
        raise ValidationError(f"probe {name!r} is already registered; pick another name")
    PROBES[name] = ProbeInfo(name, family, symmetric, description, factory, needs_collection)


def list_probes() -> list[ProbeInfo]:
    """All registered probes, sorted by name."""
    return [PROBES[k] for k in sorted(PROBES)]


def select_probes(patterns: str | Iterable[str]) -> list[str]:
    """Probe names matching names or globs (``"mm-*"``, ``"tr-shuffle-*,ds-*"``).

    Raises:
        ValidationError: if a pattern matches nothing (the message lists close names).
    """
    if isinstance(patterns, str):
        patterns = [patterns]
    pats = [p.strip() for pat in patterns for p in pat.split(",") if p.strip()]
    names: list[str] = []
    for pat in pats:
        hit = [n for n in sorted(PROBES) if fnmatch.fnmatchcase(n, pat)]
        if not hit:
            import difflib

            close = difflib.get_close_matches(pat, sorted(PROBES), n=5)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise ValidationError(
                f"no probe matches {pat!r}.{hint} List them with `ranklens ls probes`."
            )
        names.extend(n for n in hit if n not in names)
    return names


def get_probe(name: str, **options: Any) -> Probe:
    """Build the registered probe ``name`` with ``options`` named as the ``Params`` fields (unknown
    options are ignored by probes that do not take them, so one option set, e.g. every field of a
    ``Params`` value, can serve a glob of probes). The names of :data:`RENAMED_OPTIONS` are still
    read, with a FutureWarning."""
    for old, new in RENAMED_OPTIONS.items():
        if old in options:
            warnings.warn(f"probe option {old!r} is now {new!r} (the Params name); {old!r} will be removed",
                          FutureWarning, stacklevel=2)
            options.setdefault(new, options.pop(old))
    if name not in PROBES:
        select_probes(name)  # raises with suggestions
    factory = PROBES[name].factory
    import inspect

    sig = inspect.signature(factory)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return factory(**options)
    return factory(**{k: v for k, v in options.items() if k in sig.parameters})


def resolve_data_dir(data_dir: str | None) -> str | None:
    """The explicit data root: ``data_dir`` when it is a path; for ``"auto"`` (or ``None``)
    ``$RANKLENS_DATA`` (``$RANKLENS_SHARED_DATA``/``$RANKLENS_PROBE_DATA``, old names, with a
    warning), else ``None``. Never relative to the working directory; a resource's folder is found
    by :func:`ranklens.datareg.resolve` (this root, then the user data cache)."""
    from ..datareg import explicit_root

    root, _how = explicit_root(data_dir)
    if root is None and os.environ.get("RANKLENS_PROBE_DATA"):
        warnings.warn("RANKLENS_PROBE_DATA is deprecated; set RANKLENS_DATA", FutureWarning, stacklevel=2)
        return os.environ["RANKLENS_PROBE_DATA"]
    return str(root) if root is not None else None


def _resource_of(sub: str) -> str:
    from ..datareg import RESOURCES

    return next((r.name for r in RESOURCES.values() if r.folder == sub), sub)


def resource_dir(resource: str, data_dir: str | None, missing_data: str = DEFAULTS.missing_data) -> str | None:
    """The folder of a registered data ``resource`` (:func:`ranklens.datareg.resolve`: the explicit
    root, then the user data cache). Found nowhere: ``missing_data="error"`` raises
    :class:`ranklens.datareg.MissingDataError` (the resource, the places looked, the fix);
    ``"skip"`` returns ``None`` (the probe skips itself and says why)."""
    from ..datareg import MissingDataError, resolve

    if missing_data not in ("error", "skip"):
        raise ValidationError(f"missing_data={missing_data!r}: use 'error' or 'skip'")
    root = resolve_data_dir(data_dir)
    try:
        return str(resolve(resource, root))
    except MissingDataError as exc:
        if missing_data == "error":
            raise MissingDataError(f"{exc} (or set missing_data=skip to skip the probes needing it)") from None
        return None


def data_path(data_dir: str | None, sub: str, path: str | None, name: str,
              missing_data: str = DEFAULTS.missing_data) -> str:
    """``path`` or the folder of the resource held in ``<root>/<sub>`` (:func:`resource_dir`); with
    ``missing_data="skip"`` a resource found nowhere gives a ``<missing ...>`` path and the probe
    skips itself with the reason."""
    if path:
        return str(path)
    found = resource_dir(_resource_of(sub), data_dir, missing_data)
    return found if found else f"<missing data resource {_resource_of(sub)!r}: `ranklens data fetch`>/{sub}"


def _mm(variable: str, control: str):
    def factory(cap: int = DEFAULTS.cap, mm_len_tolerance: float = DEFAULTS.mm_len_tolerance,
                mm_overlap_tolerance: float = DEFAULTS.mm_overlap_tolerance,
                mm_overlap_zeros: bool = DEFAULTS.mm_overlap_zeros,
                stopword_list: str = DEFAULTS.stopword_list) -> MeasureMatchProbe:
        return MeasureMatchProbe(variable=variable, control=control, cap=cap, mm_len_tolerance=mm_len_tolerance,
                                 mm_overlap_tolerance=mm_overlap_tolerance, mm_overlap_zeros=mm_overlap_zeros,
                                 stopword_list=stopword_list)
    return factory


for _v in MM_VARIABLES:
    for _c in MM_VARIABLES:
        if _v != _c:
            register_probe(f"mm-{_v}-ctrl-{_c}", _mm(_v, _c), family="measure-match",
                           description=f"judged docs differing in {_v} with equal {_c}; d1 = more {_v}")

_TR_DESC = {
    "shuffle-words": "shuffle words within each sentence (shuffle_words_scope=document: across the text)",
    "shuffle-sents": "shuffle sentence order",
    "shuffle-preps": "shuffle prepositions within each sentence (shuffle_preps_scope=document: across the text)",
    "del-stops-punct": "remove stopwords and punctuation",
    "lemmatize": "replace words by lemmas",
    "typo": "common misspellings of non-stopwords (misspellings=auto: the Aspell/Wikipedia list "
            "under data_dir/misspellings/)",
    "doc2query": "append doc2query expansions (expander=MODEL_DIR|FILE)",
    "add-nonrel-sent": "append a sentence of a non-relevant document",
}


CHAR_TYPOS = ("char", "chars", "character", "none", "fallback")


def typo_list(misspellings: str | None, data_dir: str | None,
              missing_data: str = DEFAULTS.missing_data) -> str | None:
    """The misspelling list a typo probe uses: a file path; ``"char"`` (:data:`CHAR_TYPOS`) asks
    for character-level typos (``None``: the probe reports as ``tr-typo-char``); ``"auto"`` /
    ``"wikipedia"`` (or ``None``) is the Wikipedia list of the registry's ``misspellings`` resource
    (:func:`resource_dir`, :func:`ranklens.probes.typos.default_misspellings`). Never a silent
    fallback: a missing list raises (``missing_data="error"``) or returns ``""`` (``"skip"``: the
    probe is skipped)."""
    from .typos import default_misspellings

    m = "auto" if misspellings is None else str(misspellings)
    if m.lower() in CHAR_TYPOS:
        return None
    if m.lower() not in ("auto", "wikipedia"):
        if not Path(m).is_file():
            raise ValidationError(f"misspellings={m!r}: no such file; give a .tab/.json list, 'auto' "
                                  "(the registry's misspellings resource) or 'char' for character-level typos")
        return m
    folder = resource_dir("misspellings", data_dir, missing_data)
    found = default_misspellings(Path(folder).parent) if folder else None
    if folder and not found:
        from ..datareg import MissingDataError

        if missing_data == "error":
            raise MissingDataError(f"{folder}: holds no .tab/.json misspelling list; `ranklens data verify "
                                   "misspellings` (or set missing_data=skip)")
    return found or ""


@dataclass(frozen=True, repr=False)
class MissingDataProbe(Probe):
    """Stands for a probe whose data resource is missing under ``missing_data="skip"``: it
    generates nothing and says why (the run's warnings list it)."""

    probe_name: str = "probe"
    probe_family: str = "custom"
    reason: str = ""

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.probe_name

    @property
    def family(self) -> str:  # type: ignore[override]
        return self.probe_family

    def params(self) -> dict[str, Any]:
        return {"missing_data": "skip"}

    def generate(self, collection: Any, *, rng: Any) -> Any:
        from .base import ProbeSamples

        return ProbeSamples((), info={}, skipped=self.reason)


def _tr(transform: str, subset: str):
    def factory(cap: int = DEFAULTS.cap, misspellings: str | None = DEFAULTS.misspellings,
                typo_rate: float = DEFAULTS.typo_rate, expander: str | None = DEFAULTS.expander,
                expander_obj: Any = None, data_dir: str | None = DEFAULTS.data_dir,
                typo_stopwords: bool = DEFAULTS.typo_stopwords, nonrel_source: str = DEFAULTS.nonrel_source,
                lemmatize_stopwords: bool = DEFAULTS.lemmatize_stopwords,
                shuffle_preps_scope: str = DEFAULTS.shuffle_preps_scope,
                shuffle_words_scope: str = DEFAULTS.shuffle_words_scope, stopword_list: str = DEFAULTS.stopword_list,
                nonrel_max_grade: int = DEFAULTS.nonrel_max_grade,
                typo_max_edit: int | None = DEFAULTS.typo_max_edit,
                missing_data: str = DEFAULTS.missing_data) -> Probe:
        grade = {"subset": subset, "nonrel_max_grade": int(nonrel_max_grade)}
        if transform == "typo":
            listed = typo_list(misspellings, data_dir, missing_data)
            if listed == "":
                name = "tr-typo" + ("" if subset == "all" else f"-{subset}")
                return MissingDataProbe(probe_name=name, probe_family="manipulation",
                                        reason="data resource 'misspellings' not found (missing_data=skip; "
                                               "`ranklens data fetch misspellings`)")
            # typo_max_edit: -1 (or None) = the per-format default (Wikipedia's list whole)
            return TypoProbe(**grade, cap=cap, misspellings_file=listed,
                             typo_rate=typo_rate, typo_stopwords=typo_stopwords, stopword_list=stopword_list,
                             typo_max_edit=-1 if typo_max_edit is None else int(typo_max_edit),
                             char_requested=listed is None)
        if transform == "doc2query":
            return Doc2QueryProbe(**grade, cap=cap, expander=expander or "", expander_obj=expander_obj)
        if transform == "add-nonrel-sent":
            return NonRelevantSentenceProbe(**grade, cap=cap, nonrel_source=nonrel_source)
        return TransformProbe(transform=transform, **grade, cap=cap, lemmatize_stopwords=lemmatize_stopwords,
                              shuffle_preps_scope=shuffle_preps_scope, shuffle_words_scope=shuffle_words_scope,
                              stopword_list=stopword_list)
    return factory


for _t in [*TRANSFORMS, "typo", "doc2query", "add-nonrel-sent"]:
    for _s in ("all", "rel", "nonrel"):
        register_probe(f"tr-{_t}" + ("" if _s == "all" else f"-{_s}"), _tr(_t, _s),
                       family="manipulation",
                       description=_TR_DESC[_t] + ("" if _s == "all" else f" ({_s} judged docs)")
                       + "; d1 = manipulated")


def _ds(name: str, loader: str, sub: str, symmetric: bool = False, **fixed: Any):
    filt = fixed.pop("_filter", None)

    def factory(data_dir: str | None = DEFAULTS.data_dir, path: str | None = None, cap: int = DEFAULTS.cap,
                require_lemma_overlap: bool = DEFAULTS.require_lemma_overlap,
                missing_data: str = DEFAULTS.missing_data, **kw: Any) -> PairsProbe:
        opts = _LOADER_OPTS.get(loader, {})
        kwargs = {**{opts[k]: v for k, v in kw.items() if k in opts}, **fixed}
        return PairsProbe(
            probe_name=name, loader=loader, path=data_path(data_dir, sub, path, name, missing_data),
            dataset_name=sub, loader_kwargs=tuple(sorted(kwargs.items())), symmetric=symmetric,
            filter_column=filt[0] if filt else None, filter_value=filt[1] if filt else None,
            cap=cap, require_lemma_overlap=require_lemma_overlap,
            chunk_rule=kw.get("transfer_chunk_rule", DEFAULTS.transfer_chunk_rule))
    return factory


#: per loader: option (``Params`` name) -> the reader's argument (:mod:`ranklens.io.pairs`)
_SPLIT, _REF = {"transfer_split": "split"}, {"transfer_reference": "reference"}
_LOADER_OPTS: dict[str, dict[str, str]] = {
    "mrpc": _SPLIT, "jfleg": {**_SPLIT, **_REF}, "turkcorpus": {**_SPLIT, **_REF}, "wnc": _SPLIT, "gyafc": _REF,
    "nq": {"seed": "seed", "nq_question_filter": "question_filter"},
    "pairs": {c: c for c in ("text_a", "text_b", "query", "pair_id")},
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


def _pairs_factory(pairs_file: str | None = DEFAULTS.pairs_file, pairs_symmetric: bool = DEFAULTS.pairs_symmetric,
                   cap: int = DEFAULTS.cap, name: str = "pairs",
                   require_lemma_overlap: bool = DEFAULTS.require_lemma_overlap, **kw: Any) -> PairsProbe:
    path, symmetric = pairs_file, pairs_symmetric
    if not path:
        raise ValidationError("probe 'pairs' needs pairs_file (a TSV with header or JSONL file with "
                              "text_a, text_b and optional query columns)")
    opts = {k: v for k, v in kw.items() if k in _LOADER_OPTS["pairs"]}
    return PairsProbe(probe_name=name, loader="pairs", path=str(path), dataset_name=Path(path).stem,
                      loader_kwargs=tuple(sorted(opts.items())), symmetric=bool(symmetric), cap=cap,
                      require_lemma_overlap=require_lemma_overlap,
                      chunk_rule=kw.get("transfer_chunk_rule", DEFAULTS.transfer_chunk_rule))


register_probe("pairs", _pairs_factory, family="transfer",
               description="pairs from any TSV/JSONL file (parameters pairs_file, pairs_symmetric)",
               needs_collection=False)

DEMO_KINDS = ("paraphrase", "fluency", "formality", "simplicity", "neutrality", "succinctness",
              "factuality")


def _demo(kind: str):
    def factory(cap: int = DEFAULTS.cap, require_lemma_overlap: bool = DEFAULTS.require_lemma_overlap) -> PairsProbe:
        return PairsProbe(probe_name=f"demo-{kind}", loader="demo", path=kind, dataset_name="demo",
                          symmetric=kind == "paraphrase", cap=cap,
                          require_lemma_overlap=require_lemma_overlap)
    return factory


for _k in DEMO_KINDS:
    register_probe(f"demo-{_k}", _demo(_k), family="transfer", symmetric=_k == "paraphrase",
                   description=f"demo collection {_k} pairs", needs_collection=False)
