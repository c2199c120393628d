"""The ``explain`` analysis: explanation consistency (Pandian, Ganguly & MacAvaney, "Evaluating the
Explainability of Neural Rankers"). Declared once; the CLI (``ranklens explain``), experiment
files (``type = "explain"``), the demo and the report derive from it.

Only :class:`Params` and :data:`ANALYSIS` live here; the driver is :mod:`ranklens.explain.driver`.

Defaults follow the paper: every model re-ranks the BM25 top-1000 of every query; the top 10 and
50 are explained by occlusion (every combination of 1..2 units masked, eq. 4 summed) with
sentence rationales (m = 1) and 5-word windows (m = 6, Table 1); MRC is Kendall's τ; MER (with
sub-document relevance) counts documents without relevant units as 0 (eq. 3). Documents with more
than 20 sentences are explained by the paper's document mode (eq. 5 over 3-sentence chunks;
``long_document`` auto | always | never).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..declare import Analysis, ModelRows, ResultKind, param

__all__ = ["ANALYSIS", "Params"]


@dataclass(frozen=True)
class Params:
    candidates: str = param("pool", "what each model re-ranks per query: the top --pool of the pool model "
                            "(the paper: BM25 top-1000), every document, the judged documents, or the top "
                            "--pool of the --run file", choices=("pool", "all", "qrels", "run"))
    pool: int = param(1000, "depth of the first-stage pool each model re-ranks (paper: 1000)", min=1,
                      applies_when={"candidates": ("pool", "run")})
    pool_model: str | None = param(None, "model whose ranking makes the pool (default: BM25 on the collection)",
                                   applies_when={"candidates": ("pool",)})
    run: str | None = param(None, "TREC run file of a first stage: each model re-ranks its top --pool "
                            "(sets --candidates run)", path=True)
    max_queries: int | None = param(None, "first N queries only (default: every query)", min=1)
    granularities: tuple[str, ...] = param(("sentence", "window:5"), "rationale units (paper Table 1); 'line' = "
                                           "one unit per line of pre-segmented text",
                                           choices=("sentence", "line", "window:N"))
    m: int | None = param(None, "rationales per document (default: the paper's 1 for sentences and lines, "
                          "6 for word windows)", min=1)
    k: tuple[int, ...] = param((10, 50), "MRC cut-offs (paper: 10 and 50)")
    mer_k: tuple[int, ...] = param((10, 50), "MER cut-offs (paper Table 2: 10 and 50)", min=1,
                                   applies_when={"subdoc": True})
    n: int = param(2, "largest number of units masked together (the paper's reference code: 2)", min=1)
    samples: int = param(0, "masked sets per document: 0 = every combination of 1..n units (the paper); "
                         "N = at most N, then singletons + sampled multi-unit sets", min=0)
    aggregate: str = param("sum", "accumulate a unit's attribution over its masked sets: sum (eq. 4) or mean",
                           choices=("sum", "mean"))
    normalize: str = param("abs", "divide score drops by max(|theta|, eps) (abs: the paper's /theta for "
                           "positive scores), not at all, or by theta - min + eps", choices=("abs", "none", "shift"))
    pseudo_order: str = param("weight", "order of the rationales in the pseudo-document: weight (eq. 1 and the "
                              "reference code) or document", choices=("weight", "document"))
    method: str = param("kendall", "rank correlation of MRC", choices=("kendall", "spearman", "rbo"))
    rbo_p: float = param(0.9, "RBO persistence (method rbo)", min=0.0, max=1.0, applies_when={"method": ("rbo",)})
    ties: str = param("trec_eval", "tie rule ordering every ranking", choices=("trec_eval", "float64", "input_order"))
    long_document: str = param("auto", "the paper's document mode (eq. 5: greedy sentence removal, theta = max "
                               "over --chunk-sentences chunks) for documents with more than --long-document-sentences "
                               "sentences (auto, warned), for every document (always) or none (never: the passage "
                               "protocol, eq. 4); rank with maxp:SPEC:3 so the ranking score is the explained one",
                               choices=("never", "auto", "always"))
    long_document_sentences: int = param(20, "auto: documents with more sentences than this take the document mode "
                                         "(20: every DL19 MS MARCO passage, at most 19 sentences, keeps the paper's "
                                         "passage protocol; MS MARCO documents average 55.7)", min=1,
                                         applies_when={"long_document": ("auto",)})
    chunk_sentences: int = param(3, "sentences per chunk in document mode (paper: 3)", min=1,
                                 applies_when={"long_document": ("auto", "always")})
    subdoc: str | None = param(None, "sub-document relevance file for MER (doc_id, unit, relevant), or 'demo'",
                               path=True)
    embedder: str = param("minilm", "embedder of MER's cosine (the paper: cosine, vectors not stated; its "
                          "reference code: bag-of-words counts, nearest here: tfidf)",
                          applies_when={"subdoc": True})
    mer_missing: str = param("zero", "top-k documents without relevant units in MER: zero (eq. 3) or skip",
                             choices=("zero", "skip"), applies_when={"subdoc": True})
    rationales: str | None = param(None, "rationales JSONL from another explainer (one model), instead of "
                                   "occlusion", path=True)
    sweep_m: tuple[int, ...] = param((1, 3, 5), "m values of the rationale-count sweep (paper Fig. 2-3; none: "
                                     "no sweep)")
    sweep_w: tuple[int, ...] = param((), "window widths of the window-size sweep (paper Fig. 2 uses 1,3,5,7,9,11; "
                                     "none: no sweep)")
    ci_resamples: int = param(2000, "bootstrap resamples of the CIs over queries", min=1)
    confidence: float = param(0.95, "confidence level of the CIs", min=0.5, max=0.999)
    test: str = param("randomization", "paired test between models", choices=("randomization", "ttest"))
    display_queries: int = param(10, "queries whose top documents are stored for the rationale pages", min=0)
    display_docs: int = param(3, "top documents per query stored for the rationale pages", min=0)

    def check(self) -> list[str]:
        problems = []
        if any(k < 1 for k in self.k) or not self.k:
            problems.append(f"k: give cut-offs >= 1, got {list(self.k)}")
        if not self.mer_k:
            problems.append("mer_k: give at least one MER cut-off (paper: 10 and 50)")
        if self.candidates == "run" and not self.run:
            problems.append("candidates 'run' needs run = a TREC run file")
        if self.run and self.pool_model:  # the run file is the first stage: no pool is built
            problems.append("pool_model: ignored when run is given (the run file's top pool documents are "
                            "re-ranked); drop pool_model or run (an ignored option is an error)")
        if self.run and self.candidates in ("all", "qrels"):
            problems.append(f"run: candidates = '{self.candidates}' would be replaced by the run file's top "
                            "documents; give candidates = run (or pool), or drop run")
        return problems


_E = "ranklens.explain.plots"
ANALYSIS = Analysis(
    name="explain",
    title="Explanation consistency",
    params=Params,
    run="ranklens.explain.driver:run",
    help="explanation consistency of rankers: occlusion rationales, MRC@k, MER@k",
    description=("Each model re-ranks the first-stage pool (BM25 top-1000 by default, or --run FILE); its top "
                 "documents are explained with occlusion rationales; MRC@k is Kendall's tau between the original "
                 "order and the order of the rationale-only documents, MER@k (with --subdoc) the cosine of "
                 "rationales to relevant units. Writes explain-consistency/ (per-query table, CIs, paired tests, "
                 "unit diagnostics, rationale pages) and explain-sweep/."),
    kinds=(
        ResultKind("explain-consistency", "Explanation consistency",
                   findings="ranklens.explain.findings:explain_consistency",
                   significance="ranklens.explain.findings:sig_explain_consistency",
                   plots=(f"{_E}:plot_consistency", f"{_E}:plot_relevance_scatter", f"{_E}:plot_mer_scatter"),
                   extra_html="ranklens.explain.display:result_html",
                   model_rows=ModelRows("model", ("MRC@10", "MRC@50", "MER@10", "MER@50", "nDCG@10"),
                                        items=("granularity",)),
                   higher_is_better={"MRC@10": True, "MRC@50": True, "MER@10": True, "MER@50": True,
                                     "nDCG@10": True}),
        ResultKind("explain-rationales", "Rationales", extra_html="ranklens.explain.display:result_html"),
        ResultKind("explain-sweep", "Sweep", plots=(f"{_E}:plot_sweep", f"{_E}:plot_sweep_w")),
    ),
    renamed_measures={"mrc": "MRC", "mer": "MER"},  # the paper's spelling, beside nDCG@10 (was mrc@10, mer@10)
    demo={"subdoc": "demo", "granularities": ("sentence",), "pool": 10, "max_queries": 4, "m": 3, "k": (10,),
          "mer_k": (10,), "samples": 8,
          "sweep_m": (1, 3)},
    demo_full={"subdoc": "demo", "pool": 20, "max_queries": 10, "m": 3, "k": (10,), "mer_k": (10,), "samples": 12,
          "sweep_m": (1, 2, 3, 4)},
)
