"""Opening an input once: ``-`` (stdin), pipes, FIFOs and regular files; compression sniffed from the
first bytes (never the name).

Rules (every reader of :mod:`ranklens.io` reads its bytes here):

- a path is opened ONCE; the first bytes are looked at with ``peek`` on the same buffered stream, so
  a pipe loses nothing (``ranklens evaluate qrels <(zcat run.gz)``);
- ``-`` and ``/dev/stdin`` read the process's standard input, ``/dev/fd/N`` its descriptor N (a
  pipe whose writer has finished cannot be opened a second time); a terminal is refused;
- a named pipe (FIFO) given by path is opened without blocking and waited on for at most
  :data:`STREAM_TIMEOUT` seconds (``$RANKLENS_STREAM_TIMEOUT``; ``0`` waits forever): a FIFO that
  nobody writes is a located error, not a hang;
- gzip, bzip2, xz and lz4 (with the ``lz4`` package) are decompressed whatever the file is called;
  zstd, zip, HDF5 and Parquet are refused with a located error; a plain-text file named ``.gz``,
  ``.bz2``, ``.zst`` or ``.lz4`` is read as the plain text it is;
- a stream is read into memory once; a regular file may be read again by path (mapped, walked).
"""

from __future__ import annotations

import gzip
import os
import re
import select
import stat
import zlib
from pathlib import Path
from typing import Any

from ..errors import DataFormatError

__all__ = ["STDIN", "STREAM_TIMEOUT", "display_name", "is_stream", "read_bytes", "sniff", "stream_data"]

#: Seconds to wait for a writer on a named pipe (FIFO) given by path; ``$RANKLENS_STREAM_TIMEOUT``
#: overrides it (``0``: wait forever).
STREAM_TIMEOUT = 60.0
STREAM_TIMEOUT_ENV = "RANKLENS_STREAM_TIMEOUT"
STDIN = "-"

# (magic bytes, format name, how to read it): sniffed from the stream's first bytes, never the name
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"PK\x03\x04", "zip"),
    (b"\x89HDF", "hdf5"),
    (b"PAR1", "parquet"),
)
_BZ2 = re.compile(rb"BZh[1-9](\x31\x41\x59\x26\x53\x59|\x17\x72\x45\x38\x50\x90)")
_FD_PATH = re.compile(r"^/(?:dev/fd|proc/self/fd)/(\d+)$")


def display_name(p: object) -> object:
    """How a path is named in messages: ``-`` is ``<stdin>``."""
    return "<stdin>" if str(p) == STDIN else p


def _check_path(p: Path, kind: str) -> None:
    if str(p) == STDIN:
        return
    if not p.exists():
        raise DataFormatError(f"{kind} file not found; check the path", path=p)
    if p.is_dir():
        raise DataFormatError(f"is a directory, expected a {kind} file", path=p)


def is_stream(p: Path) -> bool:
    """True for ``-`` (stdin) and anything that is not a regular file (a pipe, a FIFO, ``/dev/stdin``,
    a process substitution ``<(...)``): such inputs can be read once only."""
    if str(p) == STDIN:
        return True
    try:
        return not stat.S_ISREG(os.stat(p).st_mode)
    except OSError:
        return False


