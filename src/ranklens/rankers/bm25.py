"""BM25 fitted on a corpus that scores ANY (query, text) pair, plus bm25s-backed top-k retrieval.

Two paths share one set of corpus statistics (vocabulary, document frequencies, idf, avgdl):

* :meth:`BM25Ranker.score` is a pairwise scorer, vectorised with :mod:`scipy.sparse` over the
  batch. It scores texts that are not in the corpus (manipulated documents, passages): their
  term frequencies and length come from the text itself, idf and avgdl from the fitted corpus.
  No library scores arbitrary texts against fitted statistics (bm25s and rank_bm25 only score
  the indexed documents), so this scorer is hand-written; it replicates bm25s' formulas
  (``bm25s.scoring``) term by term and a test checks it against ``bm25s.BM25.get_scores``.
* :meth:`BM25Ranker.retrieve_topk` uses :mod:`bm25s` (eager sparse index) for fast top-k over
  the fitted corpus itself (100k+ documents).
* At corpus scale (millions of documents), :func:`build_index` streams the texts once (they are
  never held: only their token ids, until bm25s has indexed them) and saves the bm25s index with
  the statistics pairwise scoring needs; :func:`load_index` gives back a fitted ranker whose
  index is memory-mapped (spec ``bm25-index:DIR``). Its scores and fingerprint equal those of a
  ranker fitted on the same texts.

Conventions (identical to bm25s): a query term counts once per occurrence in the query; terms
unknown to the corpus get idf 0 (they cannot match any corpus document, so they add nothing);
the Robertson idf is clipped at 0 (``log((N - df + .5) / (df + .5))`` never negative); a
document's length is its number of tokens after stopword removal.

Method ``"terrier"`` is Terrier's weighting model ``BM25`` (``org.terrier.matching.models.BM25``),
not a bm25s variant: per distinct query term, ``log2((N - df + .5) / (df + .5))`` (not clipped:
negative for terms in more than half the documents) times ``(k1 + 1) tf / (k1 (1 - b + b dl / avgdl)
+ tf)`` times ``(k3 + 1) qtf / (k3 + qtf)`` with Terrier's ``k3 = 8``; its defaults are k1 1.2,
b 0.75 (preset ``bm25:terrier``, :data:`BM25_PRESETS`). Its top-k retrieval scores the corpus with
the same float64 weights (bm25s has no such variant).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from .._hashing import sha256_json, sha256_texts
from ..errors import DataFormatError, OutputError, ValidationError
from ..files import atomic_output
from .base import BaseRanker, component_fingerprint

__all__ = ["BM25Ranker", "BM25_METHODS", "BM25_PRESETS", "ALL_METHODS", "build_index", "describe_bm25",
           "load_index"]

BM25_METHODS = ("robertson", "lucene", "atire", "bm25l", "bm25+")  # the bm25s variants
ALL_METHODS = (*BM25_METHODS, "terrier")
TERRIER_K3 = 8.0  # Terrier's BM25 query-term-frequency constant k_3
#: named parameter sets of the ``bm25:PRESET`` spec (``bm25`` alone is ``anserini``)
BM25_PRESETS: dict[str, dict[str, Any]] = {
    "anserini": {"k1": 0.9, "b": 0.4, "method": "robertson"},  # Anserini's defaults (ranklens's default)
    "terrier": {"k1": 1.2, "b": 0.75, "method": "terrier"},  # Terrier's BM25 with its defaults (ABNIRML)
}
_TOKEN_CACHE_SIZE = 200_000  # analysed texts kept per fitted ranker


def describe_bm25(r: Any) -> dict[str, Any]:
    """Which BM25 a ranker is: ``{"preset": "terrier" | "anserini" | "custom", "k1", "b", "method"}``
    (a preset when k1, b and the method are the preset's)."""
    own = {"k1": float(r.k1), "b": float(r.b), "method": str(r.method)}
    preset = next((name for name, v in BM25_PRESETS.items()
                   if all(own[k] == v[k] for k in ("k1", "b", "method"))), "custom")
    return {"preset": preset, **own}


def _idf(method: str, df: npt.NDArray[np.float64], n: int) -> npt.NDArray[np.float64]:
    """Vector idf, same formulas as ``bm25s.scoring._score_idf_*``."""
    df = np.asarray(df, dtype=np.float64)
    with np.errstate(divide="ignore"):
        if method == "robertson":
            inner = (n - df + 0.5) / (df + 0.5)
            out = np.log(np.maximum(inner, 1.0))
        elif method == "lucene":
            out = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
        elif method == "atire":
            out = np.log(n / df)
        elif method == "terrier":  # Terrier's WeightingModelLibrary.log is base 2; no clipping
            out = np.log2((n - df + 0.5) / (df + 0.5))
        elif method == "bm25l":
            out = np.log((n + 1.0) / (df + 0.5))
        else:  # bm25+
            out = np.log((n + 1.0) / df)
    out[df == 0] = 0.0
    return out


def _tfc(method: str, tf: Any, dl: Any, avgdl: float, k1: float, b: float, delta: float) -> Any:
    """Term-frequency component, same formulas as ``bm25s.scoring._score_tfc_*``."""
    norm = 1.0 - b + b * dl / avgdl
    if method in ("robertson", "lucene"):
        return tf / (k1 * norm + tf)
    if method in ("atire", "terrier"):
        return tf * (k1 + 1.0) / (tf + k1 * norm)
    if method == "bm25l":
        c = tf / norm
        return (k1 + 1.0) * (c + delta) / (k1 + c + delta)
    return (k1 + 1.0) * tf / (k1 * norm + tf) + delta  # bm25+


@dataclass(frozen=True)
class BM25Stats:
    """Fitted corpus statistics (read-only after :meth:`BM25Ranker.fit`)."""

    vocab: dict[str, int]
    df: npt.NDArray[np.int64]
    idf: npt.NDArray[np.float64]
    nonocc: npt.NDArray[np.float64] | None  # bm25l/bm25+ only, as bm25s computes it
    n_docs: int
    avgdl: float
    digest: str  # sha256 over (n_docs, avgdl, vocabulary with dfs)
    corpus_digest: str  # sha256 of the corpus texts in order (which corpus retrieval runs over)
    doc_ids: tuple[tuple[int, ...], ...] = field(repr=False)  # token ids per corpus document


@dataclass(kw_only=True)
class BM25Ranker(BaseRanker):
    """Okapi BM25 with corpus statistics; scores any text (see the module docstring).

    Args:
        k1: term-frequency saturation.
        b: length normalisation.
        method: BM25 variant, one of ``"robertson"`` (default), ``"lucene"``, ``"atire"``,
            ``"bm25l"``, ``"bm25+"`` (the Kamphuis et al. 2020 variants as bm25s implements them),
            or ``"terrier"`` (Terrier's weighting model BM25, see the module docstring).
        delta: the BM25L/BM25+ delta (ignored by the other variants).
        stem: Porter-stem tokens (PyStemmer, via :mod:`ranklens.text`).
        stopwords: drop scikit-learn's English stopwords.
        batch_size: pairs per engine batch (tokenising dominates; large batches are fine).

    Use :meth:`fit` to get a fitted copy; an unfitted ranker refuses to score.

    Example:
        >>> r = BM25Ranker().fit(["cats purr", "dogs bark", "cats and dogs"])
        >>> float(r.score(["cats"], ["a cat purrs"])[0]) > 0
        True
    """

    k1: float = 0.9
    b: float = 0.4
    method: str = "robertson"
    delta: float = 0.5
    stem: bool = True
    stopwords: bool = True
    batch_size: int = 4096
    _stats: BM25Stats | None = field(default=None, init=False, repr=False, compare=False)
    _bm25s: Any = field(default=None, init=False, repr=False, compare=False)
    _tok_cache: dict[str, tuple[list[int], int]] = field(default_factory=dict, init=False, repr=False,
                                                          compare=False)

    def __post_init__(self) -> None:
        if self.method not in ALL_METHODS:
            raise ValidationError(f"BM25Ranker: method must be one of {ALL_METHODS}, got {self.method!r}")
        if self.k1 < 0 or not 0 <= self.b <= 1:
            raise ValidationError(f"BM25Ranker: need k1 >= 0 and 0 <= b <= 1, got k1={self.k1}, b={self.b}")

    # ------------------------------------------------------------------ identity
    @property
    def fitted(self) -> bool:
        """True once corpus statistics are attached (see :meth:`fit`)."""
        return self._stats is not None

    @property
    def stats(self) -> BM25Stats:
        """The fitted corpus statistics (raises if unfitted)."""
        if self._stats is None:
            raise ValidationError(
                "BM25Ranker is not fitted: call ranker = BM25Ranker(...).fit(corpus_texts) "
                "or make_ranker('bm25', corpus=docs) first"
            )
        return self._stats

    @property
    def fingerprint(self) -> str:
        """Class, parameters and the corpus-statistics digest."""
        digest = self._stats.digest if self._stats is not None else "unfitted"
        return component_fingerprint(self, {"corpus_stats": digest, "precision": "float64"})

    # ------------------------------------------------------------------ tokens
    def analyze(self, text: str) -> list[str]:
        """Tokens as the ranker sees them (lower-cased words, stopwords dropped, stems)."""
        from ..text import STOPWORDS, stem, tokenize

        toks = tokenize(text)
        if self.stopwords:
            toks = [t for t in toks if t not in STOPWORDS]
        if self.stem:  # (Porter stems "s" to "": an empty term would match bm25s's empty-document token)
            toks = [w for w in map(stem, toks) if w]
        return toks

    # ------------------------------------------------------------------ fit
    def fit(self, corpus_texts: Iterable[str]) -> BM25Ranker:
        """Return a fitted copy (this ranker is left unchanged) with idf, avgdl and dfs of
        ``corpus_texts``."""
        vocab, doc_ids, digest = self._tokenize_corpus(corpus_texts, "BM25Ranker.fit")
        new = dataclasses.replace(self)
        new._stats = self._statistics(vocab, doc_ids, digest, keep_ids=True)
        return new

    def _tokenize_corpus(self, texts: Iterable[str], who: str) -> tuple[dict[str, int], list[list[int]], str]:
        """Vocabulary (first-seen ids), token ids per document and the corpus digest, in one pass
        over ``texts`` (which may be a generator: the texts themselves are not kept)."""
        vocab: dict[str, int] = {}
        doc_ids: list[list[int]] = []

        def each() -> Iterable[str]:
            for i, t in enumerate(texts):
                if not isinstance(t, str):
                    raise ValidationError(f"{who}: corpus text {i} must be str, got {type(t).__name__}")
                doc_ids.append([vocab.setdefault(tok, len(vocab)) for tok in self.analyze(t)])
                yield t

        digest = sha256_texts(each())
        if not doc_ids:
            raise ValidationError(f"{who}: the corpus is empty")
        return vocab, doc_ids, digest

    def _statistics(self, vocab: dict[str, int], doc_ids: list[list[int]], corpus_digest: str, *,
                    keep_ids: bool) -> BM25Stats:
        n = len(doc_ids)
        df = np.zeros(len(vocab), dtype=np.int64)
        lengths = np.fromiter((len(d) for d in doc_ids), dtype=np.float64, count=n)
        for d in doc_ids:
            if d:
                df[np.unique(np.asarray(d, dtype=np.int64))] += 1
        avgdl = float(lengths.mean())
        if avgdl == 0:
            raise ValidationError("BM25Ranker.fit: no corpus text has a single (non-stopword) token")
        return self._stats_from(vocab, df, n, avgdl, corpus_digest,
                                tuple(map(tuple, doc_ids)) if keep_ids else ())

    def _stats_from(self, vocab: dict[str, int], df: npt.NDArray[np.int64], n: int, avgdl: float,
                    corpus_digest: str, doc_ids: tuple[tuple[int, ...], ...]) -> BM25Stats:
        idf = _idf(self.method, df, n)
        nonocc = None
        if self.method in ("bm25l", "bm25+"):
            # bm25s evaluates the tf=0 component at l_d = avgdl (not the document's length).
            nonocc = idf * _tfc(self.method, 0.0, avgdl, avgdl, self.k1, self.b, self.delta)
        terms = sorted(vocab)
        digest = sha256_json({"n": n, "avgdl": repr(avgdl), "terms": terms,
                              "df": df[[vocab[t] for t in terms]].tolist()})
        return BM25Stats(vocab=vocab, df=df, idf=idf, nonocc=nonocc, n_docs=n, avgdl=avgdl,
                         digest=digest, corpus_digest=corpus_digest, doc_ids=doc_ids)

    # ------------------------------------------------------------------ pairwise scoring
    def _ids(self, text: str, vocab: dict[str, int]) -> tuple[list[int], int]:
        """Known-term ids and token count of ``text``, memoised per fitted ranker (bounded):
        tokenising dominates pairwise scoring and the same texts recur across queries."""
        cache = self._tok_cache
        hit = cache.get(text)
        if hit is None:
            toks = self.analyze(text)
            hit = ([vocab[w] for w in toks if w in vocab], len(toks))
            if len(cache) >= _TOKEN_CACHE_SIZE:
                cache.clear()
            cache[text] = hit
        return hit

    def _counts(self, texts: Sequence[str], vocab: dict[str, int]) -> tuple[sp.csr_matrix, npt.NDArray[np.float64]]:
        """Term counts (n x |V|, known terms only) and token lengths (all tokens) of ``texts``."""
        indptr = [0]
        indices: list[int] = []
        lengths = np.empty(len(texts), dtype=np.float64)
        for i, t in enumerate(texts):
            ids, length = self._ids(t, vocab)
            lengths[i] = length
            indices.extend(ids)
            indptr.append(len(indices))
        data = np.ones(len(indices), dtype=np.float64)
        m = sp.csr_matrix((data, np.asarray(indices, dtype=np.int64), np.asarray(indptr)),
                          shape=(len(texts), len(vocab)))
        m.sum_duplicates()  # repeated tokens -> counts
        return m, lengths

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        st = self.stats
        qm, _ = self._counts(queries, st.vocab)
        if self.method == "terrier":  # Terrier weighs a distinct query term by (k3 + 1) qtf / (k3 + qtf)
            qm.data = (TERRIER_K3 + 1.0) * qm.data / (TERRIER_K3 + qm.data)
        tm, dl = self._counts(texts, st.vocab)
        w = tm.tocoo()
        tfc = _tfc(self.method, w.data, dl[w.row], st.avgdl, self.k1, self.b, self.delta)
        vals = st.idf[w.col] * tfc
        if st.nonocc is not None:
            vals = vals - st.nonocc[w.col]
        weights = sp.csr_matrix((vals, (w.row, w.col)), shape=tm.shape)
        out = np.asarray(qm.multiply(weights).sum(axis=1), dtype=np.float64).ravel()
        if st.nonocc is not None:
            out += np.asarray(qm @ st.nonocc, dtype=np.float64).ravel()
        return out

    # ------------------------------------------------------------------ retrieval (bm25s)
    def _index(self) -> Any:
        if self._bm25s is None:  # (an index from load_index is already set)
            import bm25s

            st = self.stats
            index = bm25s.BM25(k1=self.k1, b=self.b, delta=self.delta, method=self.method,
                               dtype="float32")
            index.index((list(map(list, st.doc_ids)), dict(st.vocab)), show_progress=False)
            self._bm25s = index
        return self._bm25s

    def retrieve_topk(self, queries: Sequence[str], k: int = 1000) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Top-``k`` corpus positions and bm25s (float32) scores per query, best first.

        Returns arrays of shape ``(len(queries), min(k, n_docs))``. Queries without a known term
        get all-zero scores (their candidates are arbitrary).
        """
        st = self.stats
        if self.method == "terrier":
            return self._retrieve_exact(queries, k)
        index = self._index()
        k = min(int(k), st.n_docs)
        out_idx = np.empty((len(queries), k), dtype=np.int64)
        out_sc = np.empty((len(queries), k), dtype=np.float32)
        for i, q in enumerate(queries):
            ids = [st.vocab[t] for t in self.analyze(q) if t in st.vocab]
            if ids:
                scores = index.get_scores_from_ids(ids)
            else:
                scores = np.zeros(st.n_docs, dtype=np.float32)
            # argpartition then a stable sort of the k best: exact top-k, deterministic order
            part = np.argpartition(-scores, k - 1)[:k] if k < st.n_docs else np.arange(st.n_docs)
            order = part[np.lexsort((part, -scores[part]))]
            out_idx[i] = order
            out_sc[i] = scores[order]
        return out_idx, out_sc

    def _retrieve_exact(self, queries: Sequence[str], k: int) -> tuple[npt.NDArray[np.int64],
                                                                         npt.NDArray[np.float32]]:
        """Top-k by the pairwise formulas over the whole corpus (the methods bm25s lacks)."""
        st = self.stats
        k = min(int(k), st.n_docs)
        everyone = np.arange(st.n_docs)
        out_idx = np.empty((len(queries), k), dtype=np.int64)
        out_sc = np.empty((len(queries), k), dtype=np.float32)
        for i, q in enumerate(queries):
            scores = exact_corpus_scores(self, q, everyone)
            order = np.lexsort((everyone, -scores))[:k]
            out_idx[i] = order
            out_sc[i] = scores[order]
        return out_idx, out_sc


def _corpus_weights(r: BM25Ranker) -> sp.csr_matrix:
    """float64 (n_docs x |V|) matrix of per-term BM25 contributions of the fitted corpus, with the
    exact formulas of :meth:`BM25Ranker._score_batch` (so ``W[d] @ q`` equals the pairwise score)."""
    st = r.stats
    lengths = np.fromiter((len(d) for d in st.doc_ids), dtype=np.int64, count=st.n_docs)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    cols = np.fromiter((t for d in st.doc_ids for t in d), dtype=np.int64, count=int(indptr[-1]))
    counts = sp.csr_matrix((np.ones(len(cols)), cols, indptr), shape=(st.n_docs, len(st.vocab)))
    counts.sum_duplicates()
    w = counts.tocoo()
    vals = st.idf[w.col] * _tfc(r.method, w.data, lengths[w.row].astype(np.float64), st.avgdl,
                                r.k1, r.b, r.delta)
    if st.nonocc is not None:
        vals = vals - st.nonocc[w.col]
    return sp.csr_matrix((vals, (w.row, w.col)), shape=counts.shape)


def exact_corpus_scores(r: BM25Ranker, query: str, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """float64 BM25 scores of corpus documents at ``positions`` for ``query``; equal to
    ``r.score([query] * n, texts)`` without re-tokenising the documents (a ranker from
    :func:`load_index` keeps no token ids: score the texts instead)."""
    if r.stats.n_docs and not r.stats.doc_ids:
        raise ValidationError("exact_corpus_scores: this BM25Ranker comes from a saved index and keeps no "
                              "token ids; score the candidates' texts with ranker.score(...)")
    if r._loaded is None:
        r._loaded = _corpus_weights(r)
    st = r.stats
    qv = np.zeros(len(st.vocab), dtype=np.float64)
    for t in r.analyze(query):
        j = st.vocab.get(t)
        if j is not None:
            qv[j] += 1.0
    if r.method == "terrier":
        qv = (TERRIER_K3 + 1.0) * qv / (TERRIER_K3 + qv)
    out = np.asarray(r._loaded[positions] @ qv, dtype=np.float64).ravel()
    if st.nonocc is not None:
        out += float(qv @ st.nonocc)
    return out


_INDEX_META = "ranklens-bm25.json"
_INDEX_PARAMS = ("k1", "b", "method", "delta", "stem", "stopwords")


def build_index(texts: Iterable[str], path: str | Path, *, ranker: BM25Ranker | None = None) -> Path:
    """Index a corpus for corpus-scale retrieval and save it to the directory ``path``.

    ``texts`` is read once and may be a generator (documents in retrieval order: positions in
    :meth:`BM25Ranker.retrieve_topk` are positions in it). Memory: the token ids of the corpus
    until bm25s has built its index (about 1.8 GiB for 1M passages of 56 words), never the texts.

    Args:
        texts: the corpus texts.
        path: directory to write (created; bm25s's arrays plus ``ranklens-bm25.json``, ``df.npy``), whole:
            written beside it and renamed into place, replacing an earlier index there (a directory
            holding anything else is refused); a full disk is an ``OutputError`` and leaves no half index.
        ranker: the BM25 parameters and analyzer (default ``BM25Ranker()``).

    Returns:
        ``path``, for :func:`load_index`.
    """
    import bm25s

    r = ranker if ranker is not None else BM25Ranker()
    if r.method not in BM25_METHODS:
        raise ValidationError(f"build_index: method {r.method!r} has no bm25s index; use one of {BM25_METHODS} "
                              "or fit the ranker on the texts (BM25Ranker(...).fit(texts))")
    target = Path(path)
    if target.is_dir() and any(target.iterdir()) and not (target / _INDEX_META).is_file():
        raise OutputError(f"build_index replaces the whole directory, and this one holds other files (no "
                          f"{_INDEX_META}); give a new or empty directory", path=target)
    vocab, doc_ids, digest = r._tokenize_corpus(texts, "build_index")
    st = r._statistics(vocab, doc_ids, digest, keep_ids=False)
    index = bm25s.BM25(k1=r.k1, b=r.b, delta=r.delta, method=r.method, dtype="float32")
    index.index((doc_ids, dict(vocab)), show_progress=False)
    del doc_ids
    out = Path(path)
    meta = {"format": 1, "params": {k: getattr(r, k) for k in _INDEX_PARAMS}, "n_docs": st.n_docs,
            "avgdl": st.avgdl, "corpus_digest": st.corpus_digest}
    # written into a temp folder beside ``out`` and renamed into place: a full disk leaves no half index
    with atomic_output(out, what="BM25 index directory", directory=True) as tmp:
        index.save(str(tmp), show_progress=False)
        np.save(tmp / "df.npy", st.df)
        (tmp / _INDEX_META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return out


def load_index(path: str | Path) -> BM25Ranker:
    """A fitted :class:`BM25Ranker` over an index saved by :func:`build_index`; the bm25s arrays
    are memory-mapped (retrieval reads the pages it needs). Pairwise scoring works as after
    :meth:`BM25Ranker.fit`; exact corpus scores re-score the candidates' texts."""
    import bm25s

    p = Path(path)
    meta_p = p / _INDEX_META
    if not meta_p.is_file():
        raise DataFormatError(f"not a ranklens BM25 index (no {_INDEX_META}); build one with "
                              "ranklens.rankers.bm25.build_index(texts, DIR)", path=p)
    meta = json.loads(meta_p.read_text(encoding="utf-8"))
    if meta.get("format") != 1:
        raise DataFormatError(f"unknown BM25 index format {meta.get('format')!r}; rebuild it with build_index",
                              path=meta_p)
    r = BM25Ranker(**meta["params"])
    index = bm25s.BM25.load(str(p), mmap=True, show_progress=False)
    df = np.load(p / "df.npy")
    # bm25s adds a "" token for empty documents; the analyzer never yields one
    vocab = {str(t): int(i) for t, i in index.vocab_dict.items() if t != "" and int(i) < df.size}
    if len(vocab) != df.size:
        raise DataFormatError(f"the index vocabulary ({len(vocab)} terms) does not match df.npy ({df.size}); "
                              "rebuild it with build_index", path=p)
    r._stats = r._stats_from(vocab, df, int(meta["n_docs"]), float(meta["avgdl"]), str(meta["corpus_digest"]), ())
    r._bm25s = index
    return r
