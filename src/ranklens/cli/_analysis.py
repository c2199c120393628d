"""``ranklens NAME``: one subcommand per registered analysis, derived from its declaration.

Options: the dataset (``--collection``, or ``--qrels``/``--runs`` for a track), the models
(``--model SPEC`` or ``NAME=SPEC``, repeatable, and ``--model-param NAME.KEY=VALUE``), ``--out``, ``--seed``, and one option per field
of the analysis's ``Params`` (every default shown in ``--help``). It calls the same driver with
the same ``Params`` as an experiment step, writes ``OUT/<kind>/`` for every result (with the PNG
plots its kind declares) and prints each result's summary.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..declare import Analysis, add_cli_options, params_from_args, resolve


def add_analysis_parser(sub: argparse._SubParsersAction, analysis: Analysis) -> argparse.ArgumentParser:
    p = sub.add_parser(analysis.name, help=analysis.help or analysis.title,
                       description=f"{analysis.title}. {analysis.description}".strip())
    data = p.add_argument_group("data and models")
    data.add_argument("--collection", metavar="SPEC",
                      help="collection spec: demo, a directory, irds:<id>")
    data.add_argument("--qrels", metavar="FILE", help="qrels file (replaces the collection's qrels)")
    data.add_argument("--runs", dest="track_runs", metavar="PATH",
                      help="run file or directory of run files (a track: no documents needed)")
    data.add_argument("--model", action="append", default=[], metavar="SPEC",
                      help="model spec (bm25, tfidf, minilm, st:PATH, callable:MOD:FN for FN(queries, texts) -> scores, "
                           "callable-pair:MOD:FN for FN(query, text) -> float, ...) or NAME=SPEC; repeatable")
    data.add_argument("--model-param", action="append", default=[], metavar="NAME.KEY=VALUE",
                      help="a parameter of one model, as in an experiment file's [models.NAME] table "
                           "(e.g. w2v.tokenizer=spacy, bm25.k1=1.2; VALUE read as JSON when it parses); repeatable")
    data.add_argument("--out", required=True, metavar="DIR", help="output directory: one folder per result kind")
    data.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    data.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    add_cli_options(p, analysis.params)
    if analysis.tools:
        resolve(analysis.tools)(p)
    p.set_defaults(func=_run, analysis=analysis.name)
    return p


def _run(args: argparse.Namespace) -> int:
    from ..drive import load_dataset, models_from_specs, run_analysis, save_results, summary_text
    from ..errors import ValidationError
    from ..registry import get_analysis

    analysis = get_analysis(args.analysis)
    params = params_from_args(analysis.params, args)  # validated before any data or model loads
    models = models_from_specs(args.model, args.model_param)
    if len(models) < analysis.min_models:
        raise ValidationError(f"{analysis.name} needs at least {analysis.min_models} --model")
    entry: dict[str, Any] = {"spec": args.collection, "qrels": args.qrels, "runs": args.track_runs}
    if args.collection or args.qrels or args.track_runs or analysis.needs_collection:
        coll = load_dataset(args.collection or "cli", entry)
    else:  # an analysis that runs on its own inputs (neighbors --sentences FILE)
        coll = None
    results = run_analysis(analysis, coll, models, params, engine=None, seed=args.seed)
    dirs = save_results(results, args.out, plots=not args.no_plots)
    sys.stdout.write(summary_text(results, dirs))
    for res in results:
        for w in res.warnings:
            print(f"ranklens: warning: {res.kind}: {w}", file=sys.stderr)
    return 0
