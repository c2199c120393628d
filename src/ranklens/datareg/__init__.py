"""The registry of external data: every resource an analysis reads (misspelling lists, MRPC, JFLEG,
TurkCorpus, WNC, XSum, CNN/DailyMail, NQ, STS-B, WikiQA, TREC DL qrels and runs, ...) declared once
with its source, version, licence, expected files and their SHA-256 (:data:`RESOURCES`). An analysis
names the resources it uses by name (``resolve("mrpc", explicit)``); this module names no analysis.

Resolution (:func:`resolve`), the same at every door and independent of the working directory:

1. an explicit folder: ``explicit`` (``--data-dir``, a parameter), else ``$RANKLENS_DATA``
   (``$RANKLENS_SHARED_DATA``, its old name, still read with a warning); the resource is the
   sub-folder ``<folder>/<resource.folder>``;
2. the user data cache :func:`cache_dir` (``$RANKLENS_DATA_CACHE``, else
   ``$XDG_CACHE_HOME/ranklens/data``, else ``~/.cache/ranklens/data``), filled by
   ``ranklens data fetch NAME`` or ``ranklens data add PATH``;
3. else :class:`MissingDataError` naming the resource, every place looked and the fix.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import RanklensError, ValidationError
from ._manifest import MANIFEST
from ._sources import SOURCES

#: Where :func:`fetch` downloads a file of a resource with upstream sources (GitHub's raw files:
#: ``<RAW_BASE>/<repository>/<commit>/<path>``); tests point it at a server on 127.0.0.1.
RAW_BASE = "https://raw.githubusercontent.com"
#: Files a resource may lack: notes written when the data were gathered, which no source serves.
OPTIONAL_FILES = frozenset({"SOURCE.md"})

__all__ = [
    "MissingDataError",
    "RESOURCES",
    "Resource",
    "add",
    "cache_dir",
    "explicit_root",
    "fetch",
    "get_resource",
    "places",
    "register_resource",
    "resolve",
    "verify",
]


class MissingDataError(RanklensError, FileNotFoundError):
    """A registered resource is found nowhere; the message names it, the places looked and the fix."""

    def __str__(self) -> str:  # FileNotFoundError's own __str__ would show an errno tuple
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Resource:
    """One external resource: ``folder`` is its sub-folder in a data root; ``files`` maps each
    expected file (relative to the folder) to its SHA-256 (empty: not pinned, only presence is
    checked); ``url`` the source (repository at a commit, or a download page); ``sources`` maps a
    file to ``(repository, commit, path, archive member or None)`` upstream, where :func:`fetch`
    can download it without a mirror (:data:`OPTIONAL_FILES` need none)."""

    name: str
    title: str
    folder: str
    url: str
    version: str
    licence: str
    files: dict[str, str] = field(default_factory=dict)
    note: str = ""
    sources: dict[str, tuple[str, str, str, str | None]] = field(default_factory=dict)

    @property
    def pinned(self) -> bool:
        return bool(self.files)


def _gh(repo: str, commit: str) -> str:
    return f"https://github.com/{repo}/tree/{commit}"


RESOURCES: dict[str, Resource] = {}


def register_resource(res: Resource, *, replace: bool = False) -> None:
    """Add a resource (a plug-in's own data, a test's); ``replace=True`` overrides one by name."""
    if res.name in RESOURCES and not replace:
        raise ValidationError(f"data resource {res.name!r} is already registered; pick another name")
    RESOURCES[res.name] = res


_BUILTIN = [
    ("misspellings", "Wikipedia's list of common misspellings (For machines) + Aspell/Birkbeck lists", "misspellings",
     _gh("GNUAspell/bench", "005329c2a2bec218b3206044f360a451a2cf7de8"), "aspell bench 2019-07-11; NL-Augmenter b64a8ef",
     "Wikipedia-derived: CC BY-SA; NL-Augmenter MIT; Birkbeck free for research"),
    ("mrpc", "Microsoft Research Paraphrase Corpus (train 4,076 / test 1,725)", "mrpc",
     _gh("galsang/ABCNN", "f95b9a171f1d41cb8012af2f69d5d845f5703463"), "MSR download 52398",
     "Microsoft's MRPC licence (research)"),
    ("jfleg", "JFLEG dev/test with 4 reference corrections", "jfleg",
     _gh("keisks/jfleg", "ee06ff806a208aba815ac45313f4e750a48330a5"), "2023-06-12", "CC BY-NC-SA 4.0"),
    ("turkcorpus", "TurkCorpus / WikiTurk simplifications (tune 2,000 / test 359)", "turkcorpus",
     _gh("cocoxu/simplification", "35570464faa28f8f64d75e1c35b6770048e04adc"), "2023-07-07",
     "GPL-3.0 (repository); Wikipedia text CC BY-SA"),
    ("wnc", "Wiki Neutrality Corpus sample (1,000 train + 100 test)", "wnc_sample",
     _gh("rpryzant/neutralizing-bias", "b7b42e71d211b4f9a757a5e8d9aa98236fb733ec"), "baseline sample 2019-11-11",
     "MIT (repository); Wikipedia text CC BY-SA"),
    ("xsum", "XSum 1,000 (document, summary)", "xsum_sample",
     _gh("voidism/Lookback-Lens", "f2846ef21deecc4c016fc44a1820373e3f255e96"), "xsum-1000.jsonl",
     "MIT (repository); XSum CC BY-SA 4.0, BBC texts"),
    ("nq", "Natural Questions (NQ-Open) oracle passages, 2,655 questions", "nq_oracle_sample",
     _gh("nelson-liu/lost-in-the-middle", "29b8a6d042ce29abccee3db1a73171a107d7e6af"), "nq-open-oracle.jsonl.gz",
     "MIT (repository); NQ CC BY-SA 3.0"),
    ("stsb", "STS Benchmark train/dev/test (official archive)", "stsb",
     _gh("eduardofv/sts_eval", "b4cd273eb2c6cc0de34ebeffebd12ebf155ecff6"), "2017-02 archive",
     "scores CC BY-SA 4.0; sentences their sources' licences"),
    ("wikiqa", "WikiQA question-sentence pairs (train/dev/test)", "wikiqa",
     _gh("rohantilva/Google-Like-Question-Answering-System", "33b4bc236eebccb53dcfb396bfcccf3f88cf48dd"),
     "WikiQACorpus", "Microsoft Research Data License (research only)"),
    ("trec-dl-qrels", "TREC DL 2019/2020 topics and graded qrels; MS MARCO dev-small", "trec_dl_msmarco_passage",
     _gh("castorini/anserini-tools", "5b819c1a45c8a0a3ec9426f476694f44a29dfaf3"), "2026-08-21",
     "not stated (anserini Apache-2.0); MS MARCO non-commercial research terms"),
    ("trec-dl-runs", "TREC DL 2019/2020 passage runs + official per-run scores", "trec_dl_runs",
     _gh("Parry-Parry/sigir25-annotation", "935c789fd39a6aa450ce1911188e76a0b26a407a"), "2025-02-19",
     "not stated; NIST TREC results: research/testing only, do not redistribute"),
]
for _n, _t, _f, _u, _v, _l in _BUILTIN:
    register_resource(Resource(_n, _t, _f, _u, _v, _l, dict(MANIFEST.get(_f, {})), sources=dict(SOURCES.get(_f, {}))))
register_resource(Resource(
    "cnndm", "CNN/DailyMail (highlights, article) sample", "cnndm", "https://github.com/abisee/cnn-dailymail",
    "user-supplied", "Apache-2.0 scripts; CNN/DM articles for research",
    note="not pinned: no public copy was obtained; put a cnndm-1000.jsonl (or the .story files) in <root>/cnndm/"))
register_resource(Resource(
    "gyafc", "GYAFC formality corpus", "gyafc", "https://github.com/raosudha89/GYAFC-corpus", "user-supplied",
    "Yahoo L6 licence: no redistribution (ask the authors)",
    note="not pinned: licensed data; put the split folders in <root>/gyafc/"))
register_resource(Resource(
    "restrain-splits", "the ReSTrain interpolation/extrapolation splits (published)", "restrain_splits",
    _gh("jingtaozhan/extrapolate-eval", "main"), "user-supplied", "see the repository",
    note="not pinned: not in the shared data; put the {interpolate,extrapolate}.*-qrel.txt folders in "
         "<root>/restrain_splits/"))


def get_resource(name: str) -> Resource:
    if name not in RESOURCES:
        import difflib

        close = difflib.get_close_matches(name, sorted(RESOURCES), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValidationError(f"no data resource named {name!r}.{hint} List them with `ranklens data list`.")
    return RESOURCES[name]


def cache_dir() -> Path:
    """The user data cache: ``$RANKLENS_DATA_CACHE``, else ``$XDG_CACHE_HOME/ranklens/data``, else
    ``~/.cache/ranklens/data`` (never relative to the working directory)."""
    env = os.environ.get("RANKLENS_DATA_CACHE")
    if env:
        return Path(env).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return (base / "ranklens" / "data").resolve()


def explicit_root(explicit: str | os.PathLike[str] | None = None) -> tuple[Path | None, str]:
    """``(folder, where it came from)``: ``explicit`` (unless ``None``/``""``/``"auto"``), else
    ``$RANKLENS_DATA``, else the deprecated ``$RANKLENS_SHARED_DATA``; ``(None, "")`` when none."""
    if explicit not in (None, "", "auto"):
        return Path(str(explicit)).expanduser().resolve(), "explicit path"
    if os.environ.get("RANKLENS_DATA"):
        return Path(os.environ["RANKLENS_DATA"]).expanduser().resolve(), "$RANKLENS_DATA"
    if os.environ.get("RANKLENS_SHARED_DATA"):
        warnings.warn("RANKLENS_SHARED_DATA is deprecated; set RANKLENS_DATA", FutureWarning, stacklevel=3)
        return Path(os.environ["RANKLENS_SHARED_DATA"]).expanduser().resolve(), "$RANKLENS_SHARED_DATA"
    return None, ""


def places(name: str, explicit: str | os.PathLike[str] | None = None) -> list[tuple[str, Path | None]]:
    """The places :func:`resolve` looks for resource ``name``, in order: ``(label, folder)``
    (``folder`` is ``None`` where nothing was given)."""
    res = get_resource(name)
    root, how = explicit_root(explicit)
    return [(how or "explicit path / $RANKLENS_DATA", root / res.folder if root else None),
            ("user data cache", cache_dir() / res.folder)]


def resolve(name: str, explicit: str | os.PathLike[str] | None = None) -> Path:
    """The folder of resource ``name`` (see the module docstring for the order).

    Raises:
        MissingDataError: found nowhere; names the places looked and the fix.
    """
    looked = places(name, explicit)
    for _label, folder in looked:
        if folder is not None and folder.is_dir():
            return folder
    lines = "; ".join(f"{label}: {folder if folder else 'not set'}" for label, folder in looked)
    raise MissingDataError(
        f"data resource {name!r} ({get_resource(name).title}) not found. Looked in: {lines}. Fix: "
        f"`ranklens data fetch {name}`, or `ranklens data add PATH` (a folder holding "
        f"{get_resource(name).folder}/), or point --data-dir / $RANKLENS_DATA at such a folder")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class Check:
    """The state of one resource in one root: ``status`` is ``ok``, ``present`` (not pinned),
    ``missing``, ``incomplete`` or ``mismatch``; ``problems`` names the files."""

    name: str
    folder: Path
    status: str
    n_files: int
    problems: tuple[str, ...] = ()


def check(name: str, folder: str | os.PathLike[str]) -> Check:
    """Check the files of resource ``name`` in ``folder`` (the resource's own folder) against its hashes."""
    res, d = get_resource(name), Path(folder)
    if not d.is_dir():
        return Check(name, d, "missing", 0, (f"{d}: no such folder",))
    if not res.pinned:
        return Check(name, d, "present", sum(1 for p in d.rglob("*") if p.is_file()))
    problems, status = [], "ok"
    for rel, want in res.files.items():
        p = d / rel
        if not p.is_file() and rel in OPTIONAL_FILES:
            continue
        if not p.is_file():
            problems.append(f"{p}: missing")
            status = "incomplete" if status == "ok" else status
        elif _sha256(p) != want:
            problems.append(f"{p}: SHA-256 differs from the registry's {want[:12]}...")
            status = "mismatch"
    return Check(name, d, status, len(res.files), tuple(problems))


def verify(root: str | os.PathLike[str] | None = None, names: list[str] | None = None) -> list[Check]:
    """Check every registered resource (or ``names``) under ``root`` (each in ``<root>/<folder>``);
    ``root=None``: each resource where :func:`resolve` finds it."""
    out = []
    for n in names or sorted(RESOURCES):
        if root is not None:
            out.append(check(n, Path(root) / get_resource(n).folder))
            continue
        try:
            out.append(check(n, resolve(n)))
        except MissingDataError:
            out.append(check(n, cache_dir() / get_resource(n).folder))
    return out


def add(path: str | os.PathLike[str], *, names: list[str] | None = None) -> list[Check]:
    """Import a local copy into the user data cache: ``path`` is a data root (holding resource
    folders) or one resource's folder (named like its ``folder``). Pinned resources are copied only
    when every hash matches. Returns the checks of what was imported.

    Raises:
        MissingDataError: ``path`` holds no registered resource.
        ValidationError: a pinned resource's files do not match the registry (nothing copied for it).
    """
    src = Path(path).expanduser().resolve()
    by_folder = {r.folder: r.name for r in RESOURCES.values()}
    found = ({by_folder[src.name]: src} if src.name in by_folder else
             {n: src / get_resource(n).folder for n in (names or sorted(RESOURCES))
              if (src / get_resource(n).folder).is_dir()})
    if not found:
        raise MissingDataError(f"{src}: holds no registered resource folder (expected one of "
                               f"{', '.join(sorted(by_folder))}); see `ranklens data list`")
    out = []
    for n, folder in found.items():
        c = check(n, folder)
        if c.status not in ("ok", "present"):
            raise ValidationError(f"{folder}: {n} does not match the registry ({c.status}): "
                                  + "; ".join(c.problems[:3]) + ". Nothing copied; fetch a clean copy.")
        from ..files import atomic_output

        dest = cache_dir() / get_resource(n).folder
        # copied beside the cache's copy and swapped in whole: a failed copy leaves the old one
        with atomic_output(dest, what=f"data folder of {n}", directory=True) as tmp:
            shutil.copytree(folder, tmp, dirs_exist_ok=True)
        out.append(check(n, dest))
    return out


def _upstream_url(src: tuple[str, str, str, str | None]) -> str:
    repo, commit, path, _member = src
    return f"{RAW_BASE.rstrip('/')}/{repo}/{commit}/{path}"


def fetch(name: str, *, mirror: str | None = None, timeout: float = 30.0) -> Check:
    """Download resource ``name`` into the user data cache and check every hash.

    Where from: ``mirror`` (or ``$RANKLENS_DATA_MIRROR``), a URL laid out as a data root
    (``<mirror>/<folder>/<file>``); else the resource's upstream ``sources`` (each file from its
    repository at the pinned commit, an archive member extracted); else nowhere (an error saying
    where to put the files by hand). Nothing is kept unless every file matches its SHA-256.

    Raises:
        MissingDataError: no mirror and no upstream source is known, or the network is
            unreachable (the message says where to put the files by hand).
        ValidationError: a downloaded file's SHA-256 differs (nothing is kept).
    """
    import io
    import tarfile
    import urllib.error
    import urllib.request

    res = get_resource(name)
    dest = cache_dir() / res.folder
    by_hand = (f"Put the files of {res.url} ({', '.join(list(res.files)[:3]) or 'see the source'}"
               f"{', ...' if len(res.files) > 3 else ''}) in {dest}/, or run `ranklens data add PATH`.")
    base = mirror or os.environ.get("RANKLENS_DATA_MIRROR")
    wanted = {rel: h for rel, h in res.files.items() if base or rel not in OPTIONAL_FILES}
    upstream = not base and res.pinned and all(rel in res.sources for rel in wanted)
    if not res.pinned or not (base or upstream):
        raise MissingDataError(f"no download location for {name!r} (set --mirror or $RANKLENS_DATA_MIRROR to a "
                               f"URL laid out as a data root{'' if res.pinned else '; the resource is not pinned'}"
                               f"{'; it has no upstream source (derived files)' if res.pinned else ''}). "
                               + by_hand)

    def download(url: str) -> bytes:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as r:
                return r.read()
        except (urllib.error.URLError, OSError) as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise MissingDataError(f"cannot download {url} ({getattr(exc, 'reason', exc)}): offline or not "
                                   f"served there. " + by_hand) from None

    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    archives: dict[str, bytes] = {}  # an archive holding several files is downloaded once
    for rel, want in wanted.items():
        if upstream:
            src = res.sources[rel]
            url = _upstream_url(src)
            if src[3] is None:
                data = download(url)
            else:
                if url not in archives:
                    archives[url] = download(url)
                try:
                    with tarfile.open(fileobj=io.BytesIO(archives[url])) as tar:
                        member = tar.extractfile(src[3])
                        data = member.read() if member is not None else b""
                except (tarfile.TarError, KeyError) as exc:
                    shutil.rmtree(tmp, ignore_errors=True)
                    raise ValidationError(f"{url}: cannot read {src[3]} from the archive ({exc}); nothing kept") from None
                url = f"{url}#{src[3]}"
        else:
            url = f"{base.rstrip('/')}/{res.folder}/{rel}"
            data = download(url)
        got = hashlib.sha256(data).hexdigest()
        if got != want:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ValidationError(f"{url}: SHA-256 {got[:12]}... differs from the registry's {want[:12]}...; "
                                  "nothing kept")
        target = tmp / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        except OSError as exc:  # nothing half-written is kept: the folder becomes the resource only when whole
            from ..errors import OutputError
            from ..files import disk_problem

            shutil.rmtree(tmp, ignore_errors=True)
            raise OutputError(f"cannot write the downloaded file ({disk_problem(exc) or exc.strerror}); "
                              "nothing kept. Free space or set $RANKLENS_DATA_CACHE elsewhere", path=target) from None
    if dest.exists():
        shutil.rmtree(dest)
    tmp.rename(dest)
    return check(name, dest)
