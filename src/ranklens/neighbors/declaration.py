"""The ``neighbors`` analysis: nearest-neighbour overlap (Lin & Smith). Declared once; the CLI
(``ranklens neighbors``), experiment files (``type = "neighbors"``), the demo and the report
derive from it. Defaults follow the paper; every deviation is a named parameter."""

from __future__ import annotations

from dataclasses import dataclass

from ..declare import Analysis, ModelRows, ResultKind, param

__all__ = ["ANALYSIS", "ANALYSES", "Params"]

ANALYSES = ("matrix", "robustness", "tokens", "outliers", "needle", "rankers")
_PAPER_KS = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50)


@dataclass(frozen=True)
class Params:
    analyses: tuple[str, ...] = param(ANALYSES, "analyses to run: N2O matrix (§5), robustness over k and samples "
                                      "(§6), token overlap (Fig. 5), popular/outlier neighbours (§7), needle "
                                      "(§8), rankers' top-k overlap; one whose inputs are missing is skipped "
                                      "with a warning", choices=ANALYSES)
    k: int = param(50, "neighbours per query (paper: 50)", min=1)
    ks: tuple[int, ...] = param(_PAPER_KS, "robustness: the k values whose N2O rankings are correlated (paper)",
                                applies_when={"analyses": ("robustness",)})
    n_queries: int = param(100, "queries per sample (paper: 100)", min=1)
    n_samples: int = param(5, "query samples; N2O is their mean, with their SD (paper: 5)", min=1)
    queries: str = param("ledes", "pool queries are drawn from: ledes = the first sentence of each document (the "
                         "paper's), all = every corpus sentence, sentences = the --sentences files",
                         choices=("ledes", "all", "sentences"))
    query_ids: str | None = param(None, "file of query ids, one per line (DOC#i, or DOC for its lede): the pool "
                                  "instead of --queries", path=True)
    split: bool = param(True, "split documents into sentences (spaCy, as the paper); --no-split: one per document")
    min_tokens: int = param(1, "drop corpus sentences with fewer word tokens", min=0)
    collection_docs: bool = param(True, "put the collection's documents in the corpus (--no-collection-docs: "
                                  "only the --sentences files)")
    sentences: tuple[str, ...] = param((), "sentence files added to the corpus, one sentence each: STS-B or MRPC "
                                       "pairs (both sentences), a TSV with a text column, one per line; 'demo'",
                                       path=True)
    max_sentences: int = param(0, "corpus cap: beyond it a seeded sample of whole documents (0 = every sentence, "
                               "the paper's)", min=0)
    terms: str = param("content", "token overlap counts content terms (non-stopword stems; restores the "
                       "paper's order) or all tokens", choices=("content", "tokens"),
                       applies_when={"analyses": ("tokens",)})
    confidence: float = param(0.95, "confidence level of every CI", min=0.5, max=0.999)
    n_bootstrap: int = param(2000, "bootstrap resamples for the N2O CIs (over queries; not in the paper)", min=100)
    n_resamples: int = param(10000, "randomization resamples for the paired tests (not in the paper)", min=100)
    m: int = param(5, "outliers: popular = in every embedder's top-m (paper Table 2: m = 5); outlier = in one "
                   "top-m, outside the others' top-k (k = --k, paper: 50)", min=1,
                   applies_when={"analyses": ("outliers",)})
    outlier_query: str | None = param(None, "outliers: query as a corpus id or exact sentence (default: the first "
                                      "query of the first sample)",
                                      applies_when={"analyses": ("outliers",)})
    pairs: tuple[str, ...] = param((), "needle: pair files (STS-B dev and test in the paper, MRPC, a TSV with "
                                   "text_a, text_b, score; 'demo')", path=True,
                                   applies_when={"analyses": ("needle",)})
    min_score: float = param(4.0, "needle: lowest pair score (paper: 4)", applies_when={"analyses": ("needle",)})
    max_score: float = param(5.0, "needle: highest pair score (paper: 5)", applies_when={"analyses": ("needle",)})
    max_overlap: float = param(0.6, "needle: word overlap (token-set Jaccard) below this (paper: 0.6)", min=0.0,
                               applies_when={"analyses": ("needle",)})
    genre: str | None = param("news", "needle: keep pairs whose genre contains this (paper: news text; 'none' = "
                              "every genre; pairs without a genre column are not filtered)",
                              applies_when={"analyses": ("needle",)})
    max_pairs: int = param(0, "needle: a seeded sample of this many eligible pairs (0 = all; paper: 75)", min=0,
                           applies_when={"analyses": ("needle",)})
    needle_protocol: str = param("one-at-a-time", "needle: one needle at a time, other pairs out of the haystack "
                                 "(paper), or all-at-once (they compete)", choices=("one-at-a-time", "all-at-once"),
                                 applies_when={"analyses": ("needle",)})
    ranker_k: int = param(10, "rankers: depth of the top-k overlap (not in the paper)", min=1,
                          applies_when={"analyses": ("rankers",)})
    rbo_p: float = param(0.9, "rankers: RBO persistence", min=0.0, max=1.0, applies_when={"analyses": ("rankers",)})
    embedders: tuple[str, ...] = param((), "embedders besides the models, [NAME=]SPEC (e.g. word2vec, "
                                       "cls=hf:minilm:cls, w2v=wordvec:GoogleNews.bin)")
    tfidf_tokenizer: str = param("gensim", "tfidf models: gensim's tokenizer (lower-cased letter runs; the paper's) "
                                 "or ranklens's (digits and inner apostrophes kept; ranklens <= 0.x)",
                                 choices=("gensim", "ranklens"))
    tfidf_idf: str = param("gensim", "tfidf models: idf log2(N/df) as gensim's (the paper's) or sklearn's smooth",
                           choices=("gensim", "smooth"))
    tfidf_stem: bool = param(False, "tfidf models: Porter-stem tokens (ranklens <= 0.x did; the paper does not)")
    tfidf_stopwords: bool = param(False, "tfidf models: drop English stopwords (ranklens <= 0.x did; the paper "
                                  "does not)")
    tfidf_max_features: int = param(0, "tfidf models: keep the most frequent terms only (0 = the full vocabulary, "
                                    "the paper's; ranklens <= 0.x: 4096)", min=0)
    tfidf_sublinear: bool = param(False, "tfidf models: 1 + ln(tf) instead of the raw count")
    wordvec_case: str = param("preserve", "wordvec models: look tokens up as written with a lower-case fallback, "
                              "lower-case all (old), or exact", choices=("preserve", "lower", "exact"))
    wordvec_tokenizer: str = param("paper", "word-vector models (wordvec:PATH, word2vec, fasttext, fasttext-nosub; "
                                   "a model's own tokenizer param wins): the paper's tokenization (spaCy's for "
                                   "word2vec and GloVe, fastText's whitespace split for fastText), or one for all",
                                   choices=("paper", "spacy", "fasttext", "ranklens"))
    precision: str | None = param(None, "neural embedders: fp32 or bf16 (default: the model's own)",
                                  choices=("fp32", "bf16", "fp16"))
    backend: str = param("auto", "k-NN search: exact (auto, numpy, torch, faiss) or approximate hnsw / ivf "
                         "(FAISS; recall@k vs exact reported)", choices=("auto", "numpy", "torch", "faiss", "hnsw", "ivf"))
    block_size: int = param(65536, "corpus rows per exact-search block", min=1)
    hnsw_m: int = param(32, "hnsw: graph degree M", min=2, applies_when={"backend": ("hnsw",)})
    ef_construction: int = param(200, "hnsw: efConstruction", min=1, applies_when={"backend": ("hnsw",)})
    ef_search: int = param(256, "hnsw: efSearch (at least 2 k)", min=1, applies_when={"backend": ("hnsw",)})
    nlist: int | None = param(None, "ivf: inverted lists (default 4 sqrt(corpus size))", min=1,
                              applies_when={"backend": ("ivf",)})
    nprobe: int = param(32, "ivf: lists searched per query", min=1, applies_when={"backend": ("ivf",)})
    n_holdout: int = param(100, "hnsw / ivf: held-out queries for the recall@k vs exact search", min=0,
                           applies_when={"backend": ("hnsw", "ivf")})

    def check(self) -> list[str]:
        out = []
        if self.min_score > self.max_score:
            out.append(f"min_score {self.min_score} > max_score {self.max_score}")
        if any(k < 1 for k in self.ks):
            out.append(f"ks must be positive, got {list(self.ks)}")
        if self.queries == "sentences" and not self.sentences and self.query_ids is None:
            out.append("queries = 'sentences' needs sentence files (sentences = [...])")
        if self.query_ids is not None and self.queries != "ledes":
            out.append(f"queries: ignored: query_ids gives the pool (instead of queries = {self.queries!r}); drop "
                       "one of them (an ignored option is an error)")
        return out


