"""Query-to-query similarity: every test query against the training queries (paper §3).

Three methods share one output shape, ``(indices int64[n_test, k], scores float64[n_test, k])``
(nearest training queries first):

- ``"bm25"``: BM25 with the *training queries as documents* (Lucene idf
  ``log(1 + (N - df + 0.5) / (df + 0.5))``, saturation ``k1``, length normalisation ``b``);
  unbounded scores, asymmetric.
- ``"tfidf"``: cosine of L2-normalised TF-IDF vectors (sklearn), in [0, 1].
- an :class:`~ranklens.embedders.base.Embedder` (or an embedder spec such as ``"minilm"``, the
  analysis's default): cosine of its vectors, computed through :func:`ranklens.engine.encode_texts`,
  searched by :func:`ranklens.search.exact_knn` (default) or FAISS ``IndexFlatIP``
  (:func:`ranklens.search.faiss_knn`).

Every method ranks with the one tie rule of :mod:`ranklens.search` (similarity descending, ties to
the lower training index; for embedder vectors near ties of the float32 products are settled in
float64, so identical training vectors always tie). A test query with no similarity to any training
query (a zero vector, or no shared term) lists the first ``k`` training queries with score 0.

Term vectors use :func:`analyze` (:func:`ranklens.text.content_terms`, with every token kept
when the stop list would empty a text), so BM25 and TF-IDF see the same terms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..errors import ValidationError
from ..search.faiss import faiss_knn
from ..search.knn import exact_knn, top_k_rows
from ..search.rows import UnitRows
from .declaration import Params

__all__ = [
    "similarity_method",
    "PlaneVectors",
    "analyze",
    "bm25_matrix",
    "embed_queries",
    "frame_digest",
    "nearest_queries",
    "query_similarity",
    "similarity_name",
    "tfidf_vectors",
]

DEFAULTS = Params()  # kernel defaults are the declared ones

def analyze(text: str) -> list[str]:
    """Terms of a text: :func:`ranklens.text.content_terms` (word tokens, scikit-learn's English
    stop words removed, Porter stems) -- or, when the stop list would leave no term at all
    (sklearn's list holds "describe", "fire", "system", "bill", ...), every word token stemmed,
    so that no query is emptied.

    >>> analyze("The cats were running")
    ['cat', 'run']
    >>> analyze("describe the fire system bill")
    ['describ', 'the', 'fire', 'system', 'bill']
    """
    from ..text import content_terms, stem_tokens, tokenize

    terms = content_terms(text)
    return terms if terms else stem_tokens(tokenize(text))


def _counts(train_texts: Sequence[str], other_texts: Sequence[str] | None = None):
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(analyzer=analyze)
    x_train = vec.fit_transform(list(train_texts)).tocsr().astype(np.float64)
    x_other = vec.transform(list(other_texts)).tocsr().astype(np.float64) if other_texts is not None else None
    return x_train, x_other


def bm25_matrix(
    test_texts: Sequence[str], train_texts: Sequence[str], *, k1: float = 0.9, b: float = 0.4
) -> Any:
    """Sparse ``(n_test, n_train)`` BM25 scores of each test text against each training text.

    The training texts are the "documents" (their statistics define idf and average length);
    test texts are bags of query terms (repeated terms count repeatedly, as in Lucene).

    Returns:
        scipy.sparse CSR matrix of float64.
    """
    if k1 < 0 or not 0 <= b <= 1:
        raise ValidationError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
    x_train, x_test = _counts(train_texts, test_texts)
    n = x_train.shape[0]
    df = np.bincount(x_train.indices, minlength=x_train.shape[1])
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    lengths = np.asarray(x_train.sum(axis=1)).ravel()
    avg = lengths.mean() if n and lengths.mean() > 0 else 1.0
    w = x_train.copy()
    row_of = np.repeat(np.arange(n), np.diff(w.indptr))
    tf = w.data
    denom = tf + k1 * (1.0 - b + b * lengths[row_of] / avg)
    w.data = idf[w.indices] * tf * (k1 + 1.0) / denom
    return (x_test @ w.T).tocsr()


def tfidf_vectors(
    train_texts: Sequence[str], other_texts: Sequence[str] | None = None
) -> tuple[Any, Any]:
    """L2-normalised TF-IDF vectors (sklearn, smooth idf) of ``train_texts`` and ``other_texts``,
    fitted on both together: a term seen only in the other (test) texts keeps its weight, so
    "what is a fiscal quarter" and "who is on the quarter" do not collapse to one vector."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    train, other = list(train_texts), list(other_texts) if other_texts is not None else []
    x = TfidfVectorizer(analyzer=analyze).fit_transform(train + other).tocsr()
    return x[: len(train)], (x[len(train):] if other_texts is not None else None)


def embed_queries(embedder: Any, texts: Sequence[str], *, engine: Any = None) -> npt.NDArray[np.float32]:
    """Encode through the engine and L2-normalise (zero vectors stay zero)."""
    from ..engine import encode_texts

    v = np.asarray(encode_texts(embedder, list(texts), engine=engine), dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(v / norms)


@dataclass(frozen=True)
class PlaneVectors:
    """Fixed low-dimensional coordinates of query texts (e.g. a 2-D PCA projection), used as a
    similarity method: similarity = 1 / (1 + Euclidean distance), so nearer is more similar and
    every pair is "similar" (> 0). The paper's Figure 1 reduces to two dimensions *before*
    resampling so that the drawn splits show the resampling itself
    (:func:`~ranklens.regimes.plots.illustrate_split`).

    Attributes:
        coords: ``text -> coordinates``.
        name: provenance name.
    """

    coords: Mapping[str, tuple[float, ...]]
    name: str = "plane"

    def vectors(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        missing = [t for t in texts if t not in self.coords]
        if missing:
            raise ValidationError(f"PlaneVectors: no coordinates for {len(missing)} text(s), e.g. {missing[0]!r}")
        return np.asarray([self.coords[t] for t in texts], dtype=np.float64)

    def similarity(self, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        d = np.sqrt(np.maximum(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2), 0.0))
        return 1.0 / (1.0 + d)


def similarity_name(method: Any) -> str:
    """Display/provenance name of a similarity method (string or embedder fingerprint)."""
    if isinstance(method, str):
        return method
    if isinstance(method, PlaneVectors):
        return method.name
    fp = getattr(method, "fingerprint", None)
    if not isinstance(fp, str):
        raise ValidationError(
            f"similarity method must be 'bm25', 'tfidf' or an embedder with a fingerprint, got {method!r}"
        )
    return fp


def similarity_method(method: Any) -> Any:
    """A similarity method: ``"bm25"``, ``"tfidf"``, :class:`PlaneVectors` and embedders as given, any
    other string an embedder spec (``"minilm"``, ``"st:PATH"``, ...) made into its embedder."""
    if not isinstance(method, str) or method in ("bm25", "tfidf"):
        return method
    from ..specs import make_embedder

    try:
        return make_embedder(method)
    except ValidationError as exc:
        raise ValidationError(f"similarity method {method!r}: {exc} (or use 'bm25' or 'tfidf')") from exc


def _embedder_neighbors(a: npt.NDArray[np.float32], t: npt.NDArray[np.float32], k: int, backend: str
                        ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The ``k`` nearest unit training vectors ``t`` of each unit test vector ``a`` (inner product =
    cosine) under the one tie rule; a zero test vector ties with every training query at 0 and lists
    the first ``k`` (the tie rule), where the k-NN search reports "no neighbour"."""
    if backend == "faiss":
        res = faiss_knn(UnitRows(t), a, k, metric="ip")
    elif backend == "exact":
        res = exact_knn(UnitRows(t), a, k, metric="ip", backend="numpy")
    else:
        raise ValidationError(f"unknown backend {backend!r}; use 'exact' or 'faiss'")
    idx, sc = res.indices.copy(), res.scores.astype(np.float64)
    blank = idx[:, 0] < 0 if idx.shape[1] else np.zeros(len(idx), bool)
    idx[blank] = np.arange(idx.shape[1])
    sc[blank] = 0.0
    return idx, sc


def nearest_queries(
    test_texts: Sequence[str],
    train_texts: Sequence[str],
    *,
    method: Any = DEFAULTS.similarity,
    k: int,
    backend: str = DEFAULTS.backend,
    engine: Any = None,
    k1: float = 0.9,
    b: float = 0.4,
    block: int = 1024,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Indices and scores of the ``k`` most similar training texts of each test text.

    Args:
        test_texts: the queries to look up.
        train_texts: the pool searched (training queries).
        method: ``"bm25"``, ``"tfidf"``, :class:`PlaneVectors`, an embedder or an embedder spec
            (cosine; encoded via the engine).
        k: neighbours per test text (capped at ``len(train_texts)``).
        backend: ``"exact"`` (blocked matmul) or ``"faiss"`` (``IndexFlatIP``; embedders only).
        engine: the :class:`~ranklens.engine.ScoringEngine` for embedders.
        k1, b: BM25 parameters.
        block: test rows per dense block.

    Returns:
        ``(indices, scores)``, arrays of shape ``(n_test, min(k, n_train))``, best first, ties to
        the lower training index (module docstring).
    """
    if k < 1:
        raise ValidationError(f"k must be >= 1, got {k}")
    if len(train_texts) == 0:
        raise ValidationError("the training query pool is empty; nothing to compare against")
    method = similarity_method(method)
    n = len(test_texts)
    if isinstance(method, str):
        if backend != "exact":
            raise ValidationError(f"backend={backend!r} is only for embedders; use backend='exact' with {method!r}")
        if method == "bm25":
            mat = bm25_matrix(test_texts, train_texts, k1=k1, b=b)
        else:
            tr, te = tfidf_vectors(train_texts, test_texts)
            mat = (te @ tr.T).tocsr()
        return top_k_rows(lambda s, e: mat[s:e].toarray(), n, k, block=block)
    if isinstance(method, PlaneVectors):
        pa, pt = method.vectors(list(test_texts)), method.vectors(list(train_texts))
        return top_k_rows(lambda s, e: method.similarity(pa[s:e], pt), n, k, block=block)
    a = embed_queries(method, test_texts, engine=engine)
    t = embed_queries(method, train_texts, engine=engine)
    return _embedder_neighbors(a, t, k, backend)


def frame_digest(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> str:
    """Order-independent SHA-256 of a frame's rows (``columns``: all by default): the one frame
    digest, :func:`ranklens._hashing.sha256_frame`."""
    from .._hashing import sha256_frame

    return sha256_frame(frame, list(columns) if columns is not None else None)


def _check_queries(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{what} must be a DataFrame with columns query_id, text; got {type(frame).__name__}")
    missing = {"query_id", "text"} - set(frame.columns)
    if missing:
        raise ValidationError(
            f"{what} lacks column(s) {sorted(missing)} (found {list(frame.columns)}); "
            "rename the id column to 'query_id' and the text column to 'text'"
        )
    out = pd.DataFrame({"query_id": frame["query_id"].astype(str).to_numpy(dtype=object),
                        "text": frame["text"].astype(str).to_numpy(dtype=object)})
    dup = out["query_id"].duplicated()
    if dup.any():
        raise ValidationError(f"{what}: duplicate query_id {out['query_id'][dup].iloc[0]!r}")
    return out


def query_similarity(
    test_queries: pd.DataFrame,
    train_queries: pd.DataFrame,
    *,
    method: Any = DEFAULTS.similarity,
    k: int,
    backend: str = DEFAULTS.backend,
    engine: Any = None,
    k1: float = 0.9,
    b: float = 0.4,
) -> Any:
    """Nearest training queries of every test query, as a ``Result`` (kind ``"regimes-query-similarity"``).

    ``method`` as in :func:`nearest_queries` (default: the analysis's ``similarity``); ``k``: training
    queries listed per test query (the analysis passes its ``k_nn``).

    Table columns: ``query_id``, ``rank`` (1-based), ``train_query_id``, ``score``. Summary: the
    distribution of the nearest-neighbour similarity (mean, median, quantiles).

    Example:
        >>> import pandas as pd
        >>> tr = pd.DataFrame({"query_id": ["a", "b"], "text": ["cheap flights", "cat food"]})
        >>> te = pd.DataFrame({"query_id": ["x"], "text": ["cheap flights to rome"]})
        >>> r = query_similarity(te, tr, method="tfidf", k=1)
        >>> r.table["train_query_id"].tolist()
        ['a']
    """
    from ..results import Result, make_provenance

    te = _check_queries(test_queries, "test_queries")
    tr = _check_queries(train_queries, "train_queries")
    method = similarity_method(method)
    idx, sc = nearest_queries(
        te["text"].tolist(), tr["text"].tolist(), method=method, k=k, backend=backend,
        engine=engine, k1=k1, b=b,
    )
    kk = idx.shape[1]
    train_ids = tr["query_id"].to_numpy(dtype=object)
    table = pd.DataFrame({
        "query_id": np.repeat(te["query_id"].to_numpy(dtype=object), kk),
        "rank": np.tile(np.arange(1, kk + 1, dtype=np.int64), len(te)),
        "train_query_id": train_ids[idx.ravel()] if kk else np.array([], dtype=object),
        "score": sc.ravel(),
    })
    nn = sc[:, 0] if kk else np.zeros(0)
    summary = {
        "method": similarity_name(method),
        "n_test": len(te),
        "n_train": len(tr),
        "k": kk,
        "nn_mean": float(nn.mean()) if len(nn) else float("nan"),
        "nn_median": float(np.median(nn)) if len(nn) else float("nan"),
        **{f"nn_q{int(q * 100)}": float(np.quantile(nn, q)) if len(nn) else float("nan")
           for q in (0.1, 0.25, 0.75, 0.9)},
        "n_zero_nearest": int(np.count_nonzero(nn <= 0)),
    }
    warns = () if not summary["n_zero_nearest"] else (
        f"{summary['n_zero_nearest']} of {len(te)} test queries share no term with any training query "
        f"(nearest {similarity_name(method)} similarity <= 0): their listed neighbours are arbitrary (lowest index)",)
    prov = make_provenance(
        params={"method": similarity_name(method), "k": k, "backend": backend, "k1": k1, "b": b,
                "analyzer": "ranklens.text.content_terms (all tokens when the stop list empties a text)"},
        components={"similarity": similarity_name(method)},
        inputs={"test_queries": frame_digest(te), "train_queries": frame_digest(tr)},
    )
    return Result(kind="regimes-query-similarity", summary=summary, table=table, provenance=prov, warnings=warns)
