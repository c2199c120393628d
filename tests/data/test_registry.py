"""The data registry (:mod:`ranklens.datareg`): one resolution order at every door, independent of
the working directory; hashes checked by verify, add and fetch; a missing resource is an error that
names it, the places looked and the fix."""

from __future__ import annotations

import functools
import hashlib
import http.server
import threading

import pytest

from ranklens.cli import main
from ranklens.datareg import (
    RESOURCES,
    MissingDataError,
    Resource,
    add,
    check,
    fetch,
    resolve,
    verify,
)
from ranklens.errors import ValidationError

CONTENT = b"recieve\treceive\nwierd\tweird\n"


@pytest.fixture
def toy(monkeypatch, tmp_path):
    """A registered toy resource ``toy`` (folder ``toy_data/``, one pinned file) and a data root holding it."""
    res = Resource("toy", "a toy list", "toy_data", "https://example.org/toy", "1", "CC0",
                   {"list.tab": hashlib.sha256(CONTENT).hexdigest()})
    monkeypatch.setitem(RESOURCES, "toy", res)
    root = tmp_path / "root"
    (root / "toy_data").mkdir(parents=True)
    (root / "toy_data" / "list.tab").write_bytes(CONTENT)
    return root


def test_resolution_order_explicit_then_env_then_cache(toy, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("RANKLENS_DATA_CACHE", str(cache))
    with pytest.raises(MissingDataError) as err:
        resolve("toy")
    msg = str(err.value)
    assert "'toy'" in msg and str(cache / "toy_data") in msg and "ranklens data fetch toy" in msg
    assert "ranklens data add PATH" in msg and "$RANKLENS_DATA: not set" in msg
    (cache / "toy_data").mkdir(parents=True)
    assert resolve("toy") == cache / "toy_data"                       # 2. the user data cache
    monkeypatch.setenv("RANKLENS_DATA", str(toy))
    assert resolve("toy") == toy / "toy_data"                         # 1. $RANKLENS_DATA before the cache
    other = tmp_path / "other"
    (other / "toy_data").mkdir(parents=True)
    assert resolve("toy", str(other)) == other / "toy_data"           # 1. an explicit path before the env
    assert resolve("toy", "auto") == toy / "toy_data"


def test_resolution_ignores_the_working_directory(toy, tmp_path, monkeypatch):
    # a ../shared/data-like layout next to the working directory is never looked at
    (tmp_path / "shared" / "data").mkdir(parents=True)
    (tmp_path / "shared" / "data" / "toy_data").symlink_to(toy / "toy_data")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    with pytest.raises(MissingDataError):
        resolve("toy")
    monkeypatch.setenv("RANKLENS_DATA", "../root")  # a relative root is fixed when read
    assert resolve("toy") == (tmp_path / "root" / "toy_data").resolve()


def test_old_variable_is_a_deprecated_alias(toy, monkeypatch):
    monkeypatch.setenv("RANKLENS_SHARED_DATA", str(toy))
    with pytest.warns(FutureWarning, match="RANKLENS_DATA"):
        assert resolve("toy") == toy / "toy_data"


def test_verify_reports_ok_incomplete_and_mismatch(toy):
    assert check("toy", toy / "toy_data").status == "ok"
    (toy / "toy_data" / "list.tab").write_bytes(CONTENT + b"x\ty\n")
    c = check("toy", toy / "toy_data")
    assert c.status == "mismatch" and "list.tab" in c.problems[0]
    (toy / "toy_data" / "list.tab").unlink()
    assert check("toy", toy / "toy_data").status == "incomplete"
    assert [c.status for c in verify(toy, ["toy"])] == ["incomplete"]


def test_add_copies_a_matching_copy_into_the_cache(toy, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("RANKLENS_DATA_CACHE", str(cache))
    got = add(toy, names=["toy"])
    assert [(c.name, c.status) for c in got] == [("toy", "ok")]
    assert (cache / "toy_data" / "list.tab").read_bytes() == CONTENT
    assert resolve("toy") == cache / "toy_data"
    (toy / "toy_data" / "list.tab").write_bytes(b"changed\n")
    with pytest.raises(ValidationError, match="does not match"):
        add(toy / "toy_data")
    with pytest.raises(MissingDataError, match="holds no registered resource"):
        add(tmp_path / "cache" / "nothing-here")


@pytest.fixture
def server(toy):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(toy))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_fetch_downloads_and_checks_the_hash(toy, server, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("RANKLENS_DATA_CACHE", str(cache))
    c = fetch("toy", mirror=server)
    assert c.status == "ok" and (cache / "toy_data" / "list.tab").read_bytes() == CONTENT
    # a served file that differs from the registry is refused and not kept
    (toy / "toy_data" / "list.tab").write_bytes(b"tampered\n")
    monkeypatch.setenv("RANKLENS_DATA_CACHE", str(tmp_path / "cache2"))
    with pytest.raises(ValidationError, match="SHA-256"):
        fetch("toy", mirror=server)
    assert not (tmp_path / "cache2" / "toy_data").exists()


def test_fetch_offline_says_where_to_put_the_files(toy, tmp_path, monkeypatch):
    monkeypatch.setenv("RANKLENS_DATA_CACHE", str(tmp_path / "cache"))
    with pytest.raises(MissingDataError, match=r"no download location.*Put the files of .*list.tab.*cache/toy_data"):
        fetch("toy")
    with pytest.raises(MissingDataError, match=r"cannot download .*Put the files"):
        fetch("toy", mirror="http://127.0.0.1:9", timeout=2)  # port 9 (discard): nothing listens


def test_cli_data_verify_list_info(toy, capsys):
    assert main(["data", "verify", "toy", "--data-dir", str(toy)]) == 0
    out = capsys.readouterr().out
    assert "ok" in out and "1/1 pinned resources present with matching SHA-256" in out
    assert main(["data", "info", "toy"]) == 0
    assert hashlib.sha256(CONTENT).hexdigest() in capsys.readouterr().out
    (toy / "toy_data" / "list.tab").write_bytes(b"x\n")
    assert main(["data", "verify", "toy", "--data-dir", str(toy)]) == 1
    assert main(["data", "fetch", "nosuch"]) == 1
    assert "no data resource named 'nosuch'" in capsys.readouterr().err


def test_every_builtin_resource_is_declared_fully():
    for r in RESOURCES.values():
        assert r.url.startswith("https://") and r.licence and r.version and r.folder, r.name
        assert r.pinned or r.note, f"{r.name}: an unpinned resource says why"
        assert all(len(h) == 64 for h in r.files.values())


@pytest.mark.realdata
def test_verify_on_the_real_data_matches_every_pinned_hash(shared_data):
    checks = {c.name: c for c in verify(shared_data)}
    pinned = [n for n, r in RESOURCES.items() if r.pinned]
    assert len(pinned) >= 11
    assert {n: checks[n].status for n in pinned} == {n: "ok" for n in pinned}


# ------------------------------------------------------------------ fetching from the upstream sources

def _serve(folder):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def test_fetch_without_a_mirror_downloads_each_file_from_its_upstream_commit(tmp_path, monkeypatch):
    """A resource with upstream sources is fetched from ``<RAW_BASE>/<repo>/<commit>/<path>``, an
    archive member extracted (the archive downloaded once); SOURCE.md (notes) is optional; a
    tampered upstream file is refused and nothing is kept."""
    import io
    import tarfile

    import ranklens.datareg as dr

    member = b"a\t1\nb\t2\n"
    files = {"list.tab": hashlib.sha256(CONTENT).hexdigest(), "sub/scores.csv": hashlib.sha256(member).hexdigest(),
             "SOURCE.md": hashlib.sha256(b"notes").hexdigest()}
    sources = {"list.tab": ("org/repo", "c0ffee", "data/batch0.tab", None),
               "sub/scores.csv": ("org/repo", "c0ffee", "data/bundle.tar.gz", "bundle/scores.csv")}
    monkeypatch.setitem(RESOURCES, "up", Resource("up", "upstream toy", "up_data", "https://example.org/up", "1", "CC0",
                                                  files, sources=sources))
    raw = tmp_path / "raw" / "org" / "repo" / "c0ffee" / "data"
    raw.mkdir(parents=True)
    (raw / "batch0.tab").write_bytes(CONTENT)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("bundle/scores.csv")
        info.size = len(member)
        tar.addfile(info, io.BytesIO(member))
    (raw / "bundle.tar.gz").write_bytes(buf.getvalue())
    httpd, url = _serve(tmp_path / "raw")
    try:
        monkeypatch.setattr(dr, "RAW_BASE", url)
        monkeypatch.delenv("RANKLENS_DATA_MIRROR", raising=False)
        monkeypatch.setenv("RANKLENS_DATA_CACHE", str(tmp_path / "cache"))
        c = fetch("up")
        assert c.status == "ok" and c.problems == ()
        got = tmp_path / "cache" / "up_data"
        assert (got / "list.tab").read_bytes() == CONTENT and (got / "sub" / "scores.csv").read_bytes() == member
        assert not (got / "SOURCE.md").exists()  # optional: no source serves it, and verify does not ask for it
        (raw / "batch0.tab").write_bytes(b"tampered\n")
        monkeypatch.setenv("RANKLENS_DATA_CACHE", str(tmp_path / "cache2"))
        with pytest.raises(ValidationError, match=r"org/repo/c0ffee/data/batch0.tab: SHA-256"):
            fetch("up")
        assert not (tmp_path / "cache2" / "up_data").exists() and not (tmp_path / "cache2" / "up_data.part").exists()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_every_upstream_source_covers_every_required_file():
    """A resource with upstream sources names one for every pinned file but the optional notes, so
    `ranklens data fetch NAME` needs no mirror for it; the derived ones (runs cut to 100, WikiQA's
    reformatted files) say so by having none."""
    from ranklens.datareg import OPTIONAL_FILES

    with_sources = {n for n, r in RESOURCES.items() if r.sources}
    assert {"mrpc", "jfleg", "turkcorpus", "wnc", "xsum", "nq", "stsb", "misspellings", "trec-dl-qrels"} <= with_sources
    for n in with_sources:
        r = RESOURCES[n]
        assert set(r.files) - set(r.sources) <= OPTIONAL_FILES, n
        assert set(r.sources) <= set(r.files), n
        assert all(len(c) == 40 for _, c, _, _ in r.sources.values()), f"{n}: a source is pinned to a full commit"


@pytest.mark.realdata
def test_fetch_from_a_raw_layout_of_the_real_files(shared_data, tmp_path, monkeypatch):
    """The source table's file -> path mapping, served from the shared copies laid out as upstream
    (the archive member case for STS-B rebuilt as a tarball), fetches MRPC and STS-B with every hash ok."""
    import io
    import shutil
    import tarfile

    import ranklens.datareg as dr

    raw = tmp_path / "raw"
    for name in ("mrpc", "stsb"):
        r = RESOURCES[name]
        tars: dict = {}
        for rel, (repo, commit, path, member) in r.sources.items():
            target = raw / repo / commit / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if member is None:
                shutil.copyfile(shared_data / r.folder / rel, target)
            else:
                tars.setdefault(target, []).append((member, (shared_data / r.folder / rel).read_bytes()))
        for target, members in tars.items():
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w:gz") as tar:
                for m, data in members:
                    info = tarfile.TarInfo(m)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
            target.write_bytes(buf.getvalue())
    httpd, url = _serve(raw)
    try:
        monkeypatch.setattr(dr, "RAW_BASE", url)
        monkeypatch.delenv("RANKLENS_DATA_MIRROR", raising=False)
        monkeypatch.setenv("RANKLENS_DATA_CACHE", str(tmp_path / "cache"))
        assert fetch("mrpc").status == "ok" and fetch("stsb").status == "ok"
    finally:
        httpd.shutdown()
        httpd.server_close()
