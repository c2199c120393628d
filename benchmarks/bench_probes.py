"""Overhead of the probe machinery vs. scoring the same pairs directly (peer), on the demo
collection with BM25 (cheap model, so the overhead is visible).

    python benchmarks/bench_probes.py

Prints: sample generation time; run_probes time (engine: dedupe + in-memory cache + stats +
bootstrap) vs. the peer "score every requested pair with ranker.score, no dedupe"; the ratio.
"""

from __future__ import annotations

import time


def main() -> None:
    from ranklens.datasets.demo import load_demo
    from ranklens.engine import ScoringEngine
    from ranklens.probes import generate_samples, get_probe, run_probes, select_probes
    from ranklens.rankers import make_ranker

    coll = load_demo()
    names = [n for n in select_probes(["mm-*", "tr-*", "demo-*"]) if not n.endswith("rel")]
    probes = [get_probe(n, cap=200) for n in names]
    t = time.perf_counter()
    samples = generate_samples(probes, coll, seed=0)
    t_gen = time.perf_counter() - t
    n_pairs = 2 * sum(len(ps.samples) for ps in samples.values())
    ranker = make_ranker("bm25", corpus=coll.docs)

    t = time.perf_counter()
    for ps in samples.values():  # peer: every requested pair, no dedupe, no cache
        qs = [s.query for s in ps.samples for _ in (0, 1)]
        ts = [x for s in ps.samples for x in (s.text_1, s.text_2)]
        if qs:
            ranker.score(qs, ts)
    t_peer = time.perf_counter() - t

    e = ScoringEngine(cache=False)
    t = time.perf_counter()
    run_probes(probes, {"bm25": ranker}, coll, delta=0.5, engine=e, samples=samples, n_boot=1000)
    t_run = time.perf_counter() - t
    print(f"probes {len(probes)}, requested pairs {n_pairs}, distinct scored {e.stats.pairs_scored}")
    print(f"sample generation {t_gen:.2f}s")
    print(f"peer (direct ranker.score of all requested pairs) {t_peer:.2f}s")
    print(f"run_probes (engine + stats + bootstrap) {t_run:.2f}s")
    print(f"ratio run_probes / peer = {t_run / t_peer:.2f}")


if __name__ == "__main__":
    main()
