"""What the fingerprints cover: a callable's sibling modules, a model folder's config files."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from ranklens.errors import RanklensWarning
from ranklens.neural import model_revision
from ranklens.rankers.callables import callable_fingerprint, load_callable


def _package(tmp_path, helper_body: str):
    pkg = tmp_path / "h1pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text(textwrap.dedent(helper_body))
    (pkg / "scoring.py").write_text("from .helper import weight\n\n\ndef score(queries, texts):\n"
                                    "    return [weight(q, t) for q, t in zip(queries, texts)]\n")
    for name in ("h1pkg", "h1pkg.helper", "h1pkg.scoring"):
        sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module("h1pkg.scoring").score


def test_a_helper_edit_in_a_sibling_module_changes_the_fingerprint(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    a = callable_fingerprint(_package(tmp_path, "def weight(q, t):\n    return 1.0\n"))[0]
    same = callable_fingerprint(_package(tmp_path, "def weight(q, t):\n    return 1.0\n"))[0]
    b = callable_fingerprint(_package(tmp_path, "def weight(q, t):\n    return 2.0\n"))[0]
    assert a == same and a != b


def test_loading_a_callable_without_version_says_what_is_not_seen(tmp_path, monkeypatch):
    import ranklens.rankers.callables as callables

    monkeypatch.syspath_prepend(str(tmp_path))
    _package(tmp_path, "def weight(q, t):\n    return 1.0\n")
    monkeypatch.setattr(callables, "_UNSEEN_WARNED", [])
    with pytest.warns(RanklensWarning, match="environment variables, data files"):
        load_callable("h1pkg.scoring:score")
    assert callables._UNSEEN_WARNED == ["h1pkg.scoring:score"]


def test_model_revision_covers_config_files(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    (tmp_path / "1_Pooling").mkdir()
    pooling = tmp_path / "1_Pooling" / "config.json"
    pooling.write_text('{"pooling_mode_mean_tokens": true}')
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "x.json").write_text("{}")
    before = model_revision(str(tmp_path))
    (tmp_path / ".cache" / "x.json").write_text('{"a": 1}')
    assert model_revision(str(tmp_path)) == before  # hidden folders are not the model
    pooling.write_text('{"pooling_mode_cls_token": true}')
    assert model_revision(str(tmp_path)) != before