def sniff(head: bytes) -> str | None:
    """The compression or binary format the first bytes announce (``None``: plain text)."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    if _BZ2.match(head):
        return "bzip2"
    return None


def _stream_timeout() -> float | None:
    raw = os.environ.get(STREAM_TIMEOUT_ENV)
    try:
        t = float(raw) if raw else STREAM_TIMEOUT
    except ValueError:
        raise DataFormatError(f"${STREAM_TIMEOUT_ENV}={raw!r} is not a number of seconds; unset it or give e.g. "
                              f"60 (0 waits forever)") from None
    return None if t <= 0 or t != t else t


def _open_fd(p: Path, kind: str) -> int:
    """A file descriptor for ``p``, opened once. ``-``, ``/dev/stdin`` and ``/dev/fd/N`` reuse the
    process's own descriptor (a pipe whose writer has finished cannot be opened again); a named
    pipe is opened without blocking and waited on for at most :data:`STREAM_TIMEOUT` seconds."""
    name = display_name(p)
    m = _FD_PATH.match(str(p))
    fd_no = 0 if str(p) in (STDIN, "/dev/stdin") else (int(m.group(1)) if m else None)
    try:
        if fd_no is not None:
            if os.isatty(fd_no):
                raise DataFormatError(f"{kind} would be read from a terminal; pipe or redirect the file into "
                                      f"ranklens (e.g. zcat run.gz | ranklens ... -) or give its path", path=name)
            return os.dup(fd_no)
        if stat.S_ISFIFO(os.stat(p).st_mode):
            fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)  # returns at once, with or without a writer
            timeout = _stream_timeout()
            try:
                ready = select.poll()
                ready.register(fd, select.POLLIN | select.POLLHUP)
                if not ready.poll(None if timeout is None else int(timeout * 1000)):
                    raise DataFormatError(
                        f"named pipe (FIFO): nothing was written to it within {timeout:g} s; start the program "
                        f"that writes it first, or set ${STREAM_TIMEOUT_ENV} (seconds; 0 waits forever)", path=name)
                os.set_blocking(fd, True)
            except BaseException:
                os.close(fd)
                raise
            return fd
        return os.open(p, os.O_RDONLY)
    except OSError as exc:
        raise DataFormatError(f"cannot read file ({exc.strerror or exc}); check its permissions", path=name) from None


def _decompress(fh: Any, fmt: str, p: object) -> bytes:
    import bz2
    import lzma

    name = display_name(p)
    fixes = {"gzip": "gzip -t FILE checks it", "bzip2": "bzip2 -t FILE checks it", "xz": "xz -t FILE checks it",
             "lz4": "lz4 -t FILE checks it"}
    try:
        if fmt == "gzip":
            with gzip.GzipFile(fileobj=fh) as z:
                return z.read()
        if fmt == "bzip2":
            with bz2.BZ2File(fh) as z:
                return z.read()
        if fmt == "xz":
            with lzma.LZMAFile(fh) as z:
                return z.read()
        if fmt == "lz4":
            try:
                import lz4.frame as lz4f
            except ImportError:
                raise DataFormatError("lz4-compressed data, and the lz4 package is not installed; decompress it "
                                      "first (lz4 -d FILE) or pip install lz4", path=name) from None
            with lz4f.LZ4FrameFile(fh) as z:
                return z.read()
    except DataFormatError:
        raise
    except (EOFError, OSError, ValueError, zlib.error, RuntimeError) as exc:
        raise DataFormatError(f"corrupt or truncated {fmt} data ({exc}); re-download or re-compress the file "
                              f"({fixes[fmt]})", path=name) from None
    what = {"zstd": "zstd-compressed data; decompress it first (zstd -d FILE, or zstdcat FILE | ranklens ... -)",
            "zip": "a zip archive, not a text file; unzip it first",
            "hdf5": "an HDF5 file, not a text file", "parquet": "a Parquet file, not a text file"}[fmt]
    raise DataFormatError(what, path=name)


def read_bytes(p: Path, kind: str = "input") -> bytes:
    """The input's bytes, read through ONE open of the path (``-``: stdin), decompressed when its
    first bytes announce gzip, bzip2, xz or lz4 (whatever its name says); zstd, zip and other binary
    formats are refused with a located error."""
    p = Path(p) if not isinstance(p, Path) else p
    _check_path(p, kind)
    fd = _open_fd(p, kind)
    with os.fdopen(fd, "rb") as fh:  # buffered: peek() looks at the first bytes without consuming them
        try:
            head = fh.peek(16)[:16]
            fmt = sniff(head)
            if fmt is None:
                return fh.read()
            return _decompress(fh, fmt, p)
        except OSError as exc:
            raise DataFormatError(f"cannot read file ({exc.strerror or exc}); check its permissions",
                                  path=display_name(p)) from None


def stream_data(p: Path, kind: str = "input") -> bytes | None:
    """The bytes of an input that can be read only once (a stream: ``-``, a pipe, a FIFO), else ``None``
    (a regular file, read -- and mapped -- by path)."""
    return read_bytes(p, kind) if is_stream(p) else None


def _regular_format(p: Path) -> str | None:
    """:func:`sniff` of a regular file's first bytes."""
    try:
        with open(p, "rb") as fh:
            return sniff(fh.read(16))
    except OSError as exc:
        raise DataFormatError(f"cannot read file ({exc.strerror}); check its permissions", path=p) from None
