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

from ..declare import Analysis, add_cli_options, params_from_args, resolve, tools_only_problems


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
        _refuse_unread_before_tools(p, analysis.name)
    p.set_defaults(func=_run, analysis=analysis.name)
    return p


def _option_name(action: argparse.Action) -> str:
    return max(action.option_strings, key=len)


def _refuse_unread_before_tools(parser: argparse.ArgumentParser, name: str) -> None:
    """Each file tool that declares what it reads (``set_defaults(tool_reads=(...))``: ``Params`` field
    names and ``out``, ``seed``, ``no_plots``) refuses every other option of ``ranklens NAME`` given before
    its name: the tool would ignore it. One line names the option, the tool and the fix (exit 2)."""
    tools = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if tools is None:
        return
    own = [a for a in parser._actions if a.option_strings and a.dest not in ("help", argparse.SUPPRESS)]
    for tool, sp in tools.choices.items():
        reads = sp.get_default("tool_reads")
        func = sp.get_default("func")
        if reads is None or func is None:
            continue

        def checked(args: argparse.Namespace, *, _func=func, _tool=tool, _reads=frozenset(reads),
                    _sp=sp) -> int:
            for a in own:
                key = a.dest[2:] if a.dest.startswith("p_") else a.dest
                tool_has = any(t.dest == a.dest for t in _sp._actions)  # given after the tool name: the tool's
                if key in _reads or tool_has or getattr(args, a.dest, a.default) in (a.default, None, []):
                    continue
                from ..errors import IgnoredOptionError

                reads = ", ".join(sorted("--" + r.replace("_", "-") for r in _reads))
                reads = f"of the options of `ranklens {name}` it reads {reads}" if reads else \
                    f"it reads none of the options of `ranklens {name}`"
                raise IgnoredOptionError(f"ranklens {name} {_tool}: {_option_name(a)} (before the tool name) is "
                                         f"ignored by the {_tool} tool ({reads}); drop it (an ignored option is an "
                                         "error)")
            return int(_func(args) or 0)

        sp.set_defaults(func=checked)


def _refuse_unread_inputs(analysis: Analysis, args: argparse.Namespace) -> None:
    """The dataset options the analysis would not read, refused (declared: ``reads_qrels``, ``reads_runs``)."""
    from ..errors import IgnoredOptionError

    why = None
    if args.track_runs and analysis.reads_runs is None:
        why = f"--runs is ignored by {analysis.name} (it reads no run files); drop it"
    elif args.track_runs and analysis.reads_runs == "instead" and (args.model or args.model_param):
        why = (f"--model is ignored by {analysis.name} when --runs is given (the run files are evaluated instead "
               "of the models' runs); give --runs or --model")
    elif args.qrels and not analysis.reads_qrels:
        why = f"--qrels is ignored by {analysis.name} (it reads no relevance judgements); drop it"
    if why:
        raise IgnoredOptionError(f"{why} (an ignored option is an error)")


def _run(args: argparse.Namespace) -> int:
    from ..drive import load_dataset, models_from_specs, run_analysis, save_results, summary_text
    from ..errors import ValidationError
    from ..registry import get_analysis

    analysis = get_analysis(args.analysis)
    params = params_from_args(analysis.params, args)  # validated before any data or model loads
    unread = tools_only_problems(params, where="option")  # as the door says, with the option as typed
    if unread:
        from ..errors import IgnoredOptionError

        raise IgnoredOptionError("; ".join(unread).replace("option.", "--").replace("_", "-"))
    _refuse_unread_inputs(analysis, args)
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
