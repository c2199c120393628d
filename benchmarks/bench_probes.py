"""Overhead of the probe machinery vs. scoring the same pairs directly (peer), on the demo
collection with BM25 (cheap model, so the overhead is visible).

    python benchmarks/bench_probes.py

Prints: sample generation time; run_probes time (engine: dedupe + in-memory cache + stats +
bootstrap) vs. the peer "score every requested pair with ranker.score, no dedupe"; warm-up, 5
alternating repetitions, min and median, the ratio.
"""

from __future__ import annotations

import statistics
import time


def main() -> None:
    from ranklens.datasets.demo import load_demo
    from ranklens.engine import ScoringEngine
    from ranklens.probes import generate_samples, get_probe, run_probes, select_probes
    from ranklens.specs import make_ranker

    coll = load_demo()
    names = [n for n in select_probes(["mm-*", "tr-*", "demo-*"]) if not n.endswith("rel")]
    probes = [get_probe(n, cap=200) for n in names]
    t = time.perf_counter()
    samples = generate_samples(probes, coll, seed=0)
    t_gen = time.perf_counter() - t
    n_pairs = 2 * sum(len(ps.samples) for ps in samples.values())
    ranker = make_ranker("bm25", corpus=coll.docs)


    def peer() -> None:  # every requested pair, no dedupe, no cache
        for ps in samples.values():
            qs = [s.query for s in ps.samples for _ in (0, 1)]
            ts = [x for s in ps.samples for x in (s.text_1, s.text_2)]
            if qs:
                ranker.score(qs, ts)

    stats = {}

    def ours() -> None:
        e = ScoringEngine(cache=False)
        run_probes(probes, {"bm25": ranker}, coll, delta=0.5, engine=e, samples=samples, n_boot=1000)
        stats["distinct"] = e.stats.pairs_scored

    times: dict[str, list[float]] = {"peer": [], "run_probes": []}
    peer(), ours()  # warm-up (tokeniser caches, imports)
    for rep in range(5):  # alternating order
        for name, fn in ((("peer", peer), ("run_probes", ours)) if rep % 2 == 0 else (("run_probes", ours), ("peer", peer))):
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    print(f"probes {len(probes)}, requested pairs {n_pairs}, distinct scored {stats['distinct']}")
    print(f"sample generation {t_gen:.2f}s")
    for name, ts in times.items():
        print(f"{name}: min {min(ts):.3f}s median {statistics.median(ts):.3f}s over {len(ts)} reps")
    print(f"ratio run_probes / peer (min) = {min(times['run_probes']) / min(times['peer']):.2f}, "
          f"(median) = {statistics.median(times['run_probes']) / statistics.median(times['peer']):.2f}")


if __name__ == "__main__":
    main()
