"""Options that a built-in command's action does not read are refused, never silently ignored.

A command with actions (``ranklens results list|show|...``) declares, per option, the actions that
read it (:data:`Reader`); :func:`refuse_unread` raises :class:`~ranklens.errors.IgnoredOptionError`
(exit 2: one line naming the option, the action that would ignore it, the actions that read it and
the fix) when an option is given to an action that does not read it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

__all__ = ["Reader", "refuse_unread"]


class Reader(NamedTuple):
    option: str                 # as typed: "--fingerprint"
    actions: Sequence[str]      # the actions that read it
    default: Any = None         # its value when not given


def refuse_unread(args: argparse.Namespace, command: str, action: str, readers: Mapping[str, Reader]) -> None:
    """Refuse every option (dest -> :class:`Reader`) given to ``action`` when ``action`` does not read it."""
    from ..errors import IgnoredOptionError

    for dest, r in readers.items():
        value = getattr(args, dest, r.default)
        if action in r.actions or value == r.default or value in (None, [], False):
            continue
        readers_text = ", ".join(f"`ranklens {command} {a}`" for a in r.actions)
        raise IgnoredOptionError(f"ranklens {command} {action}: {r.option} is ignored by {action} (read by "
                                 f"{readers_text}); drop it (an ignored option is an error)")
