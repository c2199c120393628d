"""CLI start-up and small-input ``ranklens evaluate`` vs named peers, whole processes (issue 32).

Cases (``_harness.compare_processes``: one untimed warm-up, alternating order, >= 3 reps, min and
median wall, peak RSS; read the ratios, not the seconds):

- ``start``: ``ranklens --help`` and ``ranklens --version`` vs ``ir_measures --help`` and
  ``python -c pass``. Goal: <= 1.5x ir_measures.
- ``cliff``: a 43-query run (1,000 documents each) against qrels holding 100k other queries (+ the
  43): ``ranklens evaluate QRELS RUN AP nDCG@10`` vs a pytrec_eval script (parse_qrel, parse_run,
  evaluate map + ndcg_cut_10). Goal: <= 1.2x. The means are checked equal (1e-9) first.
- ``warm``: 5 runs x 3 measures (AP, nDCG@10, P@10; 43 queries x 1,000 documents, DL-sized qrels):
  one ``ranklens evaluate`` vs the ir_measures CLI once per run (as a user runs it), and beside it
  the ir_measures API in one process. Goal: <= 1.0x the CLI.

With ``--before SRC`` (a ``src`` folder of an older tree, e.g. from ``git archive``), the ranklens
cases are also run on it (``PYTHONPATH=SRC``), in the same alternation: the before/after figures.
Executables are the console scripts next to ``sys.executable`` (no pyenv shim in the timing).
Every process may cache its bytecode (under a temporary ``PYTHONPYCACHEPREFIX``, not in the tree),
as an installed package does: with ``PYTHONDONTWRITEBYTECODE=1`` set (as on the shared machine)
ranklens's modules were compiled from source on every start while the peers' came as ``.pyc``
from site-packages -- an unfair ~60 ms (``--no-bytecode`` measures that condition).

Usage: python benchmarks/bench_cli.py [--cases start,cliff,warm] [--reps 5] [--before /tmp/old/src]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import compare_processes, ratio  # noqa: E402

BIN = Path(sys.executable).parent

PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10"}).evaluate(run)
for m in ("map", "ndcg_cut_10"):
    print(m, repr(sum(v[m] for v in res.values()) / len(res)))
"""

IRM_API = """
import sys, ir_measures
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
ms = [ir_measures.parse_measure(m) for m in ("AP", "nDCG@10", "P@10")]
for path in sys.argv[2:]:
    for m, v in ir_measures.calc_aggregate(ms, qrels, ir_measures.read_trec_run(path)).items():
        print(path, m, v)
"""


def bytecode(tmp: Path) -> None:
    """Let every timed process cache its bytecode in ``tmp`` (module docstring)."""
    import os

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    print(f"bytecode cached under {tmp / 'pycache'} (PYTHONDONTWRITEBYTECODE unset for the timed processes)")


def _exe(name: str) -> str:
    path = BIN / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            raise SystemExit(f"{name} is not installed")
        return found
    return str(path)


def _ranklens(args: list[str], src: str | None) -> list[str]:
    argv = [sys.executable, "-m", "ranklens", *args] if src else [_exe("ranklens"), *args]
    return ["env", f"PYTHONPATH={src}", *argv] if src else argv


def write_qrels(path: Path, queries: list[str], per_query: int, rng: np.random.Generator) -> None:
    with open(path, "w") as f:
        for q in queries:
            rel = rng.choice([0, 0, 0, 1, 2, 3], size=per_query)
            f.writelines(f"{q} 0 d{d} {r}\n" for d, r in enumerate(rel))


def write_run(path: Path, queries: list[str], depth: int, docs: int, rng: np.random.Generator) -> None:
    with open(path, "w") as f:
        for q in queries:
            picked = rng.choice(docs, size=depth, replace=False)
            score = np.sort(rng.normal(size=depth))[::-1]
            f.writelines(f"{q} Q0 d{d} {r + 1} {s:.6f} run\n" for r, (d, s) in enumerate(zip(picked, score)))


def _means(stdout: str) -> dict[str, float]:
    """``measure -> mean`` from ranklens's output (ir_measures' ``measure value``, or an older
    tree's tsv ``model measure value``) or the peer's lines."""
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10"}
    out = {}
    for line in stdout.splitlines():
        parts = line.replace("\t", " ").split()
        if len(parts) == 3 and parts[1] in names:
            out[names[parts[1]]] = float(parts[2])
        elif len(parts) == 2 and parts[0] in names:
            out[names[parts[0]]] = float(parts[1])
        elif len(parts) == 2 and parts[0] in ("map", "ndcg_cut_10"):
            out[parts[0]] = float(parts[1])
    return out


