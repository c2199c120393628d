"""What the CLI imports at start-up (issue 32): ``ranklens --help`` builds every parser from the
declarations alone; ``ranklens --version`` answers before building anything; ``ranklens evaluate``
imports the readers and kernels it uses and no other analysis. Assertions are on the module list
of a fresh process (``sys.modules`` when it exits: ``python -X importtime`` misses modules that
``importlib.import_module`` loads, such as the declarations), never on time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ranklens.registry import ANALYSES

HEAVY = ("pandas", "scipy", "torch", "sklearn", "transformers", "sentence_transformers", "faiss", "matplotlib",
         "pyarrow", "ir_measures", "spacy")
#: the modules of an analysis package that building the parsers may import
PARSER_MODULES = {"declaration", "tools", "evaluate_cli"}


#: runs ``python -m ranklens ARGS`` in this process and then writes ``sys.modules`` to a file: every
#: module, those imported by ``importlib.import_module`` included (``-X importtime`` lists only the
#: ones an ``import`` statement loads, so the declarations the registry resolves would be missed)
DRIVER = """
import runpy, sys
out, sys.argv = sys.argv[1], ["ranklens", *sys.argv[2:]]
try:
    runpy.run_module("ranklens", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
else:
    code = 0
with open(out, "w") as f:
    f.write("\\n".join(sorted(sys.modules)))
sys.exit(code)
"""


def _imported(*args: str, cwd: Path) -> tuple[set[str], str]:
    """The modules a fresh ``python -m ranklens ARGS`` has imported when it exits, and its stdout."""
    listing = cwd / "modules.txt"
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(listing), *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"}, cwd=cwd, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(listing.read_text().split()), proc.stdout


def _tops(mods: set[str]) -> set[str]:
    return {m.split(".")[0] for m in mods}


def _analysis_code(mods: set[str], allowed: set[str]) -> set[str]:
    """Modules of analysis packages other than the ``allowed`` submodules."""
    out = set()
    for m in mods:
        parts = m.split(".")
        if len(parts) >= 3 and parts[0] == "ranklens" and parts[1] in ANALYSES and parts[2] not in allowed:
            out.add(m)
    return out


def test_the_module_list_is_what_the_command_imported(tmp_path):
    """The listing sees what a command imports (else every test below would pass)."""
    mods, out = _imported("ls", "analyses", cwd=tmp_path)
    assert "probes" in out
    assert {"ranklens", "ranklens.cli", "ranklens.declare", "ranklens.registry"} <= mods
    assert {f"ranklens.{name}.declaration" for name in ANALYSES} <= mods
    assert _analysis_code({"ranklens.probes.run", "ranklens.probes.declaration", "ranklens.io.trec"},
                          PARSER_MODULES) == {"ranklens.probes.run"}


def test_help_builds_every_parser_from_the_declarations_alone(tmp_path):
    mods, out = _imported("--help", cwd=tmp_path)
    for name in ANALYSES:  # every analysis has its subcommand ...
        assert f"\n    {name} " in out or f"\n    {name}\n" in out
        assert f"ranklens.{name}.declaration" in mods
    assert "\n    evaluate " in out  # an analysis's top-level command too
    assert not _tops(mods) & set(HEAVY)  # ... without pandas, scipy, torch, sklearn
    assert "numpy" not in _tops(mods)
    assert not _analysis_code(mods, PARSER_MODULES)  # nor the analyses' kernels, drivers, plots; the listing
    # builds no analysis's options (their file tools are not imported: evaluate's help line needs asl's formats)
    assert not {m for m in mods if m.endswith(".tools")} - {"ranklens.asl.tools"}
    # the plugins' entry points are read without importlib.metadata
    assert "importlib.metadata" not in mods and "ranklens._entrypoints" in mods
    assert not {m for m in mods if m.split(".")[:2] in (["ranklens", "engine"], ["ranklens", "io"],
                                                         ["ranklens", "results"], ["ranklens", "drive"])}


def test_a_subcommand_help_imports_no_analysis_code(tmp_path):
    mods, out = _imported("probes", "--help", cwd=tmp_path)
    assert "--model" in out
    assert not _tops(mods) & set(HEAVY)
    assert not _analysis_code(mods, PARSER_MODULES)


def test_version_answers_before_building_any_parser(tmp_path):
    mods, out = _imported("--version", cwd=tmp_path)
    assert out.strip() == f"ranklens {__import__('ranklens').__version__}"
    assert not {m for m in mods if m.startswith("ranklens.")} - {"ranklens.cli", "ranklens.errors",
                                                                  "ranklens.declare", "ranklens.__main__"}
    assert "ranklens.registry" not in mods and not _analysis_code(mods, set())


def test_the_entry_point_scan_equals_importlib_metadata():
    from importlib import metadata

    from ranklens._entrypoints import entry_points

    groups = {ep.group for d in metadata.distributions() for ep in d.entry_points}
    assert "console_scripts" in groups
    for group in groups:  # every group installed here, ranklens's own console script among them
        assert sorted(entry_points(group)) == sorted((e.name, e.value) for e in metadata.entry_points(group=group))
    assert ("ranklens", "ranklens.cli:main") in entry_points("console_scripts")


def test_evaluate_imports_only_the_readers_and_kernels_it_uses(tmp_path):
    # one query, relevant d1 and d3, ranked d1 d2 d3: AP = (1/1 + 2/3) / 2
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\n")
    mods, out = _imported("evaluate", "qrels.txt", "run.txt", "AP", "--places", "6", cwd=tmp_path)
    row = next(line.split("\t") for line in out.splitlines() if line.startswith("AP\t"))
    assert float(row[-1]) == pytest.approx((1 + 2 / 3) / 2, abs=1e-6)
    assert {"ranklens.asl.evaluate_cli", "ranklens.io.trec"} <= mods  # it did read and evaluate
    assert not _tops(mods) & {"scipy", "torch", "sklearn", "transformers", "sentence_transformers", "faiss",
                              "matplotlib", "spacy"}
    others = {m for m in _analysis_code(mods, {"declaration"}) if m.split(".")[1] != "asl"}
    assert not others  # no other analysis's code (their declarations name the commands they own)
    assert not {m for m in mods if m.startswith(("ranklens.engine", "ranklens.rankers", "ranklens.embedders"))}
    # only the TREC reader of ranklens.io: no collection, SMART, ir_datasets or pairs module
    assert not {m for m in mods if m.startswith("ranklens.io.")} - {"ranklens.io.trec", "ranklens.io._columns",
                                                                     "ranklens.io._streams", "ranklens.io.frames"}
    assert "ranklens._entrypoints" not in mods  # no plugin scan: evaluate is found among the built-in declarations


def test_a_ranklens_warning_is_one_line_on_stderr_once():
    """A RanklensWarning raised while a command runs prints as ``ranklens: warning: TEXT`` once
    (Python's default filter: once per place), not Python's file:line and source line; --debug
    keeps Python's format. Run in a fresh process, outside pytest's own warning recorder."""
    import subprocess
    import sys

    code = ("import warnings\nfrom ranklens.cli import _warnings_as_lines\nfrom ranklens.errors import RanklensWarning\n"
            "def f():\n    warnings.warn('the same note', RanklensWarning, stacklevel=1)\n"
            "with _warnings_as_lines({debug}):\n    for _ in range(3):\n        f()\n")
    quiet = subprocess.run([sys.executable, "-c", code.format(debug=False)], capture_output=True, text=True)
    assert quiet.returncode == 0 and quiet.stderr.splitlines() == ["ranklens: warning: the same note"]
    debug = subprocess.run([sys.executable, "-c", code.format(debug=True)], capture_output=True, text=True)
    assert "RanklensWarning: the same note" in debug.stderr and "ranklens: warning:" not in debug.stderr


def test_evaluate_reads_scores_and_prints_without_pandas_or_scipy(tmp_path):
    """``ranklens evaluate QRELS RUN`` with the common measures, ASL among them (issue 32): files read
    by pyarrow, ranked and scored by numpy, printed; pandas (~0.5 s) and scipy are never imported.
    q1: relevant d1 (grade 2) and d3 (grade 1), ranked d1 d2 d3; q2: relevant e2, ranked e1 e2."""
    (tmp_path / "qrels.txt").write_text("q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 e2 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\n"
                                      "q2 Q0 e1 1 2.0 r\nq2 Q0 e2 2 1.0 r\n")
    mods, out = _imported("evaluate", "qrels.txt", "run.txt", "AP", "RR", "P@2", "ASL", "--places", "6",
                          cwd=tmp_path)
    got = {m: float(v) for m, v in (line.split("\t") for line in out.splitlines())}
    # AP: q1 (1 + 2/3) / 2, q2 1/2; RR: 1 and 1/2; P@2: 1/2 each; ASL (1 + the non-relevant
    # documents above each relevant one): q1 (1 + 2) / 2, q2 2
    assert got == pytest.approx({"AP": ((1 + 2 / 3) / 2 + 0.5) / 2, "RR": 0.75, "P@2": 0.5, "ASL": 1.75},
                                abs=1e-6)
    assert not _tops(mods) & {"pandas", "scipy"}, sorted(m for m in mods if m.startswith(("pandas", "scipy")))
    (tmp_path / "run2.txt").write_text((tmp_path / "run.txt").read_text())
    mods, out = _imported("evaluate", "qrels.txt", "run.txt", "run2.txt", "AP", "nDCG@10", "ASL", "--per-query",
                          "-o", "jsonl", cwd=tmp_path)  # several runs, per query, ir_measures' jsonl
    assert len(out.splitlines()) == 2 * (2 * 3 + 3)
    assert not _tops(mods) & {"pandas", "scipy"}


def test_pyarrow_still_converts_pandas_after_evaluate_left_it_out():
    """After :func:`ranklens._lazy.arrow_without_pandas` a conversion that needs pandas imports it
    (pyarrow retries): a table to a frame and back, in a fresh process."""
    code = ("import sys\nfrom ranklens._lazy import arrow_without_pandas\narrow_without_pandas()\n"
            "import numpy as np, pyarrow as pa\nassert 'pandas' not in sys.modules\n"
            "assert pa.array(np.arange(3)).to_numpy().tolist() == [0, 1, 2]\nassert 'pandas' not in sys.modules\n"
            "f = pa.table({'a': [1, 2]}).to_pandas()\nassert f['a'].tolist() == [1, 2]\n"
            "assert pa.Table.from_pandas(f).column('a').to_pylist() == [1, 2]\nprint('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
