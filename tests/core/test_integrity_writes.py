"""Disk errors in the core's own writes outside ``Result.save`` (issue 31): the BM25 index, the
word-vector token file and folders written by a library all go through ``ranklens.files.atomic_output``,
so a full disk (ENOSPC), a file-size limit (EFBIG) or a refused permission (EACCES) is an
``OutputError`` naming the path and the fix, and no partial file or folder is left. Faults are
injected inside the write, after part of the bytes went out."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest

from ranklens.errors import OutputError
from ranklens.files import atomic_output


def _leftovers(directory: Path) -> list[str]:
    """Temp files or folders of an atomic write (``.<name>.<random>.tmp``, ``.<name>.old.<random>``)."""
    return sorted(p.name for p in directory.rglob(".*") if ".tmp" in p.name or ".old." in p.name)


def _disk_full(kind: int = errno.ENOSPC) -> OSError:
    return OSError(kind, os.strerror(kind))


def test_a_directory_written_by_a_library_replaces_the_target_whole_or_not_at_all(tmp_path):
    target = tmp_path / "model"
    with atomic_output(target, what="model folder", directory=True) as tmp:
        assert tmp.is_dir() and tmp.parent == tmp_path and tmp != target
        (tmp / "a.bin").write_bytes(b"1" * 10)
    assert sorted(p.name for p in target.iterdir()) == ["a.bin"]
    # a second write that fails half-way: the first folder stays as it was, nothing else is left
    with pytest.raises(OutputError) as exc:
        with atomic_output(target, what="model folder", directory=True) as tmp:
            (tmp / "b.bin").write_bytes(b"2" * 5)
            raise _disk_full(errno.EFBIG)
    assert str(exc.value).startswith(f"{target}: cannot write the model folder: the file-size limit was reached")
    assert "no partial file was left" in str(exc.value)
    assert sorted(p.name for p in target.iterdir()) == ["a.bin"] and _leftovers(tmp_path) == []
    # a successful rewrite replaces the folder's content (the old file does not linger)
    with atomic_output(target, what="model folder", directory=True) as tmp:
        (tmp / "c.bin").write_bytes(b"3")
    assert sorted(p.name for p in target.iterdir()) == ["c.bin"] and _leftovers(tmp_path) == []
    # a file where the folder should go
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a file, not a directory"):
        with atomic_output(tmp_path / "f", directory=True):
            pass


def test_a_permission_refused_inside_a_write_names_the_path(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    with pytest.raises(OutputError) as exc:
        with atomic_output(target, what="table") as tmp:
            tmp.write_text("half")
            raise PermissionError(errno.EACCES, "Permission denied")
    assert str(exc.value).startswith(f"{target}: cannot write the table: permission was denied (EACCES")
    assert not target.exists() and _leftovers(tmp_path) == []
    # no temp file can be made at all (a directory the process may not write)
    import tempfile

    def refuse(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(OutputError, match=r"out\.txt: cannot write the table \(Permission denied\); choose a writable"):
        with atomic_output(target, what="table"):
            pass


def test_bm25_index_disk_full_leaves_no_half_index_and_keeps_the_old_one(tmp_path, monkeypatch):
    pytest.importorskip("bm25s")
    from ranklens.rankers.bm25 import build_index, load_index

    texts = ["the cat sat", "a dog barked loudly", "cats and dogs"]
    path = tmp_path / "index"
    build_index(texts, path)
    before = sorted(p.name for p in path.iterdir())
    assert load_index(path)._stats.n_docs == 3
    real_save = np.save

    def full(file, arr, *a, **k):  # half the array's bytes, then the disk is full
        Path(file).write_bytes(np.asarray(arr).tobytes()[: max(1, np.asarray(arr).nbytes // 2)])
        raise _disk_full()

    monkeypatch.setattr(np, "save", full)
    with pytest.raises(OutputError) as exc:
        build_index(texts + ["one more"], path)
    assert str(exc.value).startswith(f"{path}: cannot write the BM25 index directory: the disk is full (ENOSPC")
    assert "free space or write elsewhere" in str(exc.value)
    assert sorted(p.name for p in path.iterdir()) == before and load_index(path)._stats.n_docs == 3
    assert _leftovers(tmp_path) == []
    fresh = tmp_path / "fresh"
    with pytest.raises(OutputError):
        build_index(texts, fresh)
    assert not fresh.exists() and _leftovers(tmp_path) == []
    monkeypatch.setattr(np, "save", real_save)
    # a rebuild replaces the index; a folder holding anything else is refused, untouched
    build_index(texts + ["one more"], path)
    assert load_index(path)._stats.n_docs == 4
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(OutputError, match="holds other files"):
        build_index(texts, other)
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_word_vector_token_file_disk_full_names_the_file_and_tmpdir(tmp_path, monkeypatch):
    import pickle

    from ranklens.embedders import wordvectors

    real_dump = pickle.dump
    calls = []

    def dump(obj, f, *a, **k):
        calls.append(1)
        if len(calls) > 1:  # the second chunk does not fit
            f.write(b"\x80\x05partial")
            raise _disk_full()
        real_dump(obj, f, *a, **k)

    monkeypatch.setattr(wordvectors.pickle, "dump", dump)
    path = tmp_path / "tokens.pkl"
    with pytest.raises(OutputError) as exc:
        wordvectors._TokenFile(path, iter([[["a", "b"]], [["c"]]]))
    assert str(exc.value).startswith(f"{path}: cannot write the word-vector training token file")
    assert "TMPDIR" in str(exc.value) and "disk is full" in str(exc.value)
    assert not path.exists() and _leftovers(tmp_path) == []
    monkeypatch.setattr(wordvectors.pickle, "dump", real_dump)
    tf = wordvectors._TokenFile(path, iter([[["a", "b"], []], [["c"]]]))
    assert tf.n == 2 and list(tf) == [["a", "b"], ["c"]] and list(tf) == [["a", "b"], ["c"]]
