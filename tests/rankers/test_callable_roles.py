"""A ``callable:`` spec takes the role its signature says: a two-argument function is a ranker and
is never tried as an embedder (it used to be, and died with a TypeError at its first call); a
one-argument function is an embedder."""

from __future__ import annotations

import sys

import pytest

from ranklens.errors import ValidationError
from ranklens.specs import make_embedder, make_ranker, runs_for_models


@pytest.fixture
def module(tmp_path, monkeypatch):
    (tmp_path / "roles_mod.py").write_text(
        "def score(queries, texts):\n"
        "    return [float(len(set(q.split()) & set(t.split()))) for q, t in zip(queries, texts)]\n\n"
        "def embed(texts):\n"
        "    import numpy as np\n"
        "    return np.array([[float(len(t)), 1.0] for t in texts])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "roles_mod"
    sys.modules.pop("roles_mod", None)


def test_a_two_argument_function_is_a_ranker_only(module):
    with pytest.raises(ValidationError, match=r"takes 2 positional argument\(s\), so it is a ranker"):
        make_embedder(f"callable:{module}:score@1")
    assert make_ranker(f"callable:{module}:score@1") is not None


def test_a_one_argument_function_is_an_embedder_only(module):
    with pytest.raises(ValidationError, match=r"takes 1 positional argument\(s\), so it is an embedder"):
        make_ranker(f"callable:{module}:embed@1")
    assert make_embedder(f"callable:{module}:embed@1") is not None


def test_runs_for_models_reranks_with_a_ranker_callable(module):
    from ranklens.engine import ScoringEngine
    from ranklens.io import load_collection

    coll = load_collection("demo")
    runs, skipped = runs_for_models(coll, {"mine": {"spec": f"callable:{module}:score@1"}}, 5, ScoringEngine(cache=False))
    assert not skipped and len(runs["mine"]) == 5 * len(coll.queries)
