"""The ``asl`` analysis: atomized search length (Alex, Hall & Metzler) -- the evaluation table,
the per-document distribution, RRIE, the MAP -> ASL chain (Table 2 of one track) and MAP
coverage (Appendix A.1). Declared once; the CLI (``ranklens asl``, with the file tools
``ranklens asl distribution|rrie|chain|coverage|tracks|groups|ties``, and the top-level command
``ranklens evaluate``), experiment files (``type = "asl"``), the demo and the report derive from it.
The driver is :mod:`ranklens.asl.driver`, the file tools :mod:`ranklens.asl.tools`.

Defaults follow the paper: unretrieved relevant documents get eq. 3 (``unretrieved="paper"``),
"better" in ΔSort is 10% and a two-tailed t-test at 0.05, RRIE's measures are Table 1's.
The paper's test is "a two-tailed Student t-test on the per-query metrics", not said to be
paired; ranklens runs the paired test (the systems' per-query values are over the same queries):
that is ranklens's reading, not the paper's words. Every alternative is a named parameter,
recorded once in each result's provenance by the door (``provenance.analysis_params``). ``missing``, ``depth`` and
``grades`` apply alike to every result: the evaluation table, the per-document distribution,
RRIE, the chain and MAP coverage.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..declare import Analysis, ModelRows, ResultKind, param
from ..errors import ValidationError
from ..types import TIE_RULES

__all__ = ["ANALYSIS", "Params"]

_MEASURES = ("ASL", "ASL@g1-1", "ASL@g1-10", "AP", "P@20", "RR", "nDCG@10")


@dataclass(frozen=True)
class Params:
    k: int = param(100, "depth of the runs made from the models (retrieve / re-rank top k)", min=1)
    measures: tuple[str, ...] = param(_MEASURES, "measures of the evaluation table (ASL forms: ASL, "
                                                 "ASL@g1-N, ASL(rel=2), ASL@CUTOFF; any ir_measures measure)")
    baseline: str | None = param(None, "model the others are tested against (default: the deepest run -- "
                                       "most documents per query, median -- the first given among equally "
                                       "deep ones; never a shallower run, which ASL would favour)")
    compare: tuple[str, ...] = param((), "two models A,B for the distribution and RRIE (default: the "
                                         "baseline and the best other model by ASL)")
    rel: int = param(1, "minimum relevance grade counted as relevant (trec_eval -l)", min=1)
    grades: tuple[str, ...] = param((), "qrels grade mapping OLD=NEW applied first, e.g. 1=0, or "
                                        "nist-dl20 (NIST's official DL 2020 trec_eval convention)")
    unretrieved: str = param("paper", "SL of a relevant document the run did not retrieve: paper = "
                                      "eq. 3 (non-relevant retrieved), lower_bound = that + 1, expected = "
                                      "uniformly placed in the collection (needs collection_size)",
                             choices=("paper", "lower_bound", "expected"))
    collection_size: int | None = param(None, "documents in the collection (unretrieved=expected)", min=1,
                                        applies_when={"unretrieved": ("expected",)})
    ties: str = param("trec_eval", "tie rule: trec_eval = float32 scores, doc_id descending", choices=TIE_RULES)
    missing: str = param("skip", "judged queries a run does not answer: skip (trec_eval), zero (standard "
                                 "measures 0, ASL the worst case), error", choices=("skip", "zero", "error"))
    duplicates: str = param("error", "a (query, doc) pair listed twice: error, or best (keep its best rank)",
                            choices=("error", "best"))
    depth: int | None = param(None, "cut every run to its top DEPTH documents per query first "
                                    "(a common depth; default: as given)", min=1)
    depth_ratio: float = param(2.0, "warn when a run lists fewer than its median depth / this factor "
                                    "for some query", min=1.0)
    n_resamples: int = param(5000, "resamples of the randomisation tests and bootstrap CIs (the paper "
                                   "uses t-tests only; 5000 as `ranklens evaluate`)", min=1)
    correction: str = param("holm", "multiple-testing correction of the baseline tests",
                            choices=("holm", "bonferroni", "bh", "none"))
    confidence: float = param(0.95, "level of the bootstrap confidence intervals", min=0.5, max=0.999)
    min_rel_diff: float = param(0.10, "ΔSort: a system is better when its metric is this much better (paper: "
                                      "10%) ...", min=0.0)
    alpha: float = param(0.05, "... and a two-tailed t-test on the per-query values gives p <= alpha "
                               "(paper: 0.05; the paper's 'Student t-test' does not say paired: ranklens "
                               "reads it as the paired test)",
                         min=0.0, max=1.0)
    better_space: str = param("metric", "ΔSort's 10%: in each metric's own direction (metric, the paper) or "
                                        "on precision-space values (precision)", choices=("metric", "precision"))
    tau_digits: int = param(4, "significant digits the chain values keep before Kendall's tau-b (ties "
                               "stay ties)", min=1, max=17)
    places: int = param(4, "decimal places of the tables the file tools print", min=0, max=12, tools_only=True)

    def check(self) -> list[str]:
        out = [] if len(self.compare) in (0, 2) else [f"compare: give two models, got {list(self.compare)}"]
        if self.unretrieved == "expected" and self.collection_size is None:
            out.append("unretrieved=expected needs collection_size")
        from .inputs import parse_grade_mapping

        try:
            parse_grade_mapping(self.grades)
        except ValidationError as exc:
            out.append(str(exc))
        from .measures import parse_measure, trec_hint

        for m in self.measures:  # checked here, so `run --check` and every door stop before any work
            try:
                parse_measure(m)
            except ValidationError as exc:
                out.append(f"measures: {m!r}: {exc}{trec_hint(m)}")
        return out


_M = "ranklens.asl.plots"
ANALYSIS = Analysis(
    name="asl",
    title="Atomized search length",
    params=Params,
    run="ranklens.asl.driver:run",
    help="atomized search length: evaluation, distribution, RRIE, MAP -> ASL chain, MAP coverage; "
         "file tools: distribution|rrie|chain|coverage|tracks|groups|ties",
    description="ASL (Alex, Hall & Metzler) of every model's run (or of --runs files) against the qrels. "
                "File tools (options of `ranklens asl` go before the tool name): "
                "ranklens asl --out DIR tracks DIR_OF_TRACKS gives the paper's Table 2 across tracks.",
    needs_qrels=True,
    reads_runs="instead",  # a track's run files are evaluated instead of the models' runs
    min_models=0,  # a track (--runs) needs no model
    tools="ranklens.asl.tools:add_tools",
    commands={"evaluate": "ranklens.asl.evaluate_cli:add_evaluate"},
    kinds=(
        ResultKind("asl-evaluate", "Evaluation", findings="ranklens.asl.findings:asl_evaluate",
                   significance="ranklens.asl.findings:sig_asl_evaluate",
                   plots=(f"{_M}:plot_evaluation",),
                   model_rows=ModelRows("model", ("ASL", "ASL@g1-1", "ASL@g1-10", "AP", "P@20", "RR", "nDCG@10"),
                                        n="n_queries"),
                   higher_is_better={"ASL": False, "ASL@g1-1": False, "ASL@g1-10": False, "AP": True, "nDCG@10": True},
                   summary={"baseline": "text", "measures": "list of text"}),
        ResultKind("asl-rrie", "Relative reduction in error", findings="ranklens.asl.findings:asl_rrie",
                   plots=(f"{_M}:plot_rrie",), summary={"a": "text", "b": "text"}),
        ResultKind("asl-distribution", "Per-document search lengths",
                   findings="ranklens.asl.findings:asl_distribution",
                   plots=(f"{_M}:plot_distribution", f"{_M}:plot_deltas")),
        ResultKind("asl-chain", "MAP -> ASL (Table 2, one track)", findings="ranklens.asl.findings:asl_chain",
                   plots=(f"{_M}:plot_chain",)),
        ResultKind("asl-map-coverage", "MAP coverage (Appendix A.1)",
                   model_rows=ModelRows("model", ("coverage", "coverage_docs"), n="queries")),
        ResultKind("asl-tracks", "Best system per track", plots=(f"{_M}:plot_tracks",)),
        ResultKind("asl-table2", "Table 2 across tracks"),
        ResultKind("asl-groups", "Best system of each run group (Table 1)"),
        ResultKind("asl-ties", "Score ties"),
    ),
    demo={"k": 50, "compare": ("bm25", "minilm")},
    demo_full={"k": 100, "compare": ("bm25", "minilm")},
)

