"""Output paths: checked directories and atomic writes with unique temp names.

Every file ranklens writes goes through :func:`atomic_output` (or :func:`write_text_atomic`):
a temp file created with :func:`tempfile.mkstemp` in the target directory (unique, so two
processes writing the same target never clash) and renamed into place, so a reader sees the old
file or the new one, never half of one. Problems with the path (a file where a directory is
needed, no permission) are :class:`~ranklens.errors.OutputError` naming the path and the fix; so is
a write that fails half-way (a full disk, a file-size limit, a read-only or failing disk): the
error names the path and the errno's meaning (:func:`disk_problem`), and no partial file is left.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputError

__all__ = ["atomic_output", "disk_problem", "ensure_dir", "existing_dir", "replace_dir", "sqlite_disk_problem", "umask_mode",
           "write_text_atomic"]

#: errnos of a write that fails for want of room or a working disk, and what each means
_DISK_ERRNOS = {
    errno.ENOSPC: "the disk is full (ENOSPC: no space left on device); free space or write elsewhere",
    errno.EDQUOT: "the disk quota is exceeded (EDQUOT); free space or write elsewhere",
    errno.EFBIG: "the file-size limit was reached (EFBIG: file too large; see `ulimit -f`); raise the limit or "
                 "write elsewhere",
    errno.EROFS: "the file system is read-only (EROFS); write elsewhere",
    errno.EIO: "the disk failed to write (EIO: input/output error); check the disk or write elsewhere",
}

#: a write refused half-way for want of permission (EACCES/EPERM), e.g. by a library writing a folder
_DENIED = "permission was denied (EACCES or EPERM); fix the permissions or write elsewhere"


def disk_problem(exc: BaseException) -> str | None:
    """What a failed write's ``OSError`` means when it is about the disk (full, quota, size
    limit, read-only, I/O error), else ``None``."""
    return _DISK_ERRNOS.get(getattr(exc, "errno", None)) if isinstance(exc, OSError) else None


def sqlite_disk_problem(exc: BaseException) -> str | None:
    """The same for an ``sqlite3`` error: SQLITE_FULL (the disk is full) and SQLITE_IOERR (a write
    failed: full disk, a file-size limit or a failing disk) -- never "corrupt"."""
    code = getattr(exc, "sqlite_errorcode", None)
    msg = str(exc).lower()
    if code == 13 or "disk is full" in msg:  # SQLITE_FULL
        return "the disk is full (SQLITE_FULL); free space or move it elsewhere"
    if (code is not None and code & 0xFF == 10) or "disk i/o error" in msg:  # SQLITE_IOERR and its extended codes
        return ("a write failed (SQLITE_IOERR: the disk may be full, over a file-size limit (`ulimit -f`) or "
                "failing); free space or raise the limit")
    return None


def umask_mode(base: int = 0o666) -> int:
    """``base`` filtered by the process umask (what ``open``/``mkdir`` would give)."""
    mask = os.umask(0)
    os.umask(mask)
    return base & ~mask


def ensure_dir(path: str | os.PathLike[str], *, what: str = "output directory") -> Path:
    """Create ``path`` (and parents) if needed; a located :class:`OutputError` when a component
    is a file or the directory cannot be created or written."""
    p = Path(path)
    for parent in [p, *p.parents]:
        if parent.exists() and not parent.is_dir():
            raise OutputError(f"{what}: {parent} is a file, not a directory; choose another path or "
                              f"remove the file", path=p)
        if parent.exists():
            break
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the {what} ({exc.strerror or exc}); choose a writable location",
                          path=p) from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise OutputError(f"the {what} is not writable; choose a writable location or fix its permissions",
                          path=p)
    return p


def existing_dir(path: str | os.PathLike[str], *, what: str = "results directory") -> Path:
    """``path`` if it is an existing directory, else a located :class:`OutputError`."""
    p = Path(path)
    if not p.exists():
        raise OutputError(f"{what} does not exist; check the path (ranklens only creates it when writing "
                          f"results)", path=p)
    if not p.is_dir():
        raise OutputError(f"{what} is a file, not a directory", path=p)
    return p


@contextmanager
def atomic_output(path: str | os.PathLike[str], *, what: str = "output file", mode: int | None = None,
                  directory: bool = False) -> Iterator[Path]:
    """Yield a unique temp path next to ``path``; on success it replaces ``path`` (permissions:
    ``mode``, default 0o666 under the umask), on error it is removed.

    ``directory=True``: the temp path is an empty directory (for what a library writes as a folder:
    ``save_pretrained``, an index); on success it replaces ``path`` whole (an existing directory
    there is moved aside and removed; permissions 0o777 under the umask), on error it is removed."""
    p = Path(path)
    if p.is_dir() and not directory:
        raise OutputError(f"{what} is a directory; give a file name", path=p)
    if directory and p.exists() and not p.is_dir():
        raise OutputError(f"{what} is a file, not a directory; choose another path or remove the file", path=p)
    ensure_dir(p.parent, what=f"directory of the {what}")
    try:
        if directory:
            tmp = tempfile.mkdtemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        else:
            fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
            os.close(fd)
    except OSError as exc:
        raise OutputError(f"cannot write the {what} ({exc.strerror or exc}); choose a writable location",
                          path=p) from None
    try:
        yield Path(tmp)
        if directory:
            os.chmod(tmp, umask_mode(0o777) if mode is None else mode)  # mkdtemp makes it owner-only
            replace_dir(Path(tmp), p, what)
        else:
            os.chmod(tmp, umask_mode() if mode is None else mode)  # mkstemp makes it owner-only
            os.replace(tmp, p)
    except BaseException as exc:
        if directory:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            Path(tmp).unlink(missing_ok=True)
        problem = disk_problem(exc) or (_DENIED if isinstance(exc, PermissionError) else None)
        if problem is not None and not isinstance(exc, OutputError):
            raise OutputError(f"cannot write the {what}: {problem} (no partial file was left)", path=p) from exc
        raise


def replace_dir(tmp: Path, target: Path, what: str) -> None:
    """Rename the directory ``tmp`` to ``target``, moving an existing ``target`` aside to a unique
    name first and removing it (retried when another process replaces ``target`` at the same moment)."""
    for _ in range(50):
        try:
            os.rename(tmp, target)
            return
        except OSError:
            if not target.exists():
                continue
        old = target.with_name(f".{target.name}.old.{uuid.uuid4().hex[:12]}")
        try:
            os.rename(target, old)
        except FileNotFoundError:
            continue
        try:
            os.rename(tmp, target)
            return
        except OSError:
            continue
        finally:
            shutil.rmtree(old, ignore_errors=True)
    raise OutputError(f"could not replace the {what} (another process keeps writing it)", path=target)


def write_text_atomic(path: str | os.PathLike[str], text: str, *, what: str = "output file") -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    p = Path(path)
    with atomic_output(p, what=what) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return p
