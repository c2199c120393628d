"""Demo hook for ``ranklens demo``: interpolation vs. extrapolation on the demo collection.

The demo's training queries (``load_demo_train()``) come in three kinds relative to the test
queries: ``paraphrase``, ``related`` and ``unlike``. The demo runs the diagnostics (BM25 and
MiniLM query similarity with near duplicates, label overlap), one ReSTrain split with its 2-D
PCA (a ``split-pca`` Result), and trains tuned BM25, the memorising baseline and a short MiniLM
fine-tune on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..results import Result

__all__ = ["run_demo"]


def run_demo(out_dir: Path, *, engine: Any = None, fine_tune: bool = True) -> list[Result]:
    """Run the resampling analyses on the demo collection; save each under ``out_dir/<kind>-demo/``.

    Args:
        out_dir: where results (and the trained models, under ``resample-models/``) go.
        engine: scoring engine (default: the process-wide one).
        fine_tune: include the MiniLM fine-tune (5 steps of batch 16; about 20 s on a free CPU).
    """
    import dataclasses

    import pandas as pd

    from ..datasets.demo import load_demo, load_demo_train
    from ..embedders import SentenceTransformerEmbedder
    from .diagnostics import label_overlap, near_duplicates
    from .evaluation import evaluate_regimes
    from .plots import plot_split_pca_result, split_pca
    from .similarity import query_similarity
    from .splits import ReSTrain, queries_with_positives, split_similarity_stats
    from .trainers import BiEncoderTrainer, BM25Trainer, MemorizingTrainer, train_variants

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    coll = load_demo()
    train_q, train_qrels = load_demo_train()
    kinds = dict(zip(train_q["query_id"].astype(str), train_q["kind"].astype(str)))
    train_q = train_q[["query_id", "text"]]
    test_q = coll.queries[["query_id", "text"]]
    qrels = pd.concat([train_qrels, coll.qrels], ignore_index=True)
    corpus = dict(coll.docs.iter_docs())
    results: list[Result] = []

    minilm = SentenceTransformerEmbedder(max_seq_length=128)
    sim_bm25 = query_similarity(test_q, train_q, method="bm25", k=5, engine=engine)
    sim = query_similarity(test_q, train_q, method=minilm, k=5, engine=engine)
    nd = near_duplicates(sim, test_q, train_q, threshold=0.8)
    top = sim.table.loc[sim.table["rank"] == 1]
    by_kind = top.assign(kind=[kinds.get(x, "") for x in top["train_query_id"]]).groupby("kind")["score"].agg(["size", "mean"])
    summary = dict(sim.summary)
    summary.update({f"nearest_is_{k}": int(r["size"]) for k, r in by_kind.iterrows()})
    summary["near_duplicates@0.8"] = len(nd)
    summary["bm25_nn_mean"] = sim_bm25.summary["nn_mean"]
    sim = dataclasses.replace(sim, summary=summary, tables={"near_duplicates": nd, "bm25": sim_bm25.table})
    sim.save(out / "query-similarity-demo")
    results.append(sim)

    lo = label_overlap(coll.qrels, train_qrels, thresholds=(1, 2, 3))
    lo.save(out / "label-overlap-demo")
    results.append(lo)

    train_pool = queries_with_positives(train_q, train_qrels)
    test = queries_with_positives(test_q, coll.qrels)
    split = ReSTrain(size=min(20, len(train_pool) // 2), similarity="bm25", seed=0, name="restrain-demo").fit(
        train_pool, test, engine=engine).splits_[0]
    allq = pd.concat([train_q, test_q], ignore_index=True)
    trainers: list[Any] = [BM25Trainer(k1_grid=(0.6, 1.2), b_grid=(0.4, 0.75), random_negatives=5),
                           MemorizingTrainer()]
    if fine_tune:
        trainers.append(BiEncoderTrainer(max_steps=5, batch_size=16, max_seq_length=128, name="minilm-ft"))
    variants = train_variants(trainers, [split], allq, qrels, corpus, out / "resample-models", engine=engine)
    reg = evaluate_regimes(variants, [split], allq, qrels, corpus, engine=engine)
    stats = split_similarity_stats(split, allq, method="bm25")
    reg = dataclasses.replace(reg, tables={**reg.tables, "split_stats": stats})
    d = reg.save(out / "regime-table-demo")
    split.save(d / "split", qrels=qrels, stats=stats)
    results.append(reg)

    # the split's 2-D PCA (paper Fig. 1) as its own Result, and drawn from it
    pca = split_pca(split, allq, vectors="tfidf", seed=0)
    pca.save(out / "split-pca-demo")
    fig = plot_split_pca_result(pca)
    fig.savefig(d / "pca.png", dpi=100)
    import matplotlib.pyplot as plt

    plt.close(fig)
    results.append(pca)
    return results
