"""``ranklens results list|show|compare|reindex RESULTS_DIR``: query the results store;
``ranklens results diff A B``: two result sets side by side, with the provenance that differs."""

from __future__ import annotations

import argparse
import json

from ._unread import Reader, refuse_unread


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="list, show and compare stored results without loading tables")
    p.add_argument("action", choices=["list", "show", "compare", "reindex", "diff"])
    p.add_argument("dir", help="results directory")
    p.add_argument("id", nargs="?", help="with show: result id (prefix) or name; with diff: the second results "
                   "directory (B); with compare: the metric (as --metric)")
    p.add_argument("--kind", help="filter by analysis kind (trailing * = prefix)")
    p.add_argument("--model", help="filter by model (with compare: comma-separated model columns)")
    p.add_argument("--dataset")
    p.add_argument("--metric", help="with compare: one metric")
    p.add_argument("--format", choices=["tsv", "json", "markdown", "html"], default=None,
                   help="list, compare: tsv (default) or json; diff: tsv (text, default), markdown, html or json; "
                        "show prints JSON")
    p.add_argument("--changed", action="store_true", help="with diff: only the numbers that changed")
    p.set_defaults(func=run, engine_options=())  # runs no model: ranklens.cli.ENGINE_OPTIONS


#: the actions that read each option (any other action refuses it: it would be ignored)
READERS = {
    "id": Reader("the second argument (ID)", ("show", "diff", "compare")),
    "kind": Reader("--kind", ("list", "compare")),
    "model": Reader("--model", ("list", "compare")),
    "dataset": Reader("--dataset", ("list", "compare")),
    "metric": Reader("--metric", ("compare",)),
    "format": Reader("--format", ("list", "compare", "diff", "show")),
    "changed": Reader("--changed", ("diff",)),
}
#: the formats each action writes (another would be written as its default: refused)
FORMATS = {"list": ("tsv", "json"), "compare": ("tsv", "json"), "diff": ("tsv", "markdown", "html", "json"),
           "show": ("json",)}


def run(args: argparse.Namespace) -> int:
    from ..errors import IgnoredOptionError, ValidationError
    from ..files import existing_dir
    from ..store import ResultsStore

    refuse_unread(args, "results", args.action, READERS)
    if args.format is not None and args.format not in FORMATS.get(args.action, (args.format,)):
        raise IgnoredOptionError(f"ranklens results {args.action}: --format {args.format} is not a format of "
                                 f"{args.action} (it writes {' or '.join(FORMATS[args.action])}); give one of those "
                                 "(an ignored option is an error)")
    existing_dir(args.dir, what="results directory")  # never create one by asking about it
    if args.action == "diff":
        return _diff(args)
    store = ResultsStore(args.dir)
    if args.action == "reindex":
        import sys

        edited: list[str] = []
        n = store.reindex(warnings=edited)
        for w in edited:  # a result edited after saving is indexed, never without a word
            print(f"ranklens: warning: {w}", file=sys.stderr)
        print(f"indexed {n} results in {store.root}")
        return 0
    if args.action == "show":
        if not args.id:
            raise ValidationError("results show needs a result id or name (see `ranklens results list`)")
        print(json.dumps(store.get(args.id), indent=2, sort_keys=True))
        return 0
    if args.action == "list":
        frame = store.list(kind=args.kind, model=args.model, dataset=args.dataset)
    else:
        if args.id and args.metric and args.id != args.metric:
            raise ValidationError(f"results compare: the metric is given twice ({args.id!r} and --metric "
                                  f"{args.metric!r}); give one")
        frame = store.compare(args.id or args.metric, analysis=args.kind).reset_index()
        if args.dataset and "dataset" in frame:
            frame = frame[frame["dataset"] == args.dataset]
        if args.model:
            models = [m for m in args.model.split(",") if m in frame.columns]
            if not models:
                raise ValidationError(f"--model {args.model!r}: no such model in the store")
            frame = frame[[c for c in ("analysis", "dataset", "item", "metric") if c in frame] + models]
    if args.format == "json":
        print(frame.to_json(orient="records", indent=2))
    else:
        print(frame.to_csv(sep="\t", index=False), end="")
    return 0


def _diff(args: argparse.Namespace) -> int:
    from ..diff import diff_results
    from ..errors import ValidationError
    from ..files import existing_dir

    if not args.id:
        raise ValidationError("results diff needs two results directories: ranklens results diff A B")
    existing_dir(args.id, what="results directory")
    d = diff_results(args.dir, args.id)
    if args.format == "markdown":
        print(d.to_markdown(changed_only=args.changed), end="")
    elif args.format == "html":
        print(d.to_html(changed_only=args.changed))
    elif args.format == "json":
        rows = [{**n.__dict__, "change": n.change, "changed": n.changed} for n in d.numbers
                if n.changed or not args.changed]
        print(json.dumps(rows, indent=2, default=str))
    else:
        print(d.to_text(changed_only=args.changed), end="")
    return 0
