"""A model that cannot be loaded is one located error: the spec, the path tried, the loader's
reason and the offline hint -- never a Hugging Face traceback (CLI without ``--debug``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from ranklens._models import ModelLoadError, explaining_load_errors, missing_local_path, offline_hint
from ranklens.cli import main
from ranklens.errors import RanklensError, ValidationError
from ranklens.rankers.base import BaseRanker
from ranklens.specs import build_model, check_spec


@pytest.mark.parametrize(("spec", "role", "path"), [
    ("st:{d}/no-model", "embedder", "{d}/no-model"),
    ("st:{d}/no-model", "ranker", "{d}/no-model"),
    ("cross-encoder:{d}/ce", "ranker", "{d}/ce"),
    ("monot5:{d}/t5", "ranker", "{d}/t5"),
    ("hf:{d}/bert:mean", "embedder", "{d}/bert"),
])
def test_missing_local_path_is_refused_when_built(tmp_path, spec, role, path):
    spec, path = spec.format(d=tmp_path), path.format(d=tmp_path)
    with pytest.raises(ModelLoadError) as info:
        build_model(spec, role)
    msg = str(info.value)
    assert f"cannot load model {spec!r}" in msg and f"tried {path}: not found" in msg, msg
    assert "saved model" in msg  # the fix for a local path
    assert not isinstance(info.value, ValidationError)  # drivers skip ValidationErrors; a typo must stop the run
    assert check_spec(spec, role) == [f"{spec!r}: model path {path} not found"]


def test_hub_names_and_existing_paths_are_not_checked_up_front(tmp_path):
    assert missing_local_path("sentence-transformers/all-MiniLM-L6-v2") is None
    assert missing_local_path(str(tmp_path)) is None
    assert missing_local_path("./surely-not-here") == "./surely-not-here"
    assert check_spec("st:org/name") == []


@dataclass(kw_only=True)
class _Failing(BaseRanker):
    """A ranker whose loader fails the way transformers does."""

    model: str
    error: Any = None

    def _load(self) -> Any:
        raise self.error

    def _score_batch(self, queries: list[str], texts: list[str]):
        self._model()
        return [0.0] * len(queries)


def test_loader_oserror_becomes_one_message_with_offline_hint(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", "/hf-home")
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    r = _Failing(model="org/absent", error=OSError("We couldn't connect to 'https://huggingface.co'"))
    with pytest.raises(ModelLoadError) as info:
        r.score(["q"], ["t"])
    msg = str(info.value)
    assert msg.startswith("cannot load model '_Failing': tried org/absent: OSError: We couldn't connect"), msg
    assert "HF_HUB_OFFLINE is set" in msg and "/hf-home/hub" in msg, msg
    assert isinstance(info.value.__cause__, OSError)


def test_offline_hint_depends_on_the_environment(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    assert "set HF_HUB_OFFLINE=1" in offline_hint("org/name")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    assert "HF_HUB_OFFLINE is set" in offline_hint("org/name")
    assert "saved model" in offline_hint("/abs/dir")


def test_other_errors_pass_unchanged():
    class Own(RanklensError):
        pass

    for exc in (ValueError("a bug of ours"), Own("ours"), KeyError("k")):
        with pytest.raises(type(exc)) as info:
            with explaining_load_errors(object()):
                raise exc
        assert info.value is exc


def test_value_error_raised_inside_a_loader_library_is_explained():
    import huggingface_hub.utils as hub_utils

    with pytest.raises(ModelLoadError) as info:
        with explaining_load_errors(_Failing(model="/x")):
            hub_utils.validate_repo_id("/x/y/z")
    assert "tried /x" in str(info.value)


def test_spec_names_the_component():
    from ranklens._models import spec_of
    from ranklens.embedders.sentence_transformers import SentenceTransformerEmbedder
    from ranklens.rankers.cross_encoder import CrossEncoderRanker

    assert spec_of(SentenceTransformerEmbedder(model="/m")) == "st:/m"
    assert spec_of(SentenceTransformerEmbedder()) == "minilm"
    assert spec_of(CrossEncoderRanker(model="/ce")) == "cross-encoder:/ce"


def test_cli_check_names_the_missing_path(tmp_path, capsys):
    exp = tmp_path / "exp.toml"
    exp.write_text(f'[models.a]\nspec = "st:{tmp_path}/gone"\n[datasets.demo]\nspec = "demo"\n'
                   '[[analyses]]\ntype = "neighbors"\n', encoding="utf-8")
    assert main(["run", str(exp), "--check"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"models.a.spec: 'st:{tmp_path}/gone': model path {tmp_path}/gone not found" in err, err
