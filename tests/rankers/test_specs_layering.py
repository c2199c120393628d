"""The model classes sit below the spec registry: ``ranklens.rankers`` and ``ranklens.embedders``
never import ``ranklens.specs`` (the registry imports them), except in the one-release
deprecated aliases, which import it lazily and warn."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import ranklens

PKG = Path(ranklens.__file__).parent

# (module file, function) allowed to import the registry: the deprecated aliases only
DEPRECATED_ALIASES = {("rankers/__init__.py", "__getattr__"), ("embedders/__init__.py", "__getattr__"),
                      ("rankers/pyterrier.py", "as_transformer")}


def _specs_imports(path: Path) -> set[tuple[str, str]]:
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PKG).as_posix()
    found = set()
    for fn in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        body = fn.body if fn is tree else list(ast.walk(fn))
        for node in body:
            if isinstance(node, ast.ImportFrom):
                names = {a.name for a in node.names}
                if (node.module or "").endswith("specs") or (node.module in (None, "ranklens") and "specs" in names):
                    found.add((rel, getattr(fn, "name", "<module>")))
            elif isinstance(node, ast.Import) and any(a.name == "ranklens.specs" for a in node.names):
                found.add((rel, getattr(fn, "name", "<module>")))
    return found


def test_rankers_and_embedders_do_not_import_the_registry():
    found = set()
    for sub in ("rankers", "embedders"):
        for path in (PKG / sub).rglob("*.py"):
            found |= _specs_imports(path)
    assert found <= DEPRECATED_ALIASES, sorted(found - DEPRECATED_ALIASES)


def test_importing_the_model_packages_leaves_the_registry_unloaded():
    code = "import sys, ranklens.rankers, ranklens.embedders; print('ranklens.specs' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_deprecated_aliases_warn_and_build_through_the_registry():
    import ranklens.embedders as embedders
    import ranklens.rankers as rankers
    from ranklens import specs

    with pytest.warns(DeprecationWarning, match="ranklens.specs.make_ranker"):
        assert rankers.make_ranker is specs.make_ranker
    with pytest.warns(DeprecationWarning, match="ranklens.specs.make_embedder"):
        assert embedders.make_embedder is specs.make_embedder
    with pytest.warns(DeprecationWarning):
        assert rankers.RANKER_SPECS == tuple(specs.spec_forms("ranker"))
    with pytest.warns(DeprecationWarning):
        assert embedders.EMBEDDER_SPECS == tuple(specs.spec_forms("embedder"))
    with pytest.warns(DeprecationWarning):
        assert embedders.NEEDS_CORPUS == {"tfidf", "word2vec", "fasttext", "fasttext-nosub"}
    with pytest.raises(AttributeError):
        rankers.no_such_name  # noqa: B018


def test_dt5q_lives_in_the_rankers():
    from ranklens.rankers import DT5QRanker
    from ranklens.rankers.doc2query import DT5QRanker as direct

    assert DT5QRanker is direct and DT5QRanker.__module__ == "ranklens.rankers.doc2query"
    assert specs_kind_factory_module("dt5q") == "ranklens.specs"


def specs_kind_factory_module(kind: str) -> str:
    from ranklens.specs import _BY_KIND

    return _BY_KIND[kind].ranker.__module__


def test_as_transformer_spec_string_is_deprecated_but_works():
    pytest.importorskip("pyterrier")
    from ranklens.engine import ScoringEngine
    from ranklens.rankers.pyterrier import as_transformer

    with pytest.warns(DeprecationWarning, match="make_ranker"):
        t = as_transformer("bm25", docs={"d1": "a b", "d2": "c"}, engine=ScoringEngine(cache=False))
    assert t.ranker.fitted
