"""``ranklens cache info|clear``: inspect or empty the score/embedding cache."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cache", help="show the size of the score cache or clear it")
    p.add_argument("action", choices=["info", "clear"])
    p.add_argument("--fingerprint", help="with clear: only this component's entries")
    p.set_defaults(func=run, engine_options=("--cache-dir",))  # runs no model: ranklens.cli.ENGINE_OPTIONS


def run(args: argparse.Namespace) -> int:
    from ..engine import SQLiteCache, default_engine
    from ..errors import CacheError, ValidationError
    from ._unread import Reader, refuse_unread

    refuse_unread(args, "cache", args.action, {"fingerprint": Reader("--fingerprint", ("clear",))})

    cache = default_engine().cache  # the one --cache-dir / RANKLENS_CACHE_DIR selects
    if not isinstance(cache, SQLiteCache):
        raise ValidationError("no on-disk cache in use (--no-cache / RANKLENS_NO_CACHE); nothing to show or clear")
    if args.action == "info":
        info = cache.info()
        print(json.dumps(info, indent=2, sort_keys=True))
        return 0
    try:
        n = cache.clear(args.fingerprint)
    except CacheError as exc:
        if "corrupt" not in str(exc):
            raise
        removed = cache.remove_files()  # a corrupt cache cannot be emptied row by row: remove it
        print(f"removed the corrupt cache ({', '.join(str(f) for f in removed)})", file=sys.stderr)
        return 0
    print(f"deleted {n} cache entries from {cache.path}")
    return 0
