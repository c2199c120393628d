"""The ``explain`` analysis: explanation consistency (Pandian, Ganguly & MacAvaney, "Evaluating the
Explainability of Neural Rankers"). Declared once; the CLI (``ranklens explain``), experiment
files (``type = "explain"``), the demo and the report derive from it.

Defaults follow the paper: every model re-ranks the BM25 top-1000 of every query; the top 10 and
50 are explained by occlusion (every combination of 1..2 units masked, eq. 4 summed) with
sentence rationales (m = 1) and 5-word windows (m = 6, Table 1); MRC is Kendall's τ; MER (with
sub-document relevance) counts documents without relevant units as 0 (eq. 3).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..declare import Analysis, ModelRows, ResultKind, param

__all__ = ["ANALYSIS", "Params", "run"]


@dataclass(frozen=True)
class Params:
    candidates: str = param("pool", "what each model re-ranks per query: the top --pool of the pool model "
                            "(the paper: BM25 top-1000), every document, the judged documents, or the top "
                            "--pool of the --run file", choices=("pool", "all", "qrels", "run"))
    pool: int = param(1000, "depth of the first-stage pool each model re-ranks (paper: 1000)", min=1)
    pool_model: str | None = param(None, "model whose ranking makes the pool (default: BM25 on the collection)")
    run: str | None = param(None, "TREC run file of a first stage: each model re-ranks its top --pool "
                            "(sets --candidates run)", path=True)
    max_queries: int | None = param(None, "first N queries only (default: every query)", min=1)
    granularities: tuple[str, ...] = param(("sentence", "window:5"), "rationale units (paper Table 1); 'line' = "
                                           "one unit per line of pre-segmented text",
                                           choices=("sentence", "line", "window:N"))
    m: int | None = param(None, "rationales per document (default: the paper's 1 for sentences and lines, "
                          "6 for word windows)", min=1)
    k: tuple[int, ...] = param((10, 50), "MRC cut-offs (paper: 10 and 50)")
    mer_k: tuple[int, ...] = param((10, 50), "MER cut-offs (paper Table 2: 10 and 50)", min=1)
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
    rbo_p: float = param(0.9, "RBO persistence (method rbo)", min=0.0, max=1.0)
    ties: str = param("trec_eval", "tie rule ordering every ranking", choices=("trec_eval", "float64", "input_order"))
    long_document: int | None = param(None, "documents with more than S sentences: the paper's document mode "
                                      "(greedy eq. 5 over chunks); rank with maxp:SPEC:3 so the ranking score is "
                                      "the explained one", min=1)
    chunk_sentences: int = param(3, "sentences per chunk in document mode (paper: 3)", min=1)
    subdoc: str | None = param(None, "sub-document relevance file for MER (doc_id, unit, relevant), or 'demo'",
                               path=True)
    embedder: str = param("minilm", "embedder of MER's cosine (the paper: cosine, vectors not stated; its "
                          "reference code: bag-of-words counts, nearest here: tfidf)")
    mer_missing: str = param("zero", "top-k documents without relevant units in MER: zero (eq. 3) or skip",
                             choices=("zero", "skip"))
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
        return problems


def _ms(p: Params) -> Any:
    from .consistency import PAPER_M

    return PAPER_M if p.m is None else p.m


def _candidates(collection: Any, queries: Any, rankers: dict[str, Any], p: Params, engine: Any) -> Any:
    """The (query_id, doc_id) pairs every model re-ranks."""
    from ..errors import ValidationError
    from ..rankers import make_ranker
    from .consistency import rank_candidates

    qids = set(queries["query_id"])
    if p.run or p.candidates == "run":
        from ..io import read_run
        from ..io.frames import rank_run

        run = rank_run(read_run(p.run), ties=p.ties)
        run = run[run["query_id"].isin(qids) & run["doc_id"].isin(set(collection.docs)) & (run["rank"] <= p.pool)]
        if run.empty:
            raise ValidationError(f"params.run: {p.run} has no documents of the collection for its queries")
        return run[["query_id", "doc_id"]]
    if p.candidates == "all":
        return None
    if p.candidates == "qrels":
        if collection.qrels is None or collection.qrels.empty:
            raise ValidationError("params.candidates: 'qrels' needs a collection with qrels")
        q = collection.qrels
        return q[q["doc_id"].isin(set(collection.docs)) & q["query_id"].isin(qids)][["query_id", "doc_id"]]
    if p.pool_model and p.pool_model not in rankers:
        raise ValidationError(f"params.pool_model: {p.pool_model!r} is not one of the models {sorted(rankers)}")
    pool_ranker = rankers[p.pool_model] if p.pool_model else make_ranker("bm25", corpus=_texts(collection))
    cand = rank_candidates(pool_ranker, queries, collection.docs, ties=p.ties, engine=engine)
    return cand[cand["rank"] <= p.pool][["query_id", "doc_id"]]


def _texts(collection: Any) -> list[str]:
    from ..specs import collection_texts

    return collection_texts(collection)


def _subdoc(p: Params) -> Any:
    from .files import read_subdoc_qrels

    if p.subdoc == "demo":
        from ..datasets.demo import load_demo_subdoc_qrels

        return read_subdoc_qrels(load_demo_subdoc_qrels())
    return read_subdoc_qrels(p.subdoc) if p.subdoc else None


def _common(collection: Any, rankers: dict[str, Any], p: Params, seed: int, engine: Any) -> dict[str, Any]:
    from ..embedders import make_embedder
    from ..errors import ValidationError
    from .files import read_rationales
    from .occlusion import OcclusionExplainer

    subdoc = _subdoc(p)
    rationales = None
    if p.rationales:
        if len(rankers) != 1:
            raise ValidationError("params.rationales: rationales belong to one model; give exactly one model")
        rationales = {next(iter(rankers)): read_rationales(p.rationales, docs=collection.docs)}
    explainer = OcclusionExplainer(n=p.n, samples=p.samples, seed=seed, normalize=p.normalize,
                                   aggregate=p.aggregate, long_document=p.long_document,
                                   chunk_sentences=p.chunk_sentences)
    return dict(qrels=collection.qrels, ks=p.k, mer_k=p.mer_k, method=p.method, p=p.rbo_p, explainer=explainer,
                rationales=rationales, subdoc=subdoc, mer_missing=p.mer_missing, ties=p.ties,
                pseudo_order=p.pseudo_order, engine=engine,
                embedder=make_embedder(p.embedder, corpus=_texts(collection)) if subdoc is not None else None)


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """MRC@k (and MER@k with ``subdoc``) of every model on the (first ``max_queries``) queries;
    each model re-ranks the candidates (:class:`Params` ``candidates``), the top documents are
    explained, plus sweeps over ``m`` (``sweep_m``) and window widths (``sweep_w``)."""
    from ..declare import params_dict
    from ..specs import build_models, need_models, skipped_warnings
    from ..rankers import make_ranker
    from .consistency import explanation_consistency, explanation_sweep

    p = params
    rankers, skipped = build_models(models, make_ranker, _texts(collection))
    need_models("explain", rankers, 1, skipped)
    queries = collection.queries if p.max_queries is None else collection.queries.head(p.max_queries)
    cand = _candidates(collection, queries, rankers, p, engine)
    kw = _common(collection, rankers, p, seed, engine)
    stats = {"confidence": p.confidence, "ci_resamples": p.ci_resamples, "test": p.test, "seed": seed}
    results = [explanation_consistency(rankers, queries, collection.docs, candidates=cand,
                                       granularities=p.granularities, m=_ms(p), stats=stats,
                                       display_queries=p.display_queries, display_docs=p.display_docs, **kw)]
    if p.sweep_m or p.sweep_w:
        results.append(explanation_sweep(rankers, queries, collection.docs, candidates=cand,
                                         ms=p.sweep_m or (p.m or 1,), windows=p.sweep_w,
                                         granularities=p.granularities if p.sweep_m else (), **kw))
    warn = skipped_warnings(skipped)
    return [_with_params(r.with_warnings(*warn), {"analysis_params": params_dict(p)}) for r in results]


def _with_params(result: Any, extra: dict[str, Any]) -> Any:
    """The result with the analysis's full ``Params`` in its provenance params."""
    from dataclasses import replace

    prov = replace(result.provenance, params={**dict(result.provenance.params), **extra})
    return replace(result, provenance=prov)


_E = "ranklens.explain.plots"
ANALYSIS = Analysis(
    name="explain",
    title="Explanation consistency",
    params=Params,
    run="ranklens.explain.declaration:run",
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
                   model_rows=ModelRows("model", ("mrc@10", "mrc@50", "mer@10", "mer@50", "ndcg@10"),
                                        items=("granularity",)),
                   higher_is_better={"mrc@10": True, "mrc@50": True, "mer@10": True, "mer@50": True,
                                     "ndcg@10": True}),
        ResultKind("explain-rationales", "Rationales", extra_html="ranklens.explain.display:result_html"),
        ResultKind("explain-sweep", "Sweep", plots=(f"{_E}:plot_sweep", f"{_E}:plot_sweep_w")),
    ),
    demo={"subdoc": "demo", "pool": 20, "max_queries": 10, "m": 3, "k": (10,), "mer_k": (10,), "samples": 12,
          "sweep_m": (1, 2, 3, 4)},
)
