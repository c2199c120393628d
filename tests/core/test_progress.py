"""``ranklens -q`` (progress_setting(False)) and ``RANKLENS_PROGRESS=0`` also silence Hugging Face's model-loading bars,
and restores them afterwards."""

from __future__ import annotations

import pytest

from ranklens._progress import progress_enabled, progress_setting


def test_quiet_silences_and_restores_hugging_face_bars(monkeypatch):
    monkeypatch.delenv("RANKLENS_PROGRESS")  # (the tests' fixture turns bars off)
    hub = pytest.importorskip("huggingface_hub.utils")
    tf = pytest.importorskip("transformers.utils.logging")
    assert not hub.are_progress_bars_disabled() and tf.is_progress_bar_enabled()
    with progress_setting(False):
        assert not progress_enabled()
        assert hub.are_progress_bars_disabled() and not tf.is_progress_bar_enabled()
    assert not hub.are_progress_bars_disabled() and tf.is_progress_bar_enabled()
    with progress_setting(None):  # automatic leaves them alone
        assert tf.is_progress_bar_enabled()


def test_quiet_keeps_a_user_choice_to_disable_them():
    hub = pytest.importorskip("huggingface_hub.utils")
    hub.disable_progress_bars()
    try:
        with progress_setting(False):
            pass
        assert hub.are_progress_bars_disabled()
    finally:
        hub.enable_progress_bars()


def test_the_environment_switch_silences_them_too(monkeypatch):
    hub = pytest.importorskip("huggingface_hub.utils")
    tf = pytest.importorskip("transformers.utils.logging")
    monkeypatch.setenv("RANKLENS_PROGRESS", "0")
    with progress_setting(None):
        assert not progress_enabled()
        assert hub.are_progress_bars_disabled() and not tf.is_progress_bar_enabled()
    assert not hub.are_progress_bars_disabled() and tf.is_progress_bar_enabled()
    monkeypatch.setenv("RANKLENS_PROGRESS", "1")
    with progress_setting(None):
        assert progress_enabled() and tf.is_progress_bar_enabled()
