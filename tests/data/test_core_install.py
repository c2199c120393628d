"""An honest install: the core dependencies alone (a fresh venv, ``pip install <repo>``, no extras)
run ``ranklens evaluate`` and ``ranklens asl`` on tiny files. Slow: it downloads the core wheels."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _size(p: Path) -> int:
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file() and not f.is_symlink())


@pytest.mark.slow
def test_core_install_runs_evaluate_and_asl(tmp_path):
    t0 = time.perf_counter()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py, exe = venv / "bin" / "python", venv / "bin" / "ranklens"
    pip = subprocess.run([str(py), "-m", "pip", "install", "-q", str(REPO)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-3000:]
    qrels, run_a, run_b = tmp_path / "q.txt", tmp_path / "a.run", tmp_path / "b.run"
    qrels.write_text("".join(f"{q} 0 d{q}{i} {int(i < 2)}\n" for q in range(1, 6) for i in range(4)))
    run_a.write_text("".join(f"{q} Q0 d{q}{i} {i + 1} {10 - i} a\n" for q in range(1, 6) for i in range(4)))
    run_b.write_text("".join(f"{q} Q0 d{q}{3 - i} {i + 1} {10 - i} b\n" for q in range(1, 6) for i in range(4)))
    ev = subprocess.run([str(exe), "evaluate", str(qrels), str(run_a), "nDCG@10", "AP"],
                        capture_output=True, text=True, cwd=tmp_path)
    assert ev.returncode == 0, ev.stderr[-3000:]
    # run a ranks the two relevant documents first in every query: AP = 1 exactly
    assert any(line.split()[-1] in ("1", "1.0", "1.0000") for line in ev.stdout.splitlines() if "AP" in line), \
        ev.stdout
    runs = tmp_path / "runs"
    runs.mkdir()
    for r in (run_a, run_b):
        (runs / r.name).write_text(r.read_text())
    asl = subprocess.run([str(exe), "-q", "asl", "--qrels", str(qrels), "--runs", str(runs), "--out",
                          str(tmp_path / "out"), "--no-plots"], capture_output=True, text=True, cwd=tmp_path)
    assert asl.returncode == 0, asl.stderr[-3000:]
    assert list((tmp_path / "out").rglob("result.json"))
    print(f"core install + evaluate + asl: {time.perf_counter() - t0:.0f} s, venv {_size(venv) / 2**20:.0f} MiB")
