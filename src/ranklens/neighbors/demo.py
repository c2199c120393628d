"""Demo hook for ``ranklens demo``: N2O on the sentences of the shipped demo collection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..results import Result

__all__ = ["run_demo"]


def run_demo(out_dir: Path, *, engine: Any = None) -> list[Result]:
    """N2O of TF-IDF, word2vec (trained on the demo sentences), MiniLM mean and MiniLM CLS.

    Corpus: the demo documents split into sentences plus the demo paraphrase pairs, deduplicated.
    Runs the matrix (k=5, 3 samples of 20 queries), token overlap, popular/outlier neighbours of
    one sentence, the paraphrase needle test on the demo pairs (score taken as 5), and the
    ranker overlap of BM25, TF-IDF and MiniLM (top-5, RBO p=0.9). Saved under
    ``out_dir/<kind>-demo/``.
    """
    import pandas as pd

    from ..datasets.demo import load_demo, load_demo_pairs
    from ..embedders import HFPoolingEmbedder, make_embedder
    from ..embedders.wordvectors import TrainedWordVectorEmbedder
    from ..rankers import make_ranker
    from .analysis import (
        n2o_matrix,
        needle_in_haystack,
        popular_outliers,
        ranker_overlap,
        run_from_ranker,
        token_overlap,
    )
    from .corpus import build_corpus

    coll = load_demo()
    pairs = load_demo_pairs("paraphrase")
    docs = list(coll.docs.iter_docs())
    docs += [(f"pair{r.pair_id}:a", r.text_a) for r in pairs.itertuples()]
    docs += [(f"pair{r.pair_id}:b", r.text_b) for r in pairs.itertuples()]
    corpus = build_corpus(docs)
    texts = list(corpus.texts)
    embedders = {
        "tfidf": make_embedder("tfidf", corpus=texts),
        "word2vec": TrainedWordVectorEmbedder(corpus=tuple(texts), vector_size=50, epochs=20),
        "minilm-mean": HFPoolingEmbedder(pooling="mean"),
        "minilm-cls": HFPoolingEmbedder(pooling="cls"),
    }
    k = 5
    n_q = min(20, len(corpus) - k - 1)
    out = Path(out_dir)
    results: list[Result] = []
    mat = n2o_matrix(embedders, corpus, k=k, n_queries=n_q, n_samples=3, seed=0, engine=engine)
    tok = token_overlap(embedders, corpus, k=k, n_queries=n_q, seed=0, engine=engine)
    po = popular_outliers(embedders, corpus, 0, m=3, k=k, engine=engine)
    needle_pairs = pd.DataFrame({"pair_id": pairs["pair_id"].astype(str), "text_a": pairs["text_a"],
                                 "text_b": pairs["text_b"], "score": 5.0})
    nd = needle_in_haystack(embedders, corpus, needle_pairs, max_overlap=1.01, engine=engine)
    doc_texts = [t for _, t in coll.docs.iter_docs()]
    rankers = {"bm25": make_ranker("bm25", corpus=doc_texts), "tfidf": make_ranker("tfidf", corpus=doc_texts),
               "minilm": make_ranker("minilm")}
    runs = {n: run_from_ranker(r, coll.queries, coll.docs, engine=engine) for n, r in rankers.items()}
    rk = ranker_overlap(runs, k=5, p=0.9)
    for res in (mat, tok, po, nd, rk):
        res.save(out / f"{res.kind}-demo")
        results.append(res)
    return results
