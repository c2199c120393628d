"""Explain overhead vs document length under a constant-cost ranker (issue 22, item 6).

The ranker scores a pair by ``len(text)`` (O(1) per pair, no tokenising), so what is timed is
the explainer's own work: cutting units, building occluded texts, the engine's hashing and
bookkeeping. Timings use the fair harness (``_harness.compare_calls``: one warm-up per case,
rotating order, >= 3 repetitions, min and median). Peers, measured in the same run:

1. **document mode** (eq. 5: greedy removal over 3-sentence MaxP chunks, m = 1 and m = 3) on a
   document of S and 4S sentences (lines). ranklens keeps the two best chunks, so a candidate
   removal costs O(1); the peer ``recompute`` is the former algorithm, the max over every chunk
   recomputed for every candidate (O(S) each, O(S^2) a step). Printed: growth t(4S) / t(S)
   (linear = 4, quadratic = 16) and the ratio ranklens / recompute at 4S.
2. **passage mode, window:1, n = 1** on a document of W and 4W words: W occluded texts of about W
   words each. Their characters grow as W^2 whatever the code does (the ranker takes strings),
   so the bounded quantity is memory: the peak of Python memory (tracemalloc, measured apart from
   the timings) of ranklens (texts generated and scored in batches) vs the peer ``all at once``
   (one batch: every occluded text built before scoring, the former behaviour).

Usage: python benchmarks/bench_explain_scaling.py [--sizes 2000,8000] [--words 2000,8000] [--reps 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tracemalloc
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("RANKLENS_PROGRESS", "0")

from _harness import compare_calls, ratio  # noqa: E402


def length_ranker():
    from ranklens.rankers import FunctionRanker

    return FunctionRanker(fn=lambda qs, ts: [float(len(t)) for t in ts], name_="bench:len", version="1")


def sentences_doc(n: int) -> str:
    """``n`` sentences of different lengths, one per line (units given by lines: no segmenter
    in the timing, the explainer's own cost only)."""
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    return "\n".join(" ".join(words[(i + j) % 8] for j in range(4 + i % 5)) + "." for i in range(n))


def words_doc(n: int) -> str:
    return " ".join(f"w{i % 997}" for i in range(n))


def _recompute(self, c, v, text, top):
    """The former per-candidate evaluation: max over every non-empty chunk, O(chunks)."""
    vals = [(v if i == c else cv) for i, (cv, t) in enumerate(self.cur) if (text if i == c else t)]
    return max(vals) if vals else self.empty


@contextmanager
def patched(obj, name, value):
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


def peak_mb(fn) -> float:
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _same(x, y) -> bool:
    """Same order and weights (nan = nan: sentences never chosen)."""
    return x.order == y.order and all(a == b or (a != a and b != b) for a, b in zip(x.weights, y.weights))


def document_mode(sizes, reps, ranker):
    import ranklens.explain.occlusion as occ
    from ranklens.engine import ScoringEngine

    docs = {s: sentences_doc(s) for s in sizes}
    for m in (1, 3):
        ex = occ.OcclusionExplainer(granularity="line", long_document_sentences=1, chunk_sentences=3, greedy_steps=m)

        def run(s, peer=False, ex=ex):
            def go():
                if not peer:
                    return ex.explain(ranker, ["q"], [docs[s]], engine=ScoringEngine(cache=False))
                with patched(occ._Greedy, "score_after", _recompute):
                    return ex.explain(ranker, ["q"], [docs[s]], engine=ScoringEngine(cache=False))
            return go

        a, b = sizes
        same = _same(run(b)()[0], run(b, True)()[0])
        print(f"# document mode m={m}: same explanation as the peer at {b} sentences: {same}")
        cases = {f"ranklens m={m} {a}": run(a), f"ranklens m={m} {b}": run(b),
                 f"recompute m={m} {a}": run(a, True), f"recompute m={m} {b}": run(b, True)}
        t = compare_calls(cases, reps=reps)
        ratio(t, f"ranklens m={m} {b}", f"ranklens m={m} {a}")
        ratio(t, f"recompute m={m} {b}", f"recompute m={m} {a}")
        print(f"  growth {b}/{a} sentences: linear = {b / a:.0f}, quadratic = {(b / a) ** 2:.0f}")
        ratio(t, f"ranklens m={m} {b}", f"recompute m={m} {b}")


def window_mode(words, reps, ranker):
    import ranklens.explain.occlusion as occ
    from ranklens.engine import ScoringEngine

    docs = {w: words_doc(w) for w in words}
    ex = occ.OcclusionExplainer(granularity="window:1", n=1)

    def run(w, peer=False):
        def go():
            if not peer:
                return ex.explain(ranker, ["q"], [docs[w]], engine=ScoringEngine(cache=False))
            with patched(occ, "_BATCH_TEXTS", 1 << 40), patched(occ, "_BATCH_CHARS", 1 << 60):
                return ex.explain(ranker, ["q"], [docs[w]], engine=ScoringEngine(cache=False))
        return go

    a, b = words
    print(f"# passage mode window:1, n=1 (W occluded texts of ~W words); same weights as the peer: "
          f"{run(b)()[0] == run(b, True)()[0]}")
    t = compare_calls({f"ranklens {a} words": run(a), f"ranklens {b} words": run(b),
                       f"all at once {a} words": run(a, True), f"all at once {b} words": run(b, True)}, reps=reps)
    ratio(t, f"ranklens {b} words", f"ranklens {a} words")
    ratio(t, f"ranklens {b} words", f"all at once {b} words")
    peaks = {(w, p): peak_mb(run(w, p)) for w in words for p in (False, True)}
    for w in words:
        print(f"  peak Python memory at {w} words: ranklens {peaks[(w, False)]:7.1f} MB, all at once "
              f"{peaks[(w, True)]:7.1f} MB (ratio {peaks[(w, False)] / peaks[(w, True)]:.3f})")
    print(f"  memory growth {b}/{a} words: ranklens {peaks[(b, False)] / peaks[(a, False)]:.2f}, all at once "
          f"{peaks[(b, True)] / peaks[(a, True)]:.2f}; linear = {b / a:.0f}, quadratic = {(b / a) ** 2:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2000,8000", help="two sentence counts (document mode)")
    ap.add_argument("--words", default="2000,8000", help="two word counts (window:1 passage mode)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    ranker = length_ranker()
    document_mode([int(x) for x in args.sizes.split(",")], max(3, args.reps), ranker)
    window_mode([int(x) for x in args.words.split(",")], max(3, args.reps), ranker)


if __name__ == "__main__":
    main()
