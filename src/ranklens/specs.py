"""The one registry of model specs: ``"kind[:arg]"`` strings -> rankers and embedders.

Every door (CLI ``--model``, experiment ``[models.NAME] spec``, the demo, Python's
:func:`make_ranker` / :func:`make_embedder`) resolves specs here, so a spec valid at one door is
valid at all of them. Each entry says which roles it can play (ranker, embedder), whether it
needs corpus statistics (fitted on the collection's texts by the driver: BM25, TF-IDF,
corpus-trained word vectors), and whether it needs an argument. Composite specs (``maxp:SPEC``)
build their inner spec here too. :func:`check_spec` validates a spec without loading anything
(``ranklens run --check``).

The registry sits above the models: it imports the classes of :mod:`ranklens.rankers` and
:mod:`ranklens.embedders`, which never import it. The second half of the module builds an
analysis's models from its ``models`` table (:func:`build_models`, :func:`runs_for_models`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ValidationError

__all__ = ["SPECS", "ModelSpec", "bm25_from_spec", "build_model", "build_models", "check_spec", "collection_texts",
           "corpus_texts", "make_embedder", "make_ranker", "maxp_from_spec", "need_models", "needs_corpus",
           "runs_for_models", "skipped_warnings", "spec_forms", "split_spec"]

Factory = Callable[[str | None, Any, dict[str, Any]], Any]  # (arg, corpus texts or None, params)


@dataclass(frozen=True)
class ModelSpec:
    """One kind of model spec."""

    kind: str
    form: str                          # how it is written, e.g. "st:<name|path>"
    doc: str
    ranker: Factory | None = None
    embedder: Factory | None = None
    needs_corpus: bool = False         # fitted on the collection's texts (corpus statistics)
    needs_arg: bool = False
    aliases: tuple[str, ...] = ()
    args: tuple[str, ...] = ()         # the arguments a spec that needs none accepts (e.g. bm25's presets)


def split_spec(spec: str) -> tuple[str, str | None]:
    """``"kind:arg"`` -> (``"kind"``, ``"arg"``); ``"kind"`` -> (``"kind"``, ``None``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValidationError(f"model spec must be a non-empty string, got {spec!r}")
    kind, sep, arg = spec.strip().partition(":")
    return kind.lower(), (arg if sep else None)


def corpus_texts(corpus: Any) -> list[str]:
    """Texts of a corpus given as a DocStore/mapping (values, in order) or a sequence of str."""
    if isinstance(corpus, Mapping):
        if hasattr(corpus, "iter_docs"):
            return [t for _, t in corpus.iter_docs()]
        return [str(v) for v in corpus.values()]
    if isinstance(corpus, str):
        raise ValidationError("corpus must be a DocStore, a mapping or a sequence of texts, not one str")
    return list(corpus)


def _fit(model: Any, corpus: Any) -> Any:
    return model.fit(corpus) if corpus is not None else model


# -- factories (imports are lazy: `ranklens --help` must not import torch) ---------------------

def bm25_from_spec(arg: str | None, params: Mapping[str, Any]) -> Any:
    """An unfitted BM25 ranker for ``bm25[:PRESET]`` (``anserini``, the default, or ``terrier``) with
    ``params`` over the preset's values."""
    from .rankers.bm25 import BM25_PRESETS, BM25Ranker

    return BM25Ranker(**{**BM25_PRESETS[arg or "anserini"], **params})


def _bm25(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    return _fit(bm25_from_spec(arg, params), corpus)


def _bm25_index(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .rankers.bm25 import load_index

    if params:
        raise ValidationError(f"bm25-index:{arg}: the saved index fixes the BM25 parameters; got {sorted(params)} "
                              "(rebuild it with build_index(texts, DIR, ranker=BM25Ranker(...)))")
    return load_index(str(arg))


def _tfidf_ranker(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .rankers.tfidf import TfidfRanker

    return _fit(TfidfRanker(**params), corpus)


def _tfidf_embedder(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .embedders.tfidf import TfidfEmbedder

    return _fit(TfidfEmbedder(**params), corpus)


def _st_ranker(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .rankers.biencoder import BiEncoderRanker

    return BiEncoderRanker(model=arg, **params)


def _st_embedder(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .embedders.sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(model=arg, **params)


def _cross_encoder(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .rankers.cross_encoder import CrossEncoderRanker

    return CrossEncoderRanker(model=arg, **params)


def _monot5(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .rankers.monot5 import MonoT5Ranker

    return MonoT5Ranker(model=arg, **params)


def _hf(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .embedders.hf import POOLINGS, HFPoolingEmbedder

    target = str(arg)
    path, sep, pooling = target.rpartition(":")
    if sep and pooling in POOLINGS:
        params = {"pooling": pooling, **params}
        target = path
    return HFPoolingEmbedder(model=target, **params)


def _callable_role(fn: Any, arg: str | None, role: str) -> Any:
    """``fn`` when its signature fits ``role`` (a ranker takes two positional arguments, an
    embedder one); else a ValidationError, so a spec that fits either role is never tried as the
    wrong one and fails later with a TypeError."""
    from .rankers.callables import positional_arity

    n, want = positional_arity(getattr(fn, "__wrapped__", fn)), {"ranker": 2, "embedder": 1}[role]
    if n is not None and n != want:
        other = {2: "a ranker fn(queries, texts)", 1: "an embedder fn(texts)"}.get(n, f"{n} positional arguments")
        raise ValidationError(f"callable:{arg}: takes {n} positional argument(s), so it is {other}, not "
                              f"{'a ranker' if role == 'ranker' else 'an embedder'}")
    return fn


def _callable_ranker(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .rankers.base import FunctionRanker
    from .rankers.callables import load_callable

    return FunctionRanker(fn=_callable_role(load_callable(str(arg)), arg, "ranker"), name_=str(arg), **params)


def _callable_pair_ranker(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .rankers.base import FunctionRanker
    from .rankers.callables import load_callable

    return FunctionRanker(fn=load_callable(str(arg)), name_=str(arg), **{"pairwise": True, **params})


def _dt5q(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .rankers.doc2query import DT5QRanker

    return _fit(DT5QRanker(model_path=str(arg), **params), corpus)


def maxp_from_spec(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    """Factory of the ``maxp:SPEC[:N]`` model spec: MaxP (:func:`ranklens.rankers.passages.maxp`)
    of the ranker ``SPEC`` over chunks of ``N`` sentences (default 3), e.g. ``maxp:bm25``,
    ``maxp:minilm:3``, ``maxp:st:PATH:3``; ``corpus`` and ``params`` go to ``SPEC``."""
    from .rankers.passages import maxp

    if not arg:
        raise ValidationError("model spec 'maxp' needs the base ranker: maxp:SPEC[:N], e.g. maxp:bm25:3")
    inner, sep, last = arg.rpartition(":")
    if sep and last.isdigit():
        spec, size = inner, int(last)
    else:
        spec, size = arg, 3
    if size < 1:
        raise ValidationError(f"maxp:{arg}: the chunk size N must be >= 1 sentences")
    return maxp(build_model(spec, "ranker", corpus=corpus, **params), size)


def _callable_embedder(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .embedders.base import FunctionEmbedder
    from .rankers.callables import load_callable

    return FunctionEmbedder(fn=_callable_role(load_callable(str(arg)), arg, "embedder"), name_=str(arg), **params)


def _wordvec(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
    from .embedders.wordvectors import WordVectorFileEmbedder

    return WordVectorFileEmbedder(path=str(arg), **params)


def _trained(method: str, subwords: bool | None = None) -> Factory:
    def make(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
        from .embedders.wordvectors import TrainedWordVectorEmbedder

        if corpus is None:
            raise ValidationError(f"{method} vectors are trained on the collection: give corpus=texts")
        kw = {"method": method, **({"subwords": subwords} if subwords is not None else {}), **params}
        return TrainedWordVectorEmbedder(corpus=tuple(corpus), **kw)

    return make


SPECS: tuple[ModelSpec, ...] = (
    ModelSpec("bm25", "bm25[:anserini|terrier]", "BM25 fitted on the collection: anserini (default: k1 0.9, b 0.4, "
              "Robertson idf, bm25s) or terrier (Terrier's BM25: k1 1.2, b 0.75, log2 idf; ABNIRML's)",
              ranker=_bm25, needs_corpus=True, args=("anserini", "terrier")),
    ModelSpec("bm25-index", "bm25-index:<dir>", "BM25 over a saved, memory-mapped bm25s index "
              "(ranklens.rankers.bm25.build_index: corpus scale)", ranker=_bm25_index, needs_arg=True),
    ModelSpec("tfidf", "tfidf", "tf-idf vectors / cosine ranker, fitted on the collection",
              ranker=_tfidf_ranker, embedder=_tfidf_embedder, needs_corpus=True),
    ModelSpec("minilm", "minilm", "sentence-transformers/all-MiniLM-L6-v2 (offline package; "
              "params precision=, backend=torch|onnx|onnx-int8)",
              ranker=lambda a, c, p: _st_ranker(None, c, p), embedder=lambda a, c, p: _st_embedder(None, c, p)),
    ModelSpec("st", "st:<name|path>", "any sentence-transformers model", ranker=_st_ranker, embedder=_st_embedder,
              needs_arg=True, aliases=("sentence-transformers", "biencoder")),
    ModelSpec("cross-encoder", "cross-encoder:<path>", "a cross-encoder re-ranker (params precision=, "
              "backend=torch|onnx|onnx-int8)", ranker=_cross_encoder,
              needs_arg=True, aliases=("crossencoder", "ce")),
    ModelSpec("monot5", "monot5:<path>", "a monoT5 re-ranker", ranker=_monot5, needs_arg=True),
    ModelSpec("hf", "hf:<path>[:cls|mean|last]", "a Hugging Face encoder with pooling", embedder=_hf,
              needs_arg=True),
    ModelSpec("callable", "callable:<module>:<func>[@VERSION]", "a Python function: ranker fn(queries: list[str], "
              "texts: list[str]) -> one score per pair; embedder fn(texts: list[str]) -> (n, d) array",
              ranker=_callable_ranker, embedder=_callable_embedder, needs_arg=True),
    ModelSpec("dt5q", "dt5q:<seq2seq model dir>", "BM25 over doc2query-expanded texts (4 queries each; ABNIRML's "
              "DT5Q)", ranker=_dt5q, needs_corpus=True, needs_arg=True),
    ModelSpec("callable-pair", "callable-pair:<module>:<func>[@VERSION]", "a Python function fn(query: str, "
              "text: str) -> float, called once per pair", ranker=_callable_pair_ranker, needs_arg=True,
              aliases=("pairwise",)),
    ModelSpec("maxp", "maxp:<SPEC>[:N]", "MaxP of any ranker spec over fixed N-sentence chunks (default 3; the "
              "explanation-consistency paper's document ranker), e.g. maxp:bm25:3; the collection goes to SPEC",
              ranker=maxp_from_spec, needs_arg=True, needs_corpus=True),
    ModelSpec("wordvec", "wordvec:<path>", "pretrained static word vectors (word2vec/GloVe/fastText file)",
              embedder=_wordvec, needs_arg=True),
    ModelSpec("word2vec", "word2vec", "word2vec vectors trained on the collection (gensim)",
              embedder=_trained("word2vec"), needs_corpus=True),
    ModelSpec("fasttext", "fasttext", "fastText vectors with subwords trained on the collection (gensim)",
              embedder=_trained("fasttext", True), needs_corpus=True),
    ModelSpec("fasttext-nosub", "fasttext-nosub", "fastText vectors without subwords trained on the collection",
              embedder=_trained("fasttext", False), needs_corpus=True),
)

OBJECTS: dict[str, Any] = {}  # "object:<name>#<fingerprint>" -> ranklens.objects.ModelObject, per call


def _object(role: str) -> Factory:
    def make(arg: str | None, corpus: Any, params: dict[str, Any]) -> Any:
        mo = OBJECTS.get(f"object:{arg}")
        if mo is None:
            raise ValidationError(f"model spec 'object:{arg}': no such object in this call; give the object itself "
                                  f"to drive.run_analysis or an rl.* function (object specs are made there)")
        built = getattr(mo, role)
        if built is None:
            raise ValidationError(f"model {mo.name!r} ({mo.kind}) cannot be used as a {role}")
        return built

    return make


SPECS += (ModelSpec("object", "object:<name>#<fingerprint>", "a Python model object given at a Python door "
                    "(made by ranklens.objects; not written by hand)", ranker=_object("ranker"),
                    embedder=_object("embedder"), needs_arg=True),)

_BY_KIND = {name: s for s in SPECS for name in (s.kind, *s.aliases)}


def spec_forms(role: str | None = None) -> list[str]:
    """The written forms of the specs that can play ``role`` ("ranker", "embedder", or any)."""
    return [s.form for s in SPECS if role is None or getattr(s, role) is not None]


def _lookup(spec: str, role: str | None) -> tuple[ModelSpec, str | None]:
    kind, arg = split_spec(spec)
    entry = _BY_KIND.get(kind)
    what = role or "model"
    if entry is None:
        close = difflib.get_close_matches(kind, list(_BY_KIND), n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValidationError(f"unknown {what} spec {spec!r}.{hint} Valid specs: {', '.join(spec_forms(role))}")
    if role is not None and getattr(entry, role) is None:
        raise ValidationError(f"{spec!r} cannot be used as a {role}; {role} specs: {', '.join(spec_forms(role))}")
    if entry.needs_arg and not arg:
        raise ValidationError(f"model spec {spec!r} needs an argument, e.g. {entry.form!r}")
    if not entry.needs_arg and arg is not None and arg not in entry.args:
        takes = f"one of {', '.join(entry.args)}" if entry.args else "none"
        raise ValidationError(f"model spec {spec!r}: unknown argument {arg!r} for {entry.kind!r} (it takes {takes}); "
                              f"write {entry.form!r}")
    return entry, arg


def check_spec(spec: str, role: str | None = None) -> list[str]:
    """Problems with a spec (unknown kind, wrong role, missing argument, missing path), without
    loading any model."""
    from pathlib import Path

    try:
        entry, arg = _lookup(spec, role)
    except ValidationError as exc:
        return [str(exc)]
    if entry.kind == "maxp" and arg:  # the inner spec, as maxp_from_spec reads it
        inner, sep, last = arg.rpartition(":")
        return check_spec(inner if sep and last.isdigit() else arg, "ranker")
    if entry.kind in ("wordvec", "bm25-index") and arg and not Path(arg).exists():
        return [f"{spec!r}: {arg} does not exist"]
    missing = _missing_model_path(entry, arg)
    if missing:
        return [f"{spec!r}: model path {missing} not found"]
    return []


def _missing_model_path(entry: ModelSpec, arg: str | None) -> str | None:
    """The local path a neural spec names when it does not exist (hub names are not checked)."""
    from ._models import missing_local_path

    if entry.kind not in ("st", "cross-encoder", "monot5", "hf") or not arg:
        return None
    head, sep, pooling = arg.rpartition(":")
    return missing_local_path(head if entry.kind == "hf" and sep and pooling in ("cls", "mean", "last") else arg)


def needs_corpus(spec: str) -> bool:
    """Whether a spec is fitted on the collection's texts."""
    return _lookup(spec, None)[0].needs_corpus


def build_model(spec: str, role: str, *, corpus: Any = None, **params: Any) -> Any:
    """A ranker or embedder (``role``) from a spec; ``corpus`` (texts) fits corpus statistics
    for the specs that need them and is ignored by the others."""
    entry, arg = _lookup(spec, role)
    missing = _missing_model_path(entry, arg)
    if missing:  # a hard error, not a skipped model: a mistyped path must not pass unnoticed
        from ._models import model_load_error

        raise model_load_error(spec, missing, "not found")
    texts = corpus_texts(corpus) if (corpus is not None and entry.needs_corpus) else None
    return getattr(entry, role)(arg, texts, dict(params))


def make_ranker(spec: str, *, corpus: Any = None, **params: Any) -> Any:
    """Build a ranker from a spec string.

    Args:
        spec: e.g. ``"bm25"``, ``"st:sentence-transformers/all-MiniLM-L6-v2"``,
            ``"cross-encoder:/models/ce"``, ``"callable:mypkg.scoring:score"``, ``"maxp:bm25:3"``
            (:func:`spec_forms` ``("ranker")`` lists them all).
        corpus: texts (DocStore, mapping or sequence) to fit corpus statistics for the specs
            that need them (``bm25``, ``tfidf``, ``dt5q``); ignored by the other kinds. Without it
            those come back unfitted.
        **params: constructor parameters of the class (e.g. ``k1=1.2``, ``precision="bf16"``).

    Raises:
        ValidationError: unknown spec (with the valid ones and a did-you-mean) or missing argument.
    """
    return build_model(spec, "ranker", corpus=corpus, **params)


def make_embedder(spec: str, *, corpus: Any = None, **params: Any) -> Any:
    """Build an embedder from a spec string.

    Args:
        spec: e.g. ``"minilm"``, ``"st:/models/e5"``, ``"hf:/models/bert:cls"``, ``"tfidf"``,
            ``"wordvec:/vectors.txt"`` (:func:`spec_forms` ``("embedder")`` lists them all).
        corpus: texts to fit ``tfidf`` on and to train ``word2vec``/``fasttext`` on (ignored
            by the other kinds; those two kinds need it).
        **params: constructor parameters (e.g. ``precision="bf16"``, ``dim=128``, ``stem=True``,
            ``case="lower"``, ``vector_size=300``).

    Raises:
        ValidationError: unknown spec (with the valid ones and a did-you-mean), a spec that is
            not an embedder, a missing argument, or a corpus-trained kind without ``corpus``.
    """
    return build_model(spec, "embedder", corpus=corpus, **params)


# --------------------------------------------------------------------------- building an analysis's models

def collection_texts(collection: Any) -> list[str]:
    """The document texts of a collection, in store order (the corpus of corpus-statistics models)."""
    return [t for _, t in collection.docs.iter_docs()]


def build_models(models: Mapping[str, Mapping[str, Any]], factory: Any, corpus: Any,
                 ) -> tuple[dict[str, Any], dict[str, str]]:
    """``{name: factory(spec, corpus=..., **params)}`` for the models the factory accepts, and
    ``{name: why}`` for those it rejects (a ranker-only spec given to an embedder analysis)."""
    built, skipped = {}, {}
    for name, m in models.items():
        try:
            built[name] = factory(m["spec"], corpus=corpus, **dict(m.get("params") or {}))
        except ValidationError as exc:
            skipped[name] = str(exc)
    return built, skipped


def need_models(what: str, built: Mapping[str, Any], n: int, skipped: Mapping[str, str]) -> None:
    if len(built) < n:
        why = "; ".join(f"{k}: {v}" for k, v in skipped.items()) or "no models given"
        raise ValidationError(f"{what} needs at least {n} usable model(s), got {len(built)} ({why})")


def skipped_warnings(skipped: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(f"model {k} skipped: {v}" for k, v in skipped.items())


def runs_for_models(collection: Any, models: Mapping[str, Mapping[str, Any]], k: int, engine: Any,
                    ) -> tuple[dict[str, Any], dict[str, str]]:
    """Top-``k`` run per model: embedders and first-stage rankers retrieve; other rankers
    re-rank BM25's top ``k``."""
    from .rankers.bm25 import BM25Ranker
    from .rankers.retrieval import rerank, retrieve

    texts = collection_texts(collection)
    runs: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    first_stage = None
    for name, m in models.items():
        spec, params = m["spec"], dict(m.get("params") or {})
        if split_spec(spec)[0] == "bm25":
            _lookup(spec, "ranker")  # an unknown preset is an error here too
            runs[name] = retrieve(bm25_from_spec(split_spec(spec)[1], params), collection.queries, collection.docs, k=k, engine=engine)
            continue
        try:
            model = make_embedder(spec, corpus=texts, **params)
        except ValidationError:
            try:
                ranker = make_ranker(spec, corpus=texts, **params)
            except ValidationError as exc:
                skipped[name] = str(exc)
                continue
            if first_stage is None:
                first_stage = retrieve(BM25Ranker(), collection.queries, collection.docs, k=k, engine=engine)
            runs[name] = rerank(ranker, first_stage, collection.queries, collection.docs, k=k, engine=engine)
            continue
        runs[name] = retrieve(model, collection.queries, collection.docs, k=k, engine=engine)
    return runs, skipped