_N = "ranklens.neighbors.plots"
ANALYSIS = Analysis(
    name="neighbors",
    title="Nearest-neighbour overlap",
    params=Params,
    run="ranklens.neighbors.driver:run",
    help="nearest-neighbour overlap (N2O) of embedders, token overlap, needle, rankers' top-k overlap",
    description="How alike two embedders are, from their k-NN sets (Lin & Smith). The corpus: the "
                "collection's documents split into sentences, plus --sentences files, deduplicated.",
    kinds=(
        ResultKind("neighbors-matrix", "N2O between embedders", findings="ranklens.neighbors.findings:neighbors_matrix",
                   plots=(f"{_N}:plot_n2o_matrix", f"{_N}:plot_n2o_distribution"),
                   model_rows=ModelRows("model", ("n2o_mean",), items=("other_model",), ci=("ci_low", "ci_high"),
                                        n="n_queries", prefix="vs "),
                   higher_is_better={"n2o_mean": None},  # a similarity, not a quality: no "best"
                   summary={"k": "integer", "most_similar": "text", "least_similar": "text"}),
        ResultKind("neighbors-robustness", "Robustness", plots=(f"{_N}:plot_robustness",),
                   summary={"sample_rho_mean": "number?"}),
        ResultKind("neighbors-token-overlap", "Token overlap", findings="ranklens.neighbors.findings:neighbors_token_overlap",
                   significance="ranklens.neighbors.findings:sig_neighbors_token_overlap", plots=(f"{_N}:plot_token_overlap",),
                   model_rows=ModelRows("model", ("mean",), ci=("ci_low", "ci_high"), n="n_queries",
                                        rename=(("mean", "token_overlap"),)),
                   summary={"confidence": "number"}),
        ResultKind("neighbors-popular-outliers", "Popular and outlier neighbours"),
        ResultKind("neighbors-needle", "Needle in a haystack", findings="ranklens.neighbors.findings:neighbors_needle",
                   significance="ranklens.neighbors.findings:sig_neighbors_needle",
                   plots=(f"{_N}:plot_needle",),
                   model_rows=ModelRows("model", ("mrr", "n_top1", "n_top5"), n="n_pairs"),
                   higher_is_better={"mrr": True, "n_top1": True, "n_top5": True}),
        ResultKind("neighbors-ranker-overlap", "Rankers' top-k overlap", findings="ranklens.neighbors.findings:neighbors_ranker_overlap",
                   plots=(f"{_N}:plot_ranker_overlap",),
                   model_rows=ModelRows("model", ("overlap_mean", "rbo_mean"), items=("other_model",),
                                        prefix="vs "),
                   summary={"k": "integer", "mean_overlap": "number?", "n_queries": "integer"}),
    ),
    min_models=1,
    reads_runs="besides",  # --runs: run files compared beside the models' runs (rankers' top-k overlap)
    reads_qrels=False,
    needs_collection=False,  # `ranklens neighbors --sentences FILE`: the sentence files are the corpus
    demo={"k": 5, "ks": (2, 3, 4, 5), "n_queries": 20, "n_samples": 3, "queries": "all", "sentences": ("demo",),
          "embedders": ("word2vec",), "pairs": ("demo",), "genre": None, "m": 3, "ranker_k": 5, "max_sentences": 600},
    demo_full={"k": 5, "ks": (2, 3, 4, 5), "n_queries": 20, "n_samples": 3, "queries": "all", "sentences": ("demo",),
          "embedders": ("word2vec", "minilm-cls=hf:minilm:cls"), "pairs": ("demo",), "genre": None,
          "m": 3, "ranker_k": 5},
    renamed_kinds={"n2o-matrix": "neighbors-matrix", "n2o-needle": "neighbors-needle", "n2o-popular-outliers": "neighbors-popular-outliers", "n2o-robustness": "neighbors-robustness", "n2o-token-overlap": "neighbors-token-overlap", "ranker-overlap": "neighbors-ranker-overlap"},  # result kinds before the one-name rename still load
)
