"""Explain overhead vs document length under a constant-cost ranker (issue 22, item 6).

The ranker scores a pair by ``len(text)`` (O(1) per pair, no tokenising), so what is timed is
the explainer's own work: cutting units, building occluded texts, the engine's hashing and
bookkeeping. Two cases, each at a small and a 4x larger document, every size timed after one
warm-up, ``--reps`` (>= 3) repetitions in alternating order (small, large, small, ...):

1. **document mode** (eq. 5: greedy removal over 3-sentence MaxP chunks, m = 1 and m = 3) on a
   document of S sentences. Each greedy step scores one chunk-sized text per remaining
   sentence, so the work is linear in S. Printed: min / median seconds and the growth ratio
   t(4S) / t(S) (linear = 4, quadratic = 16).
2. **passage mode, window:1, n = 1** on a document of W words: W occluded texts of about W
   words each. Their bytes are W^2 whatever the code does (the ranker takes strings), so the
   case measures what can be bounded: the *peak* of Python memory while explaining
   (tracemalloc, separate run from the timings) -- every occluded text at once grows as W^2,
   texts generated in batches as they are scored grow as W -- and the time (growth near 16
   here is the W^2 bytes of text, not Python overhead).

Usage: python benchmarks/bench_explain_scaling.py [--sizes 2000,8000] [--words 2000,8000] [--reps 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
import tracemalloc

os.environ.setdefault("RANKLENS_PROGRESS", "0")


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


def timed(fn, sizes, reps):
    """Warm-up once per size, then ``reps`` rounds over the sizes in alternating order."""
    for s in sizes:
        fn(s)
    out: dict[int, list[float]] = {s: [] for s in sizes}
    for r in range(reps):
        for s in (sizes if r % 2 == 0 else sizes[::-1]):
            gc.collect()
            t = time.perf_counter()
            fn(s)
            out[s].append(time.perf_counter() - t)
    return out


def peak_mb(fn, size) -> float:
    gc.collect()
    tracemalloc.start()
    fn(size)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def report(title, times, unit):
    sizes = sorted(times)
    for s in sizes:
        ts = times[s]
        print(f"  {title} {s:>6} {unit}: min {min(ts):7.3f} s  median {statistics.median(ts):7.3f} s  "
              f"({1e6 * min(ts) / s:.1f} us per {unit[:-1]})")
    a, b = sizes[0], sizes[-1]
    f = b / a
    g = min(times[b]) / min(times[a])
    gm = statistics.median(times[b]) / statistics.median(times[a])
    print(f"  growth t({b})/t({a}) = {g:.2f} (min), {gm:.2f} (median); linear = {f:.0f}, quadratic = {f * f:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2000,8000", help="sentences per document (document mode)")
    ap.add_argument("--words", default="2000,8000", help="words per document (window:1 passage mode)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    reps = max(3, args.reps)

    from ranklens.engine import ScoringEngine
    from ranklens.explain import OcclusionExplainer

    ranker = length_ranker()
    q = ["alpha query"]

    def doc_mode(m):
        ex = OcclusionExplainer(granularity="line", long_document=1, chunk_sentences=3, greedy_steps=m)
        docs = {s: sentences_doc(s) for s in sizes}
        return lambda s: ex.explain(ranker, q, [docs[s]], engine=ScoringEngine(cache=False))

    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"# document mode (greedy eq. 5, 3-sentence chunks), constant-cost ranker, {reps} reps after warm-up")
    for m in (1, 3):
        report(f"m={m}", timed(doc_mode(m), sizes, reps), "sentences")

    words = [int(x) for x in args.words.split(",")]
    wdocs = {w: words_doc(w) for w in words}
    ex = OcclusionExplainer(granularity="window:1", n=1)

    def window(w):
        return ex.explain(ranker, q, [wdocs[w]], engine=ScoringEngine(cache=False))

    print(f"# passage mode window:1, n=1 (W occluded texts of ~W words), {reps} reps after warm-up")
    report("window:1", timed(window, words, reps), "words")
    peaks = {w: peak_mb(window, w) for w in words}
    for w in words:
        raw = len(wdocs[w]) * w / 2**20
        print(f"  peak Python memory at {w} words: {peaks[w]:8.1f} MB (all occluded texts at once would be "
              f"~{raw:.0f} MB of characters)")
    a, b = words[0], words[-1]
    print(f"  memory growth {b}/{a} words = {peaks[b] / peaks[a]:.2f}; linear = {b / a:.0f}, "
          f"quadratic = {(b / a) ** 2:.0f}")


if __name__ == "__main__":
    main()
