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
