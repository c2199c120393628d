"""PyTerrier both ways (optional ``[pyterrier]`` extra).

- :class:`PyTerrierRanker`: a PyTerrier re-ranking transformer as a ranklens ranker (any object
  with ``transform(df) -> df``; PyTerrier itself is not imported).
- :func:`as_transformer`: a ranklens ranker as a ``pt.Transformer`` that re-ranks a PyTerrier
  result frame (``qid``, ``query``, ``docno``, ``text``), scoring through the ranklens engine
  (deduplicated, batched, cached). Build a ranker from a spec first with
  :func:`ranklens.specs.make_ranker` (a spec string here is deprecated, for one release).
- :func:`run_to_pyterrier` / :func:`pyterrier_to_run`: frames between the two column
  conventions (``qid``/``docno``/``label`` and ``query_id``/``doc_id``/``relevance``).

ASL inside ``pt.Experiment``: pass ``ranklens.asl.ir_measures_ext.as_ir_measure("ASL")``
in ``eval_metrics`` (it is an ir_measures measure).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._hashing import FINGERPRINT_WARNINGS
from ..errors import RanklensWarning, ValidationError
from ..types import DEFAULT_TIES, TIE_RULES
from .base import BaseRanker, named_fingerprint

__all__ = ["PyTerrierRanker", "as_transformer", "pairs_to_frame", "pyterrier_to_run", "run_to_pyterrier",
           "transformer_params"]

_SIMPLE = (str, int, float, bool, type(None))


def _param_value(value: Any, depth: int) -> Any:
    if isinstance(value, _SIMPLE):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, _SIMPLE) for v in value):
        return list(value)
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, _SIMPLE) for k, v in value.items()):
        return dict(sorted(value.items()))
    if depth < 3 and hasattr(value, "transform"):  # a nested transformer (pipelines)
        return transformer_params(value, depth + 1)
    if depth < 3 and isinstance(value, (list, tuple)) and all(hasattr(v, "transform") for v in value):
        return [transformer_params(v, depth + 1) for v in value]
    return None


def transformer_params(transformer: Any, depth: int = 0) -> dict[str, Any]:
    """The class and the simple parameters (str/number/bool, lists and dicts of them, nested
    transformers) of a PyTerrier-style transformer: what its fingerprint hashes."""
    cls = type(transformer)
    state = getattr(transformer, "__dict__", {}) or {}
    params = {}
    for key, value in sorted(state.items()):
        if key.startswith("_"):
            continue
        v = _param_value(value, depth)
        if v is not None or value is None:
            params[key] = v
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": params}


def pairs_to_frame(queries: list[str], texts: list[str]) -> Any:
    """The PyTerrier re-ranking input: one row per pair, columns ``qid``, ``query``, ``docno``,
    ``text``. Each distinct query gets one ``qid`` (``q0``, ``q1``, ...) and each pair its own
    ``docno`` (``d<position>``), so results can be aligned back whatever order they come in."""
    import pandas as pd

    qids: dict[str, str] = {}
    for q in queries:
        qids.setdefault(q, f"q{len(qids)}")
    return pd.DataFrame({
        "qid": [qids[q] for q in queries],
        "query": list(queries),
        "docno": [f"d{i}" for i in range(len(texts))],
        "text": list(texts),
    })


@dataclass(kw_only=True)
class PyTerrierRanker(BaseRanker):
    """Score pairs with any object having PyTerrier's ``transform(df) -> df`` (a re-ranker that
    reads ``query`` and ``text`` and writes ``score``).

    PyTerrier itself is not imported here: any object with that method works, so the adapter is
    testable without Java.

    Fingerprint: the transformer's class and parameters (:func:`transformer_params`: its simple
    attributes, nested transformers included), ``name_`` and the user's ``version``. Weights
    loaded behind a parameter that does not change (a fixed path retrained in place) are not
    seen: bump ``version`` when the model changes. A transformer with no readable parameter and
    no ``name_`` gets a warning (and ``fingerprint_warning``), as two such transformers of one
    class would share cached scores.
    """

    transformer: Any
    name_: str | None = None
    version: str = "1"
    batch_size: int = 64

    def __post_init__(self) -> None:
        info = transformer_params(self.transformer)
        self.fingerprint_warning: str | None = None
        if not info["params"] and self.name_ is None:
            self.fingerprint_warning = (
                f"PyTerrierRanker: {info['class']} exposes no parameters to fingerprint; cached scores are "
                f"keyed by its class and version={self.version!r} only -- pass name_=... and bump version "
                f"whenever the model changes")
            FINGERPRINT_WARNINGS.setdefault(info["class"], self.fingerprint_warning)
            warnings.warn(self.fingerprint_warning, RanklensWarning, stacklevel=3)

    @property
    def fingerprint(self) -> str:
        payload = {"transformer": transformer_params(self.transformer), "name": self.name_,
                   "version": self.version}
        return named_fingerprint("PyTerrierRanker", payload)

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        if not hasattr(self.transformer, "transform"):
            raise ValidationError(f"PyTerrierRanker: {type(self.transformer).__name__} has no .transform(df)")
        frame = pairs_to_frame(queries, texts)
        out = self.transformer.transform(frame.copy())
        missing = {"docno", "score"} - set(getattr(out, "columns", []))
        if missing:
            raise ValidationError(f"PyTerrierRanker: transformer output lacks column(s) {sorted(missing)}")
        by_doc = dict(zip(out["docno"].astype(str), out["score"].astype(float)))
        absent = [d for d in frame["docno"] if d not in by_doc]
        if absent:
            raise ValidationError(f"PyTerrierRanker: transformer dropped {len(absent)} of {len(frame)} pairs "
                                  "(a re-ranker must return a score for every input row)")
        return np.array([by_doc[d] for d in frame["docno"]], dtype=np.float64)


# --------------------------------------------------------------------------- ranklens -> PyTerrier

_PT_NAMES = {"query_id": "qid", "doc_id": "docno", "relevance": "label"}


def run_to_pyterrier(run: Any, queries: Any = None, *, ties: str = DEFAULT_TIES) -> Any:
    """A ranklens run (``query_id``, ``doc_id``, ``score``) as a PyTerrier result frame: ``qid``,
    ``docno``, ``score``, ``rank`` (0-based, as PyTerrier's), and ``query`` when ``queries``
    (``query_id``, ``text``, or PyTerrier topics) is given. Rows are sorted by ``qid`` and rank
    under the tie rule ``ties`` (default ``"trec_eval"``: scores compared as float32, ties by
    ``docno`` descending -- the order trec_eval and ir_measures evaluate)."""
    from ..io import validate_run

    r = validate_run(run, source="run")[["query_id", "doc_id", "score"]].rename(columns=_PT_NAMES)
    out = _ranked(r, ties)
    if queries is not None:
        from ..io import read_queries

        q = read_queries(queries)
        out.insert(1, "query", out["qid"].map(dict(zip(q["query_id"], q["text"]))))
    return out


def pyterrier_to_run(frame: Any) -> Any:
    """A PyTerrier result frame (``qid``, ``docno``, ``score``) as a validated ranklens run
    (``query_id``, ``doc_id``, ``score``); every reader of runs accepts the frame as it is too."""
    from ..io import validate_run

    return validate_run(frame, source="PyTerrier frame")[["query_id", "doc_id", "score"]]


def _ranked(frame: Any, ties: str) -> Any:
    """Rows sorted by ``qid`` and rank under the tie rule (:func:`ranklens.io.rank_run`), with
    PyTerrier's 0-based ``rank``; every other column kept."""
    import pandas as pd

    from ..io import rank_run

    key = pd.DataFrame({"query_id": frame["qid"].astype(str).to_numpy(),
                        "doc_id": frame["docno"].astype(str).to_numpy(),
                        "score": frame["score"].astype(np.float64).to_numpy(),
                        "_row": np.arange(len(frame), dtype=np.int64)})
    ranked = rank_run(key, ties=ties)
    out = frame.iloc[ranked["_row"].to_numpy()].reset_index(drop=True)
    out["rank"] = ranked["rank"].to_numpy(dtype=np.int64) - 1
    return out


def _texts(frame: Any, docs: Any, text_field: str) -> list[str]:
    if text_field in frame.columns:
        return frame[text_field].astype(str).tolist()
    if docs is None:
        raise ValidationError(
            f"ranklens transformer: the input frame has no {text_field!r} column (columns: {list(frame.columns)}); "
            f"add the texts first (pt.text.get_text(dataset, {text_field!r}) >> transformer) or pass docs=")
    ids = frame["docno"].astype(str).tolist()
    try:
        return list(docs.get_many(ids)) if hasattr(docs, "get_many") else [str(docs[d]) for d in ids]
    except KeyError as exc:
        raise ValidationError(f"ranklens transformer: docno missing from docs: {exc}") from None


def _rerank_frame(ranker: Any, frame: Any, *, docs: Any, engine: Any, text_field: str, ties: str) -> Any:
    """Score every row of a PyTerrier frame with ``ranker``; the frame's other columns are kept."""
    from ..engine import score_pairs

    missing = {"qid", "query", "docno"} - set(frame.columns)
    if missing:
        raise ValidationError(f"ranklens transformer: the input frame lacks column(s) {sorted(missing)}; "
                              "it re-ranks a retrieval result (qid, query, docno, and text or docs=)")
    out = frame.copy()
    if out.empty:
        out["score"] = np.zeros(0, dtype=np.float64)
        out["rank"] = np.zeros(0, dtype=np.int64)
        return out
    out["qid"] = out["qid"].astype(str)
    out["docno"] = out["docno"].astype(str)
    texts = _texts(out, docs, text_field)
    out["score"] = score_pairs(ranker, out["query"].astype(str).tolist(), texts, engine=engine)
    return _ranked(out, ties)


def as_transformer(ranker: Any, *, docs: Any = None, corpus: Any = None, engine: Any = None,
                   text_field: str = "text", ties: str = DEFAULT_TIES, **params: Any) -> Any:
    """A ranklens ranker as a PyTerrier transformer (a ``pt.Transformer``) that re-ranks.

    Args:
        ranker: a ranker object (anything with ``score(queries, texts)`` and ``fingerprint``),
            e.g. ``ranklens.specs.make_ranker("bm25", corpus=docs)``. A model spec string
            (``"bm25"``, ``"minilm"`` ...) is deprecated (a DeprecationWarning; it goes in the next
            release, since the rankers package does not reach the spec registry).
        docs: where to look up texts by ``docno`` when the input frame has no ``text_field``
            column (a :class:`~ranklens.io.DocStore`, a mapping docno -> text).
        corpus: (deprecated, with a spec string) texts to fit corpus statistics for a spec that
            needs them (``bm25``, ``tfidf``); defaults to ``docs``.
        engine: the :class:`~ranklens.engine.ScoringEngine` (default: the process-wide one,
            with its on-disk cache).
        text_field: the column holding the document text.
        ties: the tie rule ordering equal scores (:data:`ranklens.types.TIE_RULES`).
        **params: (deprecated, with a spec string) constructor parameters of the spec's ranker.

    The transformer's input is a PyTerrier result frame (``qid``, ``query``, ``docno``, and
    ``text`` or ``docs=``); its output is the same rows and columns with ``score`` replaced by
    the ranker's, sorted by ``qid`` and descending score (by default ties as trec_eval orders
    them: scores compared as float32, then ``docno`` descending), and ``rank`` recomputed
    (0-based, as PyTerrier). Use it after a first stage:
    ``bm25 >> pt.text.get_text(dataset, "text") >> as_transformer(make_ranker("minilm"))``.
    """
    if isinstance(ranker, str):  # the one-release deprecated form; the registry is imported on this use only
        warnings.warn(f"as_transformer({ranker!r}): a spec string is deprecated and goes in the next release; pass "
                      f"a ranker: as_transformer(ranklens.specs.make_ranker({ranker!r}, corpus=docs), docs=docs)",
                      DeprecationWarning, stacklevel=2)
        from .. import specs

        ranker = specs.make_ranker(ranker, corpus=corpus if corpus is not None else docs, **params)
    elif params:
        raise ValidationError(f"as_transformer: parameters {sorted(params)} apply only to a spec string")
    if not callable(getattr(ranker, "score", None)):
        raise ValidationError(f"as_transformer: {type(ranker).__name__} is not a ranker (no score(queries, texts))")
    if ties not in TIE_RULES:
        raise ValidationError(f"as_transformer: ties must be one of {TIE_RULES}, got {ties!r}")
    return _transformer_class()(ranker, docs=docs, engine=engine, text_field=text_field, ties=ties)


_CLASS: list[Any] = []


def _transformer_class() -> Any:
    """The ``pt.Transformer`` subclass, made on first use (PyTerrier is imported only then)."""
    if _CLASS:
        return _CLASS[0]
    from .._lazy import require

    pt = require("pyterrier", feature="ranklens rankers as PyTerrier transformers")

    class RankerTransformer(pt.Transformer):
        """A ranklens ranker re-ranking PyTerrier frames (see :func:`as_transformer`)."""

        def __init__(self, ranker: Any, *, docs: Any = None, engine: Any = None, text_field: str = "text",
                     ties: str = DEFAULT_TIES):
            self.ranker = ranker
            self.docs = docs
            self.engine = engine
            self.text_field = text_field
            self.ties = ties

        def transform(self, inp: Any) -> Any:
            return _rerank_frame(self.ranker, inp, docs=self.docs, engine=self.engine, text_field=self.text_field,
                                 ties=self.ties)

        def __repr__(self) -> str:
            return f"RankerTransformer({getattr(self.ranker, 'fingerprint', type(self.ranker).__name__)})"

    RankerTransformer.__module__ = __name__
    RankerTransformer.__qualname__ = "RankerTransformer"  # picklable: found again through __getattr__
    _CLASS.append(RankerTransformer)
    return RankerTransformer


def __getattr__(name: str) -> Any:
    """``RankerTransformer``: the ``pt.Transformer`` subclass (imports PyTerrier on first access)."""
    if name == "RankerTransformer":
        return _transformer_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
