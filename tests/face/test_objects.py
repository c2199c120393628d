"""Model objects at the door: each kind normalised to a fingerprinted spec, one error for unknown kinds."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

import ranklens as rl
from ranklens.errors import ValidationError
from ranklens.objects import adapt, normalise_models

PROBE = {"probes": ["tr-shuffle-words"], "cap": 10}


def overlap(queries, texts):  # a ranker: two positional arguments
    return [float(len(set(q.split()) & set(t.split()))) for q, t in zip(queries, texts)]


def lengths(texts):  # an embedder: one positional argument
    return np.array([[len(t), t.count(" ") + 1.0] for t in texts], dtype=np.float32)


def test_face_signature_matches_declaration():
    from ranklens.face import analysis_function
    from ranklens.registry import analyses

    for name in ("asl", "probes", "neighbors", "regimes", "explain"):
        sig = inspect.signature(getattr(rl, name))
        fields = {f.name: f for f in dataclasses.fields(analyses()[name].params)}
        for fname, f in fields.items():
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            assert sig.parameters[fname].default == default, (name, fname)
            assert fname in analysis_function(name).__doc__
    with pytest.raises(ValidationError, match="did you mean cap"):
        rl.probes({"bm25": "bm25"}, "demo", capp=3)


def test_spec_string_equals_door():
    from ranklens.drive import load_dataset, run_analysis

    via_face = rl.probes({"bm25": "bm25"}, "demo", **PROBE)
    via_door = run_analysis("probes", load_dataset("demo", {"spec": "demo"}), {"bm25": {"spec": "bm25"}}, PROBE)
    assert via_face[0].table.equals(via_door[0].table)
    assert "<table" in via_face._repr_html_() and "probes" in via_face[0]._repr_html_()


def test_rl_names_keep_the_packages_importable(tmp_path):
    import ranklens.probes as pkg
    from ranklens.store import ResultsStore

    assert callable(rl.probes) and pkg is rl.probes and pkg.declaration.ANALYSIS.name == "probes"
    assert isinstance(rl.results(tmp_path), ResultsStore) and rl.results.Result is rl.Result
    with pytest.raises(AttributeError):
        rl.no_such_name  # noqa: B018


def test_callable_ranker_scores_and_is_never_tried_as_embedder():
    with pytest.warns(rl.RanklensWarning, match="version"):
        from ranklens import objects  # the warning is issued once per kind per process

        objects._WARNED.discard("callable")
        res = rl.probes({"mine": overlap, "bm25": "bm25"}, "demo", **PROBE)
    assert set(res[0].summary["models"]) == {"mine", "bm25"}
    assert res[0].summary["model_calls"]["mine"] > 0
    specs, objs = normalise_models({"mine": overlap, "emb": lengths, "s": "bm25"})
    assert specs["s"] == {"spec": "bm25", "params": {}}
    mo = objs[specs["mine"]["spec"]]
    assert mo.ranker is not None and mo.embedder is None
    assert objs[specs["emb"]["spec"]].embedder is not None and objs[specs["emb"]["spec"]].ranker is None


def test_unknown_kind_and_bad_arity_are_validation_errors():
    with pytest.raises(ValidationError, match="'x'.*not a model this door accepts"):
        rl.probes({"x": 42}, "demo", **PROBE)
    with pytest.raises(ValidationError, match="takes 3 positional"):
        adapt("three", lambda a, b, c: 0)
    with pytest.raises(ValidationError, match="keys"):
        normalise_models({"m": {"modle": overlap}})


def test_ranklens_ranker_object_and_pyterrier_needs_version():
    from ranklens.rankers.bm25 import BM25Ranker

    mo = adapt("b", BM25Ranker())
    assert mo.ranker is not None and mo.fingerprint == BM25Ranker().fingerprint

    class FakePT:  # looks like pyterrier.Transformer by class name and module
        pass

    FakePT.__module__ = "pyterrier.transformer"
    FakePT.__name__ = "Transformer"
    with pytest.raises(ValidationError, match="needs a version"):
        adapt("pt", FakePT())


def test_version_replaces_fingerprint_and_changes_it():
    a = normalise_models({"m": {"model": overlap, "version": "v1"}})[0]["m"]["spec"]
    b = normalise_models({"m": {"model": overlap, "version": "v2"}})[0]["m"]["spec"]
    assert a != b and a.endswith("#v1")


@pytest.mark.slow
def test_cross_encoder_object_fingerprint_follows_weights():
    import torch
    from sentence_transformers import CrossEncoder

    from ranklens._models import default_model_path

    torch.manual_seed(0)
    ce = CrossEncoder(default_model_path(), num_labels=1, device="cpu")
    fp1 = adapt("ce", ce).fingerprint
    assert adapt("ce", ce).fingerprint == fp1  # stable
    with torch.no_grad():
        next(iter(ce.model.parameters())).add_(1e-3)
    assert adapt("ce", ce).fingerprint != fp1
    res = rl.probes({"mine": ce, "bm25": "bm25"}, "demo", **PROBE)
    html = res._repr_html_()
    assert "mine" in html and "<table" in html


def test_spec_string_gives_the_cli_numbers(tmp_path):
    from ranklens.cli import main

    assert main(["probes", "--collection", "demo", "--model", "bm25", "--probes", "tr-shuffle-words", "--cap", "10",
                 "--out", str(tmp_path)]) == 0
    saved = {d.name: rl.Result.load(d) for d in tmp_path.iterdir() if (d / "result.json").is_file()}
    face = rl.probes({"bm25": "bm25"}, "demo", **PROBE)
    for res in face:
        cli = saved[res.kind]
        assert res.summary["deltas"] == cli.summary["deltas"]
        a, b = res.table.reset_index(drop=True), cli.table.reset_index(drop=True)
        num = a.select_dtypes("number").columns
        assert list(a.columns) == list(b.columns) and len(a) == len(b)
        assert (a[num].to_numpy() == b[num].to_numpy()).all() or a[num].equals(b[num])


def test_typed_stub_is_current_and_parses():
    import ast
    from pathlib import Path

    from ranklens.face import stub_text

    stub = Path(rl.__file__).with_name("__init__.pyi")
    assert stub.read_text() == stub_text(), "regenerate: python -m ranklens.face > src/ranklens/__init__.pyi"
    names = {n.name for n in ast.parse(stub.read_text()).body if isinstance(n, ast.FunctionDef)}
    assert {"evaluate", "store", "check"} <= names
    # the analysis names stay subpackages for static tools (a stub function would hide them)
    assert not names & {"asl", "probes", "neighbors", "regimes", "explain"}


@pytest.mark.slow
@pytest.mark.realdata
def test_the_issue_call_with_a_cross_encoder_object():
    """rl.probes({"mine": CrossEncoder, "bm25": "bm25"}, "demo", probes=["tr-typo"], cap=20) (tr-typo reads the
    misspellings lists: real data)."""
    import torch
    from sentence_transformers import CrossEncoder

    from ranklens._models import default_model_path

    torch.manual_seed(0)
    ce = CrossEncoder(default_model_path(), num_labels=1, device="cpu")
    res = rl.probes({"mine": ce, "bm25": "bm25"}, "demo", probes=["tr-typo"], cap=20)
    assert res[0].summary["model_calls"]["mine"] > 0 and "tr-typo" in res._repr_html_()
    spec_only = rl.probes({"bm25": "bm25"}, "demo", probes=["tr-typo"], cap=20)
    b = res[0].table[res[0].table["model"] == "bm25"].reset_index(drop=True) if "model" in res[0].table else None
    if b is not None:  # bm25's numbers do not depend on the other model given beside it
        s = spec_only[0].table[spec_only[0].table["model"] == "bm25"].reset_index(drop=True)
        # p_adjusted differs by design: the correction runs over the table, here 2 models against 1
        assert b.select_dtypes("number").drop(columns="p_adjusted").equals(
            s.select_dtypes("number").drop(columns="p_adjusted"))
        assert b.loc[0, "p_adjusted"] == pytest.approx(min(1.0, 2 * s.loc[0, "p_adjusted"]))


@pytest.mark.slow
def test_sentence_transformer_object_is_an_embedder_with_a_weight_fingerprint():
    import torch
    from sentence_transformers import SentenceTransformer

    from ranklens._models import default_model_path

    st = SentenceTransformer(default_model_path(), device="cpu")
    mo = adapt("st", st)
    assert mo.embedder is not None and mo.ranker is None
    assert mo.embedder.encode(["a cat", "a dog"]).shape == (2, 384)
    st[1].pooling_mode = "cls"  # a config change (what a changed 1_Pooling/config.json loads as)
    assert st[1].get_config_dict()["pooling_mode"] == "cls"
    assert adapt("st", st).fingerprint != mo.fingerprint
    with torch.no_grad():
        next(iter(st.parameters())).mul_(1.01)
    assert len({mo.fingerprint, adapt("st", st).fingerprint}) == 2
