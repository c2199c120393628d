"""The ``regimes`` analysis: interpolation vs extrapolation (Zhan et al.). Declared once; the CLI
(``ranklens regimes``, with the file tools ``ranklens regimes --out D diagnose|restrain|resttest|
train|evaluate|annotations``), experiment files (``type = "regimes"``), the demo and the report
derive from it.

Defaults follow the paper: query similarity by dense query embeddings (MiniLM here; the paper's
STAR embeddings are not offline), ReSTTest with K = 5 buckets over those embeddings, ReSTrain
with the top-k rule, first-stage models (BM25, bi-encoders) evaluated by retrieval from the whole
corpus and other rankers by re-ranking BM25's top 1000, measures nDCG@10, R@100 and MRR@10.
Deviations are named options, recorded in provenance and warned about.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..declare import Analysis, ModelRows, ResultKind, param

__all__ = ["ANALYSIS", "TRAINERS", "Params"]

#: the built-in trainer kinds of ``Params.trainers`` (a spec is ``KIND`` or ``KIND:ARG``)
TRAINERS = ("bm25", "memorizing", "bi-encoder", "cross-encoder", "callable")


@dataclass(frozen=True)
class Params:
    methods: tuple[str, ...] = param(("restrain", "resttest"), "resampling methods (paper: ReSTrain for small test "
                                     "sets, ReSTTest for large ones)", choices=("restrain", "resttest"))
    similarity: str = param("minilm", "query similarity for ReSTrain neighbours and ReSTTest clustering (paper: "
                            "dense embeddings): an embedder spec, or bm25 / tfidf (ReSTTest then clusters TF-IDF)")
    train_queries: str = param("", "file of training queries (qrels in the collection); 'demo' = the demo's "
                               "training queries; empty = a seeded share train_fraction of the judged queries")
    train_fraction: float = param(0.5, "share of the judged queries drawn (seeded) as the training pool when "
                                  "no train_queries are given", min=0.0, max=1.0)
    k: int = param(1, "ReSTrain: top-k neighbours per test query form the interpolation set (paper leaves k open)",
                   min=1, applies_when={"methods": ("restrain",)})
    size: int | None = param(None, "ReSTrain: target interpolation-set size (none = the top-k union)", min=1,
                             applies_when={"methods": ("restrain",)})
    size_rule: str = param("topk", "ReSTrain with size: topk = the paper's (every test query keeps its top-k, k the "
                           "largest whose union fits; refused when none fits), fill = rank by rank to exactly size "
                           "(warned: test queries lose their nearest)", choices=("topk", "fill"),
                           applies_when={"size": True})
    k_exclude: int | None = param(None, "ReSTrain k': neighbours per test query kept out of the extrapolation set "
                                  "(none = 10 x k, lowered with a warning when the pool is too small)", min=1,
                                  applies_when={"methods": ("restrain",)})
    buckets: int = param(5, "ReSTTest buckets K (paper: 5)", min=2, applies_when={"methods": ("resttest",)})
    trainers: tuple[str, ...] = param(("bm25", "memorizing"), "models trained on each training set: bm25 (grid-"
                                      "tuned), memorizing (sanity baseline), bi-encoder[:MODEL] / cross-encoder[:MODEL] "
                                      "(fine-tuned MODEL, default base_model; the paper's neural models, slow on CPU), "
                                      "callable:MODULE:FUNC (FUNC(train_queries, qrels, corpus) -> ranker)")
    base_model: str = param("minilm", "starting checkpoint of the neural trainers (sentence-transformers name/path)",
                            applies_when={"trainers": ("bi-encoder", "cross-encoder")})
    epochs: int = param(1, "neural trainers: epochs over the training pairs", min=1, applies_when={"trainers": ("bi-encoder", "cross-encoder")})
    batch_size: int = param(16, "neural trainers: pairs per step (bi-encoder: in-batch negatives)", min=2,
                            applies_when={"trainers": ("bi-encoder", "cross-encoder")})
    max_steps: int | None = param(None, "neural trainers: stop after this many optimiser steps (none = all epochs)",
                                  min=1, applies_when={"trainers": ("bi-encoder", "cross-encoder")})
    reranker_loss: str = param("pairwise", "cross-encoder loss: pairwise (the paper's: softmax cross-entropy over "
                               "(positive, negative) scores) or pointwise (binary cross-entropy)",
                               choices=("pairwise", "pointwise"), applies_when={"trainers": ("cross-encoder",)})
    dev_fraction: float = param(0.0, "neural trainers: share of each training set held out as a dev set; the "
                                "checkpoint with the best dev MRR@10 is kept (the paper selects on a dev set every 2 "
                                "epochs; 0 = the last step)", min=0.0, max=0.5,
                                applies_when={"trainers": ("bi-encoder", "cross-encoder")})
    evaluation: str = param("auto", "auto = the paper's (BM25 and bi-encoders retrieve from the whole corpus, other "
                            "rankers re-rank the first stage's top depth); full; rerank; judged (judged documents "
                            "only: degenerate, warned)", choices=("auto", "full", "rerank", "judged"))
    depth: int = param(1000, "documents retrieved / re-ranked per test query (paper: 1000)", min=1)
    first_stage: str = param("bm25", "run re-ranked by rerankers: bm25 (Lucene idf, k1=0.9, b=0.4, top depth) or a "
                             "TREC run file")
    random_negatives: int = param(0, "evaluation=judged: random corpus documents added per query", min=0,
                                  applies_when={"evaluation": ("judged",)})
    measures: tuple[str, ...] = param(("nDCG@10", "R@100", "RR@10"), "ir_measures names (paper: NDCG@10, R@100, "
                                      "MRR@10)")
    k_nn: int = param(10, "diagnostics: nearest training queries listed per test query (paper: 10)", min=1)
    thresholds: tuple[int, ...] = param((1,), "label overlap: relevance thresholds")
    min_shared: int = param(1, "label overlap: shared positives needed (paper 1; the authors' script 2)", min=1)
    backend: str = param("exact", "nearest-query search for embedders", choices=("exact", "faiss"))
    ood: tuple[str, ...] = param((), "out-of-domain collections (collection specs, e.g. cisi) on which every trained "
                                 "variant is evaluated zero-shot (evaluation, depth as above); adds the regimes-ood-correlation "
                                 "result (paper §4.2, Table 5)")
    seeds: tuple[int, ...] = param((), "repeat the whole protocol (training pool draw, splits, trainers) under these "
                                   "seeds and report mean +- sd of the regime values and gaps over seeds (empty = the "
                                   "run's seed once, as the paper)")

    def check(self) -> list[str]:
        problems = []
        if not self.methods:
            problems.append("methods: give restrain and/or resttest")
        if self.first_stage != "bm25" and not Path(self.first_stage).is_file():
            problems.append(f"first_stage: {self.first_stage!r} is neither 'bm25' nor an existing run file")
        if self.train_queries not in ("", "demo") and not Path(self.train_queries).is_file():
            problems.append(f"train_queries: {self.train_queries!r} does not exist; give a queries file or 'demo'")
        for spec in self.trainers:
            kind, sep, arg = spec.partition(":")
            if not ((kind in ("bm25", "memorizing") and not sep) or (kind in ("bi-encoder", "cross-encoder")
                                                                     and bool(arg) == bool(sep))
                    or (kind == "callable" and arg)):
                problems.append(f"trainers: {spec!r} is not one of bm25, memorizing, bi-encoder[:MODEL], "
                                "cross-encoder[:MODEL], callable:MODULE:FUNC")
        neural = [t for t in self.trainers if t.partition(":")[0] in ("bi-encoder", "cross-encoder")]
        if neural and all(":" in t for t in neural) and self.base_model != type(self)().base_model:
            problems.append(f"base_model: ignored: every neural trainer names its own model ({', '.join(neural)}); "
                            "drop base_model or write a trainer without ':MODEL' (an ignored option is an error)")
        return problems


_P = "ranklens.regimes.plots"
ANALYSIS = Analysis(
    name="regimes",
    title="Interpolation vs extrapolation",
    params=Params,
    run="ranklens.regimes.driver:run",
    help="interpolation vs extrapolation: resampled train/test queries, retrained models, both regimes",
    description=("ReSTrain / ReSTTest resampling and evaluation of retrained models (Zhan et al.). It takes no "
                 "--model: --trainers make the models trained on every training set (bm25, memorizing, "
                 "bi-encoder[:MODEL], cross-encoder[:MODEL], callable:MODULE:FUNC). File tools: "
                 "ranklens regimes --out DIR {diagnose,restrain,resttest,train,evaluate,annotations} ..."),
    needs_qrels=True,
    min_models=0,
    max_models=0,  # the trainers (--trainers) make the models; a --model would be ignored: refused
    tools="ranklens.regimes.tools:add_tools",
    kinds=(
        ResultKind("regimes-table", "Interpolation vs extrapolation", findings="ranklens.regimes.findings:regimes_table",
                   significance="ranklens.regimes.findings:sig_regimes_table", plots=(f"{_P}:plot_regimes",),
                   model_rows=ModelRows("model", items=("setting", "regime"), long=("measure", "value")),
                   higher_is_better={"nDCG@10": True, "R@100": True, "RR@10": True}),
        ResultKind("regimes-query-similarity", "Nearest training queries", plots=(f"{_P}:plot_nn_similarity",),
                   summary={"method": "text"}),
        ResultKind("regimes-label-overlap", "Label overlap"),
        ResultKind("regimes-ood-correlation", "Out-of-distribution correlation", plots=(f"{_P}:plot_ood",)),
        ResultKind("regimes-split-pca", "Split (PCA)", plots=(f"{_P}:plot_split_pca_result",),
                   summary={"split": "text", "regimes": "list of text", "explained_variance": "list of numbers"}),
    ),
    demo={"train_queries": "demo", "trainers": ("bm25", "memorizing"),
          "methods": ("restrain",), "k_nn": 5},
    demo_full={"train_queries": "demo", "trainers": ("bm25", "memorizing", "bi-encoder"), "max_steps": 5,
               "methods": ("restrain",), "k_nn": 5},
    renamed_kinds={"regime-table": "regimes-table", "split-pca": "regimes-split-pca", "query-similarity": "regimes-query-similarity", "ood-correlation": "regimes-ood-correlation", "label-overlap": "regimes-label-overlap", "annotation-summary": "regimes-annotation-summary"},  # result kinds before the one-name rename still load
)