def case_start(reps: int, before: str | None) -> None:
    print("== start: ranklens --help / --version vs ir_measures --help and python -c pass", flush=True)
    cases = {"ranklens --help": _ranklens(["--help"], None), "ranklens --version": _ranklens(["--version"], None),
             "ir_measures --help": [_exe("ir_measures"), "--help"], "python -c pass": [sys.executable, "-c", "pass"]}
    if before:
        cases["before: ranklens --help"] = _ranklens(["--help"], before)
        cases["before: ranklens --version"] = _ranklens(["--version"], before)
    t = compare_processes(cases, reps=reps)
    ratio(t, "ranklens --help", "ir_measures --help", goal=1.5, what="min_s")
    ratio(t, "ranklens --version", "ir_measures --help", goal=1.5, what="min_s")
    if before:
        ratio(t, "before: ranklens --help", "ir_measures --help", what="min_s")
        ratio(t, "before: ranklens --version", "ir_measures --help", what="min_s")


def case_cliff(reps: int, before: str | None, work: Path) -> None:
    print("== cliff: 43 queries x 1,000 documents against qrels of 100k other queries (+ the 43)", flush=True)
    rng = np.random.default_rng(0)
    mine = [f"q{i}" for i in range(43)]
    qrels, run = work / "cliff_qrels.txt", work / "cliff_run.txt"
    write_qrels(qrels, [f"o{i}" for i in range(100_000)] + mine, 5, rng)
    with open(qrels, "a") as f:  # the 43 queries get deeper judgments too
        for q in mine:
            f.writelines(f"{q} 0 d{d} {int(rng.integers(0, 3))}\n" for d in range(5, 200))
    write_run(run, mine, 1000, 5000, rng)
    peer = work / "pytrec.py"
    peer.write_text(PYTREC)
    cases = {"ranklens evaluate": _ranklens(["evaluate", str(qrels), str(run), "AP", "nDCG@10", "--places", "12"],
                                            None),  # the peer's figures are means over its 43 queries
             "pytrec_eval": [sys.executable, str(peer), str(qrels), str(run)]}
    if before:
        cases["before: ranklens evaluate"] = _ranklens(cases["ranklens evaluate"][1:], before)
    t = compare_processes(cases, reps=reps)
    a, b = _means(t["ranklens evaluate"]["stdout"]), _means(t["pytrec_eval"]["stdout"])
    assert a.keys() == b.keys() == {"map", "ndcg_cut_10"}, (a, b)
    assert all(abs(a[k] - b[k]) < 1e-9 for k in a), (a, b)
    print(f"  same means (1e-9): {a}")
    ratio(t, "ranklens evaluate", "pytrec_eval", goal=1.2)
    if before:
        ratio(t, "before: ranklens evaluate", "pytrec_eval")


def case_warm(reps: int, before: str | None, work: Path) -> None:
    print("== warm: 5 runs x 3 measures (43 queries x 1,000 documents) vs the ir_measures CLI", flush=True)
    rng = np.random.default_rng(1)
    qs = [f"q{i}" for i in range(43)]
    qrels = work / "warm_qrels.txt"
    write_qrels(qrels, qs, 200, rng)
    runs = []
    for k in range(5):
        runs.append(work / f"warm_run{k}.txt")
        write_run(runs[-1], qs, 1000, 3000, rng)
    api = work / "irm_api.py"
    api.write_text(IRM_API)
    loop = " && ".join(f"{_exe('ir_measures')} {qrels} {r} 'AP nDCG@10 P@10'" for r in runs)
    cases = {"ranklens evaluate (5 runs)": _ranklens(["evaluate", str(qrels), *map(str, runs), "AP", "nDCG@10",
                                                      "P@10"], None),
             "ir_measures CLI x5": ["bash", "-c", loop],
             "ir_measures API (1 process)": [sys.executable, str(api), str(qrels), *map(str, runs)]}
    if before:
        cases["before: ranklens evaluate (5 runs)"] = _ranklens(cases["ranklens evaluate (5 runs)"][1:], before)
    t = compare_processes(cases, reps=reps)
    ratio(t, "ranklens evaluate (5 runs)", "ir_measures CLI x5", goal=1.0)
    ratio(t, "ranklens evaluate (5 runs)", "ir_measures API (1 process)")
    if before:
        ratio(t, "before: ranklens evaluate (5 runs)", "ir_measures CLI x5")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="start,cliff,warm")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--before", metavar="SRC", help="an older tree's src folder, timed beside this one")
    ap.add_argument("--workdir", help="where the generated files go (default: a temporary folder)")
    ap.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as it is")
    args = ap.parse_args()
    cases = args.cases.split(",")
    with tempfile.TemporaryDirectory(prefix="ranklens_bench_cli_") as tmp:
        if not args.no_bytecode:
            bytecode(Path(tmp))
        work = Path(args.workdir or tmp)
        work.mkdir(parents=True, exist_ok=True)
        if "start" in cases:
            case_start(args.reps, args.before)
        if "cliff" in cases:
            case_cliff(args.reps, args.before, work)
        if "warm" in cases:
            case_warm(args.reps, args.before, work)


if __name__ == "__main__":
    main()
