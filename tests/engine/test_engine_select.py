"""Choosing where the engine's batches run: --engine, RANKLENS_ENGINE, an experiment's [engine]
table (fast: nothing here starts Ray)."""

from __future__ import annotations

import pytest

from ranklens.engine import LocalDispatcher, default_engine, make_dispatcher, set_default_engine
from ranklens.engine.ray import RayDispatcher
from ranklens.errors import ValidationError


def test_specs_name_the_dispatcher_and_its_options():
    assert isinstance(make_dispatcher(None), LocalDispatcher)
    assert isinstance(make_dispatcher(" Local "), LocalDispatcher)
    assert isinstance(make_dispatcher({"type": "local"}), LocalDispatcher)
    d = make_dispatcher("ray")
    assert isinstance(d, RayDispatcher) and d.address is None and d.actors is None
    d = make_dispatcher("ray:ray://head:10001")
    assert isinstance(d, RayDispatcher) and d.address == "ray://head:10001"
    d = make_dispatcher({"type": "ray", "address": "auto", "actors": 3, "in_flight": 4, "gpus_per_actor": 0.5})
    assert (d.address, d.actors, d.in_flight, d.gpus_per_actor) == ("auto", 3, 4, 0.5)


@pytest.mark.parametrize("spec, message", [
    ("spark", "unknown engine 'spark'"),
    ({"type": "ray", "actor": 3}, r"unknown key\(s\) \['actor'\]"),
    ({"type": "ray", "actors": 0}, "actors must be an integer >= 1"),
    ({"type": "ray", "in_flight": True}, "in_flight must be an integer >= 1"),
    ({"type": "ray", "max_retries": -1}, "max_retries must be an integer >= 0"),
    ({"type": "local", "actors": 2}, "unknown engine 'local'"),
])
def test_bad_specs_are_refused_by_name(spec, message):
    with pytest.raises(ValidationError, match=message):
        make_dispatcher(spec)


def test_environment_chooses_the_default_engine(monkeypatch):
    monkeypatch.setenv("RANKLENS_ENGINE", "ray:auto")
    set_default_engine(None)
    d = default_engine().dispatcher
    assert isinstance(d, RayDispatcher) and d.address == "auto"
    monkeypatch.delenv("RANKLENS_ENGINE")
    set_default_engine(None)
    assert isinstance(default_engine().dispatcher, LocalDispatcher)


def test_cli_engine_option(monkeypatch):
    import argparse

    from ranklens.cli import _engine, build_parser

    args = build_parser().parse_args(["--engine", "ray:auto", "run", "exp.toml"])  # a command that runs models
    engine = _engine(args)
    assert isinstance(engine.dispatcher, RayDispatcher) and engine.dispatcher.address == "auto"
    assert engine.cache is default_engine().cache  # the same on-disk cache as without --engine
    monkeypatch.setenv("RANKLENS_ENGINE", "ray")
    set_default_engine(None)
    engine = _engine(argparse.Namespace(cache_dir=None, no_cache=True, quiet=False, engine=None))
    assert isinstance(engine.dispatcher, RayDispatcher)  # --no-cache keeps the environment's choice


def test_experiment_engine_table_is_validated_with_the_other_problems(tmp_path):
    from ranklens.experiment import load_experiment

    f = tmp_path / "exp.toml"
    f.write_text('[engine]\ntype = "ray"\nactorz = 2\n[models.b]\nspec = "bm25"\n[datasets.d]\nspec = "demo"\n'
                 '[[analyses]]\ntype = "asl"\nparams = { k = 5 }\n')
    with pytest.raises(ValidationError, match=r"unknown key\(s\) \['actorz'\]"):
        load_experiment(f)
    f.write_text('engine = "ray"\n[models.b]\nspec = "bm25"\n[datasets.d]\nspec = "demo"\n'
                 '[[analyses]]\ntype = "asl"\n')
    with pytest.raises(ValidationError, match="engine: must be a table"):
        load_experiment(f)
