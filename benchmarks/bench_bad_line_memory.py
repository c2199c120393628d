"""Peak memory of reading a big run whose LAST line is bad, against the same run without it.

Generates a run of N lines (default 5,000,000) in a temporary folder, then reads the clean file and
the file with a bad last line (a NaN score) with ``ranklens.io.read_run_table``, each in a fresh
subprocess, and prints the peak resident memory (ru_maxrss) of both and their ratio. The bad read
must raise the located error at the last line; the issue's bar is a ratio <= 1.2.

    python3 benchmarks/bench_bad_line_memory.py [N] [nan|fields]

``fields``: the last line lacks a column (pyarrow itself refuses the file) instead of a NaN score.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import resource, sys
from ranklens.errors import DataFormatError
from ranklens.io import read_run_table
try:
    t = read_run_table(sys.argv[1])
    outcome = f"rows={t.num_rows}"
except DataFormatError as exc:
    outcome = "error: " + str(exc)[:160]
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, outcome)
"""


def _generate(path: Path, n: int, bad: bool, kind: str = "nan") -> None:
    with open(path, "w") as fh:
        block = []
        for i in range(n - 1 if bad else n):
            q, r = divmod(i, 1000)
            block.append(f"{q} Q0 doc{i * 7919 % 8841823} {r + 1} {1000 - r}.{i % 97:02d} bench\n")
            if len(block) == 100_000:
                fh.write("".join(block))
                block.clear()
        fh.write("".join(block))
        if bad:
            fh.write(f"{n} Q0 docX 1 nan bench\n" if kind == "nan" else f"{n} Q0 docX 1\n")


def _peak(path: Path) -> tuple[float, str]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True)
    mib, outcome = out.stdout.strip().split(" ", 1)
    return float(mib), outcome


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    kind = sys.argv[2] if len(sys.argv) > 2 else "nan"
    with tempfile.TemporaryDirectory() as tmp:
        clean, bad = Path(tmp) / "clean.run", Path(tmp) / "bad.run"
        _generate(clean, n, False)
        _generate(bad, n, True, kind)
        print(f"{n:,} lines, {clean.stat().st_size / 2**20:.0f} MiB")
        c, c_out = _peak(clean)
        b, b_out = _peak(bad)
    print(f"clean file: peak {c:,.0f} MiB ({c_out})")
    print(f"bad last line: peak {b:,.0f} MiB ({b_out})")
    print(f"ratio bad / clean: {b / c:.2f}x (bar: <= 1.2x)")


if __name__ == "__main__":
    main()
