"""The driver of the ``neighbors`` analysis: corpus, query pool, embedders, vectors, analyses.

Every door (CLI, experiment file, demo, Python) reaches :func:`run` through
``ranklens.drive.run_analysis`` with a :class:`~ranklens.neighbors.declaration.Params` value; the
door stamps the ``Params`` into each result's ``provenance.analysis_params``. What was skipped or
reduced is in the results' warnings.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ValidationError
from .corpus import SentenceCorpus, build_corpus
from .search import NeighborSearch, corpus_vectors, sample_queries

__all__ = ["build_embedders", "neighbor_corpus", "query_pool", "run"]

_NEURAL = ("minilm", "st", "sentence-transformers", "hf")
_TRAINED_VECTORS = ("word2vec", "fasttext", "fasttext-nosub")


def neighbor_corpus(collection: Any, p: Any, seed: int) -> tuple[SentenceCorpus, set[str], list[str]]:
    """The sentence corpus, the ids of the rows that came from sentence files, and notes."""
    from ..io.pairs import read_sentences

    docs: list[tuple[str, str]] = list(collection.docs.iter_docs()) if p.collection_docs else []
    notes = []
    head = build_corpus(docs, split=p.split, min_tokens=p.min_tokens) if docs else None
    if head is not None and p.max_sentences and len(head) > p.max_sentences:
        keep = max(1, len(docs) * p.max_sentences // len(head))  # whole documents, about max_sentences
        pick = np.sort(np.random.default_rng(seed).choice(len(docs), size=keep, replace=False))
        notes.append(f"corpus capped: {keep} of {len(docs)} documents sampled (max_sentences={p.max_sentences})")
        head = build_corpus([docs[i] for i in pick], split=p.split, min_tokens=p.min_tokens)
    extra = [(f"s:{i}", t) for f in p.sentences for i, t in read_sentences(f)]
    if head is None and not extra:
        raise ValidationError("neighbors: the corpus is empty; give a collection with documents (--collection) or "
                              "sentence files, one sentence per line (--sentences FILE; sentences = [...] in an "
                              "experiment file)")
    tail = build_corpus(extra, split=False, min_tokens=p.min_tokens) if extra else None
    corpus = _join(head, tail)
    if corpus.n_duplicates:
        notes.append(f"{corpus.n_duplicates} exact duplicate sentences removed ({len(corpus)} kept)")
    return corpus, {i for i in corpus.ids if i.startswith("s:")}, notes


def _no_collection() -> Any:
    """An empty collection: the corpus is the ``sentences`` files alone."""
    import pandas as pd

    from ..io import Collection, DocStore

    return Collection("sentences", DocStore({}, name="sentences"), pd.DataFrame({"query_id": [], "text": []}, dtype=str))


def _join(a: SentenceCorpus | None, b: SentenceCorpus | None) -> SentenceCorpus:
    if a is None or b is None:
        return a or b  # type: ignore[return-value]
    seen = set(a.texts)
    keep = [i for i, t in enumerate(b.texts) if t not in seen]
    ids = a.ids + tuple(b.ids[i] for i in keep)
    texts = a.texts + tuple(b.texts[i] for i in keep)
    pos = {old: len(a.texts) + new for new, old in enumerate(keep)}
    ledes = a.ledes + tuple(pos[i] for i in b.ledes if i in pos)
    n_input = a.n_input + b.n_input
    return SentenceCorpus(ids, texts, n_input, n_input - len(texts), ledes)


def query_pool(corpus: SentenceCorpus, p: Any, from_files: set[str]) -> tuple[np.ndarray, str]:
    """Corpus rows queries are drawn from, and how they were chosen (for provenance)."""
    from .inputs import read_query_ids

    if p.query_ids is not None:
        ids = read_query_ids(p.query_ids, corpus.ids)
        index = {c: i for i, c in enumerate(corpus.ids)}
        return np.array(sorted(index[i] for i in ids), np.int64), f"the ids in {p.query_ids}"
    if p.queries == "ledes":
        return np.array(sorted(corpus.ledes), np.int64), "document ledes (first sentences)"
    if p.queries == "sentences":
        return np.array([i for i, c in enumerate(corpus.ids) if c in from_files], np.int64), "the sentence files"
    return np.arange(len(corpus)), "every corpus sentence"


def _model_params(spec: str, own: Mapping[str, Any], p: Any) -> dict[str, Any]:
    from ..specs import split_spec

    kind = split_spec(spec)[0]
    base: dict[str, Any] = {}
    if kind == "tfidf":
        base = {"tokenizer": p.tfidf_tokenizer, "idf": p.tfidf_idf, "stem": p.tfidf_stem, "stopwords": p.tfidf_stopwords,
                "max_features": p.tfidf_max_features or None, "sublinear_tf": p.tfidf_sublinear}
    elif kind == "wordvec":
        base = {"case": p.wordvec_case, "tokenizer": p.wordvec_tokenizer}
    elif kind in _TRAINED_VECTORS:
        base = {"tokenizer": p.wordvec_tokenizer}
    elif kind in _NEURAL and p.precision:
        base = {"precision": p.precision}
    return {**base, **dict(own)}


def build_embedders(models: Mapping[str, Mapping[str, Any]], p: Any, texts: list[str]
                    ) -> tuple[dict[str, Any], dict[str, str]]:
    """Embedders of the models (those that are embedders) and of ``p.embedders``, fitted or trained
    on the corpus texts where the spec needs it; ``{name: why}`` for the models skipped."""
    from ..specs import make_embedder

    specs = {name: (m["spec"], m.get("params") or {}) for name, m in models.items()}
    for raw in p.embedders:
        name, sep, spec = raw.partition("=")
        if not sep or ":" in name:
            name, spec = raw, raw
        if name in specs:
            raise ValidationError(f"embedders: the name {name!r} is used twice; use NAME=SPEC")
        specs[name] = (spec, {})
    built, skipped = {}, {}
    for name, (spec, own) in specs.items():
        try:
            built[name] = make_embedder(spec, corpus=texts, **_model_params(spec, own, p))
        except ValidationError as exc:
            skipped[name] = str(exc)
    return built, skipped


def _trained_notes(embedders: Mapping[str, Any], n_texts: int) -> list[str]:
    """The deviation of word vectors trained here: the paper used pretrained ones (Table 1)."""
    from ..embedders.wordvectors import TrainedWordVectorEmbedder

    return [f"model {n}: {e.name} vectors trained on this corpus ({n_texts} sentences, {e.vector_size}-d, "
            f"{e.word_tokenizer} tokens, lower-cased); the paper used pretrained vectors (GoogleNews word2vec, "
            "fastText wiki/Common Crawl): give wordvec:PATH to reproduce it"
            for n, e in embedders.items() if isinstance(e, TrainedWordVectorEmbedder)]


def _not_embedder(spec: str) -> bool:
    """Whether a model spec names no embedder in the registry (a ranker, or unknown)."""
    from ..specs import SPECS, split_spec

    kind = split_spec(spec)[0]
    return not any(kind in (s.kind, *s.aliases) and s.embedder is not None for s in SPECS)


def _fit(p: Any, corpus: SentenceCorpus, pool: np.ndarray) -> tuple[int, int, list[str]]:
    notes = []
    k = min(p.k, len(corpus) - 1)
    if k < p.k:
        notes.append(f"k reduced from {p.k} to {k}: the corpus has {len(corpus)} sentences")
    nq = min(p.n_queries, len(pool))
    if nq < p.n_queries:
        notes.append(f"n_queries reduced from {p.n_queries} to {nq}: the query pool has {len(pool)} sentences")
    if k < 1 or nq < 1:
        raise ValidationError(f"neighbors: corpus of {len(corpus)} sentences and a query pool of {len(pool)}: "
                              "too small for neighbours")
    return k, nq, notes


def run(collection: Any, models: Mapping[str, Mapping[str, Any]], params: Any, *, engine: Any = None,
        seed: int = 0, work_dir: Path | None = None) -> list[Any]:
    """Every requested neighbour analysis of the models' embedders on the collection's sentences, and
    the rankers' top-k overlap: corpus, embedders and vectors once, then every analysis in
    ``params.analyses`` (module docstring)."""
    from .steps import run_steps

    p = params
    if collection is None:  # sentence files alone (`ranklens neighbors --sentences FILE`, no --collection)
        collection = _no_collection()
    corpus, from_files, notes = neighbor_corpus(collection, p, seed)
    pool, pool_name = query_pool(corpus, p, from_files)
    k, nq, more = _fit(p, corpus, pool)
    embedders, skipped = build_embedders(models, p, list(corpus.texts))
    notes += more + _trained_notes(embedders, len(corpus)) + [f"model {n}: not an embedder, used in the rankers' overlap only" if n in models and _not_embedder(models[n]["spec"])
                     else f"model {n} skipped: {why}" for n, why in skipped.items()]
    search = NeighborSearch(backend=p.backend, block_size=p.block_size, M=p.hnsw_m,  # type: ignore[arg-type]
                            ef_construction=p.ef_construction, ef_search=p.ef_search, nlist=p.nlist,
                            nprobe=p.nprobe, n_holdout=p.n_holdout)
    if work_dir is not None:
        Path(work_dir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ranklens-n2o-", dir=work_dir) as tmp:
        vectors = {n: corpus_vectors(e, corpus.texts, engine=engine, work_dir=Path(tmp), unit=True)
                   for n, e in embedders.items()}
        ctx = {"corpus": corpus, "pool": pool, "pool_name": pool_name, "k": k, "n_queries": nq, "search": search,
               "embedders": embedders, "vectors": vectors, "seed": seed, "engine": engine,
               "first_query": int(sample_queries(len(corpus), nq, 1, seed, pool)[0][0])}
        results, skipped_steps = run_steps(ctx, collection, models, p)
        del vectors, ctx
    if not results:
        raise ValidationError("neighbors produced no result: " + "; ".join(skipped_steps + notes))
    return [r.with_warnings(*notes, *skipped_steps) for r in results]
