"""The floor plan (docs/ARCHITECTURE.md) as tests: the import contracts, no import circle, the
same plan in every analysis package, a report that knows no analysis, and one vocabulary."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ranklens.registry import ANALYSES, analyses

SRC = Path(__file__).resolve().parents[2] / "src" / "ranklens"
ROOT = SRC.parents[1]
NAMES = tuple(ANALYSES)


def _module_name(path: Path) -> tuple[str, list[str]]:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), parts
    return ".".join(parts), parts[:-1]


def _import_graph() -> dict[str, set[str]]:
    """module -> the ranklens modules it imports (function-level imports included; imports under
    ``if TYPE_CHECKING`` and a package importing its own submodules excluded)."""
    files = {_module_name(p)[0]: p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        _, package = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
        out = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                names = [target] + [f"{target}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            out |= {n for n in names if n in files and n != name and not n.startswith(name + ".")}
        graph[name] = out
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_planted_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle():
    assert _cycles(_import_graph()) == []


def test_the_import_contracts_hold():
    """import-linter's contracts in pyproject.toml: the core imports no analysis and no door, no
    analysis imports another analysis or a door, the doors reach analyses through registry/drive."""
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.fail("import-linter is not installed (it is in the [test] extra)")
    done = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "broken" not in done.stdout.lower().replace("0 broken", "")


def test_the_core_names_no_analysis_in_code():
    """report/, results, store and the other core modules name no analysis: no identifier or string
    constant is an analysis's name (docstrings and comments may mention one)."""
    core = [p for p in SRC.rglob("*.py") if p.relative_to(SRC).parts[0] not in
            {*NAMES, "cli", "testing", "experiment.py", "demo.py", "drive.py", "registry.py"}]
    hits = []
    for path in core:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                words = set(node.value.replace("-", " ").replace(".", " ").replace(":", " ").split())
                found = words & set(NAMES)
            elif isinstance(node, ast.Name):
                found = {node.id} & set(NAMES)
            else:
                continue
            if found:
                hits.append(f"{path.relative_to(SRC)}:{node.lineno}: {sorted(found)}")
    assert hits == []


@pytest.mark.parametrize("name", NAMES)
def test_every_analysis_has_the_same_plan(name):
    pkg = SRC / name
    for module in ("declaration.py", "driver.py", "findings.py", "plots.py"):
        assert (pkg / module).is_file(), f"{name}/{module}"
    a = analyses()[name]
    assert a.run == f"ranklens.{name}.driver:run"
    assert a.tools is None or a.tools.startswith(f"ranklens.{name}.tools:")
    for kind in a.kinds:
        for target in (kind.findings, kind.significance):
            assert target is None or target.startswith(f"ranklens.{name}.findings:"), target
        for target in kind.plots:
            assert target.startswith(f"ranklens.{name}."), target
    tree = ast.parse((pkg / "declaration.py").read_text(encoding="utf-8"))
    defs = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    assert defs == ["Params"], f"{name}/declaration.py holds only Params and ANALYSIS, found {defs}"
    # light at import time (the CLI builds its parsers from the declarations): only the declaration
    # machinery at module level; a Params.check may import its own package's parsers lazily
    imported = {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.level}
    assert imported <= {"declare", "errors", "types"}, f"{name}/declaration.py imports {imported}"


def test_no_module_mixes_too_much():
    """Files over 800 lines mixed three to seven concerns; none is left."""
    long = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}


@pytest.mark.parametrize("name", NAMES)
def test_kernels_and_tools_take_their_defaults_from_params(name):
    from ranklens.testing import check_declaration, check_vocabulary

    assert check_declaration(name) == ["params", "references"]
    assert check_vocabulary(name) == ["kernel_defaults", "tool_options"]


def test_the_vocabulary_check_fails_on_a_kernel_default_that_differs(tmp_path, monkeypatch):
    """A toy analysis whose kernel restates a default differently, and whose tool declares an
    option by hand, fails the check, naming both."""
    from ranklens.registry import register
    from ranklens.testing import ConformanceError, check_vocabulary

    pkg = tmp_path / "toyfloor"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "declaration.py").write_text(
        "from dataclasses import dataclass\nfrom ranklens.declare import Analysis, param\n"
        "@dataclass(frozen=True)\nclass Params:\n    k: int = param(10, 'depth')\n"
        "ANALYSIS = Analysis(name='toyfloor', title='Toy', params=Params, run='toyfloor.driver:run',"
        " tools='toyfloor.tools:add_tools')\n")
    (pkg / "driver.py").write_text("def run(collection, models, params, **kw):\n    return []\n"
                                   "def kernel(x, k=5):\n    return x\n")
    (pkg / "tools.py").write_text("def add_tools(parser):\n    sub = parser.add_subparsers()\n"
                                  "    t = sub.add_parser('show')\n    t.add_argument('-k', '--k', type=int, default=3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with register("toyfloor", "toyfloor.declaration:ANALYSIS"):
        with pytest.raises(ConformanceError, match=r"toyfloor\.driver\.kernel\(k=5\) but Params says 10"):
            check_vocabulary("toyfloor")
        (pkg / "driver.py").write_text("def run(collection, models, params, **kw):\n    return []\n"
                                       "def kernel(x, k):\n    return x\n")
        for mod in [m for m in sys.modules if m.startswith("toyfloor")]:
            del sys.modules[mod]
        with pytest.raises(ConformanceError, match=r"declared by hand.*ranklens toyfloor show -k/--k"):
            check_vocabulary("toyfloor")
