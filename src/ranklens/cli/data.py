"""``ranklens data list|info|verify|add|fetch``: the registry of external data
(:mod:`ranklens.datareg`): what is registered, where it is found, whether its hashes match."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("data", help="external data: list, info, verify hashes, add a local copy, fetch",
                       description="Resources are looked up in --data-dir / $RANKLENS_DATA, then the user data "
                                   "cache ($RANKLENS_DATA_CACHE, else $XDG_CACHE_HOME/ranklens/data, else "
                                   "~/.cache/ranklens/data); never relative to the working directory.")
    p.add_argument("action", choices=["list", "info", "verify", "add", "fetch"])
    p.add_argument("target", nargs="?", help="info/fetch: a resource name; add: a folder; verify: resource names")
    p.add_argument("--data-dir", help="a data root holding the resource folders (default: $RANKLENS_DATA)")
    p.add_argument("--mirror", help="fetch: a URL laid out as a data root (default: $RANKLENS_DATA_MIRROR)")
    p.set_defaults(func=run, engine_options=())  # runs no model: ranklens.cli.ENGINE_OPTIONS


def _where(name: str, data_dir: str | None) -> str:
    from ..datareg import MissingDataError, resolve

    try:
        return str(resolve(name, data_dir))
    except MissingDataError:
        return "-"


def run(args: argparse.Namespace) -> int:
    from ..datareg import RESOURCES, add, cache_dir, explicit_root, fetch, get_resource, places, verify
    from ..errors import ValidationError
    from ._unread import Reader, refuse_unread

    refuse_unread(args, "data", args.action, {
        "target": Reader("the resource or folder (TARGET)", ("info", "verify", "add", "fetch")),
        "data_dir": Reader("--data-dir", ("list", "info", "verify")),
        "mirror": Reader("--mirror", ("fetch",))})
    if args.action == "list":
        print(f"{'name':<16} {'files':>5}  {'found at':<50} title")
        for r in RESOURCES.values():
            n = str(len(r.files)) if r.pinned else "-"
            print(f"{r.name:<16} {n:>5}  {_where(r.name, args.data_dir):<50} {r.title}")
        print(f"(user data cache: {cache_dir()})")
        return 0
    if args.action == "info":
        if not args.target:
            raise ValidationError("`ranklens data info NAME`: name a resource (`ranklens data list`)")
        r = get_resource(args.target)
        print(f"{r.name}: {r.title}\n  source:  {r.url}\n  version: {r.version}\n  licence: {r.licence}\n"
              f"  folder:  {r.folder}/ ({len(r.files)} pinned files)" + (f"\n  note:    {r.note}" if r.note else ""))
        for label, folder in places(r.name, args.data_dir):
            print(f"  looked:  {label}: {folder or 'not set'}" + (" (found)" if folder and folder.is_dir() else ""))
        print("  fetch:   " + ("each file from its upstream repository at the pinned commit (no mirror needed)"
                                 if r.sources else "from a mirror only (--mirror / $RANKLENS_DATA_MIRROR)"))
        for rel, h in list(r.files.items())[:20]:
            src = r.sources.get(rel)
            up = f"  <- {src[0]}@{src[1][:8]}:{src[2]}{'#' + src[3] if src[3] else ''}" if src else ""
            print(f"    {h}  {rel}{up}")
        if len(r.files) > 20:
            print(f"    ... {len(r.files) - 20} more")
        return 0
    if args.action == "verify":
        root, _how = explicit_root(args.data_dir)
        names = [args.target] if args.target else None
        checks = verify(root, names) if root else verify(None, names)
        bad = 0
        for c in checks:
            pinned = get_resource(c.name).pinned
            print(f"{c.status:<10} {c.name:<16} {c.n_files:>4} files  {c.folder}")
            for prob in c.problems[:5]:
                print(f"           {prob}")
            bad += pinned and c.status != "ok"
        ok = sum(c.status == "ok" for c in checks)
        pinned_n = sum(get_resource(c.name).pinned for c in checks)
        print(f"{ok}/{pinned_n} pinned resources present with matching SHA-256"
              + (f"; {len(checks) - pinned_n} not pinned (presence only)" if len(checks) > pinned_n else ""))
        return 1 if bad else 0
    if args.action == "add":
        if not args.target:
            raise ValidationError("`ranklens data add PATH`: give a data root or a resource folder")
        for c in add(args.target):
            print(f"added {c.name} -> {c.folder} ({c.status}, {c.n_files} files)")
        return 0
    if not args.target:
        raise ValidationError("`ranklens data fetch NAME`: name a resource (`ranklens data list`)")
    c = fetch(args.target, mirror=args.mirror)
    print(f"fetched {c.name} -> {c.folder} ({c.status}, {c.n_files} files)")
    return 0 if c.status == "ok" else 1


__all__ = ["register", "run"]
