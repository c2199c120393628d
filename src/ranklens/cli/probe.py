"""``ranklens probe``: ABNIRML behavioural probes for one or more rankers.

Example::

    ranklens probe --collection ../shared/data/cranfield --ranker bm25 --ranker minilm \\
        --probe 'mm-*' --probe 'tr-*' --data-dir ../shared/data --out out/probes
    ranklens probe --collection demo --ranker bm25 --ranker toy --probe 'tr-*' \\
        --delta p25 --delta toy=0.01 --plot-diffs --out out/probes

Results accumulate in ``--out``: running again with another ``--ranker`` scores only that
ranker, and the table lists every stored ranker whose scores match the current samples.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "probe", help="ABNIRML behavioural probes (measure-and-match, manipulation, dataset transfer)",
        description=(__doc__ or "").split("\n\n")[0],
        epilog="List probes with `ranklens ls probes`. Sign: diff = R(q,d1) - R(q,d2); manipulation "
               "d1 = manipulated text; measure-and-match d1 = more of the variable; transfer d1 = "
               "attributed text (fluent, formal, simple, neutral, summary, factual).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ranker", action="append", required=True, metavar="SPEC",
                   help="bm25, tfidf, minilm, st:NAME|PATH, cross-encoder:PATH, monot5:PATH, "
                        "callable:MODULE:FUNC, toy; repeatable; LABEL=SPEC names a column")
    p.add_argument("--probe", action="append", required=True, metavar="NAME|GLOB",
                   help="probe names or globs (comma-separated or repeated), e.g. 'mm-*' 'tr-shuffle-*'")
    p.add_argument("--probe-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="probe option, e.g. cap=500, misspellings=FILE, expander=DIR, path=FILE")
    p.add_argument("--collection", help="collection spec for measure-and-match/manipulation probes "
                                         "and delta calibration (demo, a directory, irds:ID)")
    p.add_argument("--data-dir", help="folder with the dataset-transfer data (mrpc/, jfleg/, ...); "
                                       "default $RANKLENS_SHARED_DATA or ../shared/data when present")
    p.add_argument("--delta", action="append", default=[], metavar="[LABEL=]VALUE",
                   help="'calibrate' (median adjacent top-10 diff on --collection; default), 'pNN' "
                        "(percentile) or a number; VALUE alone applies to every model, LABEL=VALUE "
                        "to one ranker (repeatable, e.g. --delta p25 --delta bm25=0.5)")
    p.add_argument("--calib-queries", type=int, default=50, help="queries used for calibration")
    p.add_argument("--calib-depth", type=int, default=20, help="BM25 depth re-ranked for calibration")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--alpha", type=float, default=0.01)
    p.add_argument("--correction", default="bonferroni", choices=["bonferroni", "holm", "bh", "none"])
    p.add_argument("--out", required=True, help="output directory (result store)")
    p.add_argument("--format", choices=["text", "markdown"], default="text")
    p.add_argument("--sweep", action="store_true", help="also write a delta sweep and its plot")
    p.add_argument("--plot-diffs", nargs="?", const="", default=None, metavar="PNG",
                   help="write the distribution of score differences per probe and model (diff / "
                        "delta) as a PNG (default OUT/probe-table/diff_distributions.png)")
    p.set_defaults(func=run)


def _value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _options(items: list[str]) -> dict[str, Any]:
    from ..errors import ValidationError

    out = {}
    for it in items:
        if "=" not in it:
            raise ValidationError(f"--probe-opt expects KEY=VALUE, got {it!r}")
        k, v = it.split("=", 1)
        out[k.strip()] = _value(v.strip())
    return out


def build_ranker(spec: str, collection: Any = None) -> Any:
    """Ranker from a CLI spec; ``toy`` is :class:`ranklens.testing.OverlapRanker`; BM25/TF-IDF
    are fitted on the collection's documents when one is given."""
    if spec == "toy":
        from ..testing import OverlapRanker

        return OverlapRanker()
    from ..rankers import make_ranker

    kind = spec.split(":")[0]
    if kind in ("bm25", "tfidf"):
        if collection is None:
            from ..errors import ValidationError

            raise ValidationError(f"ranker {spec!r} needs corpus statistics: give --collection")
        return make_ranker(spec, corpus=collection.docs)
    return make_ranker(spec)


