"""Progress bars: tqdm on stderr, enabled for interactive terminals unless told otherwise.

``RANKLENS_PROGRESS=0`` turns bars off, ``=1`` forces them on; :func:`progress_setting` does the
same for one block of code without touching the environment (``ranklens -q``). Library code
never prints.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

_SETTING: contextvars.ContextVar[bool | None] = contextvars.ContextVar("ranklens_progress", default=None)


@contextmanager
def progress_setting(show: bool | None) -> Iterator[None]:
    """Within the block, bars are on (``True``), off (``False``) or automatic (``None``).

    Off (here, or ``RANKLENS_PROGRESS=0`` under ``None``) also silences the bars Hugging Face
    libraries draw while loading and saving models ("Loading weights", "Writing model shards"),
    restored when the block ends.
    """
    token = _SETTING.set(show)
    off = show is False or (show is None and _env_setting() is False)
    try:
        with _hugging_face_bars_off() if off else contextlib.nullcontext():
            yield
    finally:
        _SETTING.reset(token)


@contextmanager
def _hugging_face_bars_off() -> Iterator[None]:
    # huggingface_hub's switch is cheap to import and transformers reads it when it is imported;
    # a transformers already imported is switched directly. Both are restored on exit.
    try:
        from huggingface_hub import utils as hub
    except ImportError:
        hub = None
    hub_was_on = hub is not None and not hub.are_progress_bars_disabled()
    tf = sys.modules.get("transformers.utils.logging")
    tf_was_on = tf is not None and tf.is_progress_bar_enabled()
    if hub_was_on:
        hub.disable_progress_bars()
    if tf_was_on:
        tf.disable_progress_bar()
    try:
        yield
    finally:
        tf_now = sys.modules.get("transformers.utils.logging")
        if tf_now is not None and (tf_was_on or (tf is None and hub_was_on)):
            tf_now.enable_progress_bar()  # (this switches huggingface_hub's bars too)
        if hub is not None:
            (hub.enable_progress_bars if hub_was_on else hub.disable_progress_bars)()


def progress_enabled(show: bool | None = None) -> bool:
    """Decide whether to show a bar: explicit argument, then the env var, then ``isatty``."""
    if show is not None:
        return show
    if _SETTING.get() is not None:
        return bool(_SETTING.get())
    env = _env_setting()
    return env if env is not None else sys.stderr.isatty()


def _env_setting() -> bool | None:
    """``RANKLENS_PROGRESS``: True/False, or None when unset."""
    env = os.environ.get("RANKLENS_PROGRESS")
    return None if env is None else env.strip().lower() not in {"0", "false", "no", "off", ""}


def progress(
    iterable: Iterable[T] | None = None,
    *,
    total: int | None = None,
    desc: str | None = None,
    unit: str = "it",
    show: bool | None = None,
    **kwargs: Any,
) -> Any:
    """A tqdm bar (or a silent stand-in with the same ``update``/``close`` API)."""
    from tqdm.auto import tqdm

    return tqdm(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        disable=not progress_enabled(show),
        file=sys.stderr,
        dynamic_ncols=True,
        leave=False,
        **kwargs,
    )


def iterate(iterable: Iterable[T], **kwargs: Any) -> Iterator[T]:
    """Iterate with a progress bar."""
    yield from progress(iterable, **kwargs)
