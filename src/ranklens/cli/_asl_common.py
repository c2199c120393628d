"""Options and output helpers shared by ``ranklens evaluate`` and ``ranklens asl``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

FORMATS = ("tsv", "jsonl", "table")


def add_convention_options(p: argparse.ArgumentParser) -> None:
    """--ties, --rel, --unretrieved, --collection-size, --missing."""
    p.add_argument("--ties", default="trec_eval", choices=["trec_eval", "float64", "input_order"],
                   help="tie rule: trec_eval = float32 scores, doc_id descending (default)")
    p.add_argument("--rel", type=int, default=1,
                   help="minimum relevance for binary measures and ASL (like trec_eval -l)")
    p.add_argument("--unretrieved", default="lower_bound",
                   choices=["lower_bound", "paper", "expected"],
                   help="ASL of relevant docs the run never retrieved (default lower_bound = "
                        "non-relevant retrieved + 1; paper = non-relevant retrieved)")
    p.add_argument("--collection-size", type=int, default=None,
                   help="number of documents in the collection (for --unretrieved expected)")
    p.add_argument("--missing", default="skip", choices=["skip", "zero", "error"],
                   help="judged queries absent from a run: skip (trec_eval default), zero (-c)")
    p.add_argument("--duplicates", default="error", choices=["error", "best"],
                   help="a (query, doc) pair listed twice in a run: error (default) or best "
                        "(keep its best-ranked row; every measure sees the same ranking)")


def collect_runs(items: list[str]) -> dict[str, Any]:
    """Run files and directories of runs -> ``{name: path}``, names unique.

    A run is named by its file name (suffixes such as ``.gz``/``.run`` dropped). When several
    runs share a name (``official/dl20/p_bm25`` and ``official_full_depth/dl20/p_bm25``), each
    of them is named by as many parent folders as it takes to tell them apart
    (``official/dl20/p_bm25``, ``official_full_depth/dl20/p_bm25``).

    Raises:
        ValidationError: when the same file is given twice, or when runs of the same name cannot
            be told apart by their folders.
    """
    from ..errors import ValidationError
    from ..metrics.evaluation import load_runs

    found: list[tuple[str, Any]] = []
    for r in items:
        found.extend(load_runs(r).items())
    by_name: dict[str, list[Any]] = {}
    for name, path in found:
        by_name.setdefault(name, []).append(path)
    out: dict[str, Any] = {}
    for name, paths in by_name.items():
        if len(paths) == 1:
            out[name] = paths[0]
            continue
        resolved = [Path(p).resolve() for p in paths]
        if len(set(resolved)) < len(resolved):
            dup = next(str(p) for p, r in zip(paths, resolved) if resolved.count(r) > 1)
            raise ValidationError(f"run file {dup} is given twice; pass each run once")
        parts = [r.parent.parts[1:] for r in resolved]  # without the root
        labels = []
        for depth in range(1, max(len(x) for x in parts) + 1):
            labels = ["/".join([*x[max(len(x) - depth, 0):], name]) for x in parts]
            if len(set(labels)) == len(labels):
                break
        if len(set(labels)) < len(labels) or any(lab in by_name or lab in out for lab in labels):
            raise ValidationError(f"{len(paths)} runs are named {name!r} ({', '.join(map(str, paths))}) "
                                  "and their folders do not tell them apart; rename the files")
        out.update(zip(labels, paths))
    return out


def resolve_run_name(name: str | None, runs: dict[str, Any]) -> str | None:
    """``name`` as a key of ``runs``: exact, or the unique run whose name ends with
    ``/name``. Raises a ValidationError listing the candidates when it is ambiguous/unknown."""
    from ..errors import ValidationError

    if name is None or name in runs:
        return name
    hits = [k for k in runs if k.endswith("/" + name)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise ValidationError(f"run name {name!r} is ambiguous: {', '.join(hits)}; give one of "
                              "these")
    raise ValidationError(f"no run is named {name!r}; runs: {', '.join(list(runs)[:12])}"
                          + (" ..." if len(runs) > 12 else ""))


def write_frame(frame, fmt: str, out=None) -> None:
    """Write a DataFrame to stdout as tsv, jsonl or an aligned table."""
    out = out or sys.stdout
    if fmt == "tsv":
        frame.to_csv(out, sep="\t", index=False, header=False, float_format="%.4f")
    elif fmt == "jsonl":
        for rec in frame.to_dict(orient="records"):
            out.write(json.dumps({k: (None if v != v else v) if isinstance(v, float) else v
                                  for k, v in rec.items()}, default=str) + "\n")
    else:
        out.write(frame.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n")
