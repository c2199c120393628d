"""Options and output helpers shared by ``ranklens evaluate`` and ``ranklens asl``."""

from __future__ import annotations

import argparse
import json
import sys

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
