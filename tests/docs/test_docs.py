"""The documentation site: every Python example in it runs, every analysis has a page with one,
the CLI reference covers every command, and ``mkdocs build --strict`` passes.

Examples run in a fresh namespace per page (blocks of a page in order, as a reader would), in a
temporary working directory. Pages whose examples load neural models or run long are slow.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
FENCE = re.compile(r"^```python\n(.*?)^```", re.M | re.S)

# page -> why it is slow (everything else runs in the default test run)
SLOW = {
    "analyses/probes.md": "spaCy and probe sample generation (~10 s)",
    "analyses/regimes.md": "loads the MiniLM sentence embedder",
    "experiments.md": "two experiment steps and the HTML report (~7 s)",
}


def python_blocks(page: Path) -> list[str]:
    return FENCE.findall(page.read_text(encoding="utf-8"))


def example_pages() -> list[str]:
    return sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if python_blocks(p))


def _hooks():
    spec = importlib.util.spec_from_file_location("ranklens_docs_hooks", DOCS / "_hooks" / "ranklens_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _params(page: str):
    return pytest.param(page, marks=[pytest.mark.slow] if page in SLOW else [], id=page)


@pytest.mark.parametrize("page", [_params(p) for p in example_pages()])
def test_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    if "pyterrier" in page:
        pytest.importorskip("pyterrier")
    namespace: dict = {"__name__": f"docs_example_{Path(page).stem}"}
    for i, code in enumerate(python_blocks(DOCS / page), start=1):
        try:
            exec(compile(code, f"{page} (python block {i})", "exec"), namespace)  # noqa: S102 - the docs' own examples
        except Exception as exc:
            pytest.fail(f"{page}, python block {i} raised {type(exc).__name__}: {exc}\n---\n{code}")


def test_every_analysis_has_a_page_with_a_runnable_example_and_its_parameters():
    from ranklens.registry import analyses

    pages = set(example_pages())
    for name in analyses():
        page = f"analyses/{name}.md"
        assert page in pages, f"no example page {page} for analysis {name!r}"
        text = (DOCS / page).read_text(encoding="utf-8")
        assert f'run_analysis("{name}"' in text, f"{page} does not run {name!r} through the one door"
        assert f"<!-- ranklens:params {name} -->" in text, f"{page} lacks its generated parameter table"
    assert set(SLOW) <= pages


def test_params_table_lists_every_field_with_its_default():
    import dataclasses

    from ranklens.registry import get_analysis

    hooks = _hooks()
    for name in ("asl", "explain"):
        table = hooks.params_table(name)
        for f in dataclasses.fields(get_analysis(name).params):
            row = next((ln for ln in table.splitlines() if ln.startswith(f"| `{f.name}` |")), None)
            assert row is not None, f"{name}: no row for {f.name}"
            assert repr(f.default).replace("|", "\\|") in row, row


def test_cli_reference_covers_every_command_with_its_help():
    from ranklens.cli import build_parser
    from ranklens.registry import analyses

    hooks = _hooks()
    commands = [c for c, _ in hooks.cli_commands()]
    top = set(build_parser()._subparsers._group_actions[0].choices)  # noqa: SLF001
    assert {f"ranklens {c}" for c in top} <= set(commands)
    assert {f"ranklens {a}" for a in analyses()} <= set(commands)
    assert "ranklens asl ties" in commands  # tools under an analysis command
    text = hooks.cli_reference()
    for command, parser in hooks.cli_commands():
        assert f"`{command}`" in text
        assert parser.format_usage().split()[1] in text  # the usage line of each command


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None,
                    reason="needs the docs extra: pip install -e '.[docs]'")
def test_site_builds_strict(tmp_path):
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
                          "-d", str(tmp_path / "site")], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    cli = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "ranklens asl ties" in cli and "ranklens regimes diagnose" in cli
    asl = (tmp_path / "site" / "analyses" / "asl" / "index.html").read_text(encoding="utf-8")
    assert "unretrieved" in asl and "ranklens:params" not in asl
    api = (tmp_path / "site" / "reference" / "models" / "index.html").read_text(encoding="utf-8")
    assert "as_transformer" in api
    errors = (tmp_path / "site" / "reference" / "errors" / "index.html").read_text(encoding="utf-8")
    assert "ModelLoadError" in errors