def default_data_dir() -> str | None:
    env = os.environ.get("RANKLENS_SHARED_DATA")
    if env:
        return env
    guess = Path("..") / "shared" / "data"
    return str(guess) if guess.is_dir() else None


def run(args: argparse.Namespace) -> int:
    from ..errors import ValidationError
    from ..probes import (
        delta_sweep,
        format_table,
        plot_delta_sweep,
        plot_diff_distributions,
        run_probes,
        select_probes,
    )
    from ..probes.base import PROBES

    collection = None
    if args.collection:
        from ..probes._collections import load_collection_any

        collection = load_collection_any(args.collection)
    names = select_probes(args.probe)
    if collection is None:
        need = [n for n in names if PROBES[n].needs_collection]
        if need:
            raise ValidationError(f"probes {', '.join(need[:5])} need --collection (judged documents)")
    opts = _options(args.probe_opt)
    opts.setdefault("data_dir", args.data_dir or default_data_dir())
    rankers = {}
    for spec in args.ranker:
        label, _, s = spec.partition("=") if "=" in spec.split(":")[0] else (spec, "", spec)
        rankers[label] = build_ranker(s, collection)
    deltas = delta_specs(args.delta, list(rankers), calib_queries=args.calib_queries,
                         calib_depth=args.calib_depth, seed=args.seed)
    if collection is None:
        calibrated = [k for k, v in deltas.items() if v.mode != "explicit"]
        if calibrated:
            raise ValidationError(f"a calibrated delta ({', '.join(calibrated)}) needs "
                                  "--collection; or give --delta NUMBER (or LABEL=NUMBER)")
    res = run_probes(names, rankers, collection, delta=deltas, seed=args.seed, alpha=args.alpha,
                     correction=args.correction, out_dir=args.out, probe_options=opts)
    sys.stdout.write(format_table(res, fmt=args.format))
    for name, why in res.summary.get("skipped", {}).items():
        sys.stderr.write(f"ranklens: skipped {name}: {why}\n")
    if args.sweep and not res.tables["calibration"].empty:
        sw = delta_sweep(res)
        sw.save(Path(args.out) / "probe-delta-sweep")
        plot_delta_sweep(sw).savefig(Path(args.out) / "probe-delta-sweep" / "sweep.png", dpi=120)
    if args.plot_diffs is not None:
        png = Path(args.plot_diffs) if args.plot_diffs else (
            Path(args.out) / "probe-table" / "diff_distributions.png")
        png.parent.mkdir(parents=True, exist_ok=True)
        plot_diff_distributions(res).savefig(png, dpi=110)
        sys.stderr.write(f"ranklens: wrote {png}\n")
    return 0


def delta_specs(items: list[str], labels: list[str], *, calib_queries: int = 50,
                calib_depth: int = 20, seed: int = 0) -> dict[str, Any]:
    """``--delta`` values -> ``{label: DeltaSpec}`` for every ranker label.

    ``VALUE`` (at most one) applies to every ranker without a ``LABEL=VALUE`` of its own;
    without any, δ is calibrated. Calibrated specs get the ``--calib-*`` settings.
    """
    from dataclasses import replace

    from ..errors import ValidationError
    from ..probes.delta import parse_delta

    default: str | None = None
    per: dict[str, str] = {}
    for it in items:
        label, sep, value = it.partition("=")
        if not sep:
            if default is not None:
                raise ValidationError(f"--delta given twice for every model ({default!r} and "
                                      f"{it!r}); use LABEL=VALUE for one model")
            default = it
            continue
        label, value = label.strip(), value.strip()
        if label not in labels:
            raise ValidationError(f"--delta {it!r}: no ranker is labelled {label!r} (rankers: "
                                  f"{', '.join(labels)}); name one with --ranker LABEL=SPEC")
        if label in per:
            raise ValidationError(f"--delta for {label!r} given twice ({per[label]!r}, {value!r})")
        per[label] = value
    out = {}
    for label in labels:
        spec = parse_delta(per.get(label, default if default is not None else "calibrate"))
        if spec.mode != "explicit":
            spec = replace(spec, max_queries=calib_queries, depth=calib_depth, seed=seed)
        out[label] = spec
    return out
