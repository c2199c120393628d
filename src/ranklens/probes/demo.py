"""``run_demo``: the probes on the demo collection with BM25, TF-IDF and MiniLM (about a minute
of CPU): measure-and-match and manipulation probes on the demo's judged documents (capped), and
the demo pair probes (fluency, formality, ...). δ is calibrated on the demo collection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..results import Result

__all__ = ["run_demo"]

DEMO_CAP = 40


def run_demo(out_dir: Path, *, engine: Any = None) -> list[Result]:
    """Run the probe demo and save ``out_dir/probe-table-demo`` and
    ``out_dir/probe-delta-sweep-demo``.

    Returns:
        ``[probe-table, probe-delta-sweep]`` results.
    """
    from ..datasets.demo import load_demo
    from ..rankers import make_ranker
    from . import delta_sweep, get_probe, run_probes, select_probes
    from .delta import DeltaSpec

    out_dir = Path(out_dir)
    coll = load_demo()
    names = [n for n in select_probes(["mm-rel-*", "mm-len-ctrl-rel", "mm-tf-ctrl-rel", "mm-overlap-ctrl-rel",
                                       "tr-*", "demo-*"])
             if not (n.endswith("-rel") and n.startswith("tr-")) and not n.endswith("-nonrel")]
    probes = [get_probe(n, cap=DEMO_CAP) for n in names]
    rankers = {"bm25": make_ranker("bm25", corpus=coll.docs), "tfidf": make_ranker("tfidf", corpus=coll.docs),
               "minilm": make_ranker("minilm")}
    res = run_probes(probes, rankers, coll, delta=DeltaSpec(max_queries=30, depth=20), engine=engine, seed=0)
    res.save(out_dir / "probe-table-demo")
    sweep = delta_sweep(res, probes=["tr-shuffle-words", "tr-shuffle-sents", "demo-fluency"])
    sweep.save(out_dir / "probe-delta-sweep-demo")
    return [res, sweep]
