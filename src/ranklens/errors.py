"""Exception hierarchy. Every error says where (file, line, field) and how to fix it."""

from __future__ import annotations

__all__ = [
    "CacheError",
    "DataFormatError",
    "IgnoredOptionError",
    "MissingDependencyError",
    "ModelLoadError",
    "OutputError",
    "RanklensError",
    "RanklensWarning",
    "ValidationError",
]


class RanklensError(Exception):
    """Base class of every error ranklens raises on purpose."""


class DataFormatError(RanklensError, ValueError):
    """A file or record is malformed. The message names the file, the line and the problem."""

    def __init__(self, message: str, *, path: object = None, line: int | None = None) -> None:
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f":{line}"
            where += ": "
        super().__init__(where + message)
        self.path = path
        self.line = line


class OutputError(RanklensError, OSError):
    """An output path cannot be written (it is a file where a directory is needed, a directory
    where a file is needed, or not writable). The message names the path and the fix."""

    def __init__(self, message: str, *, path: object = None) -> None:
        super().__init__(f"{path}: {message}" if path is not None else message)
        self.path = path

    def __str__(self) -> str:  # OSError's own __str__ would show the errno tuple
        return str(self.args[0]) if self.args else ""


class CacheError(RanklensError):
    """The score/embedding cache cannot be used (corrupt, locked, unwritable); the message names
    the file and the fix (usually ``ranklens cache clear``)."""


class ValidationError(RanklensError, ValueError):
    """An in-memory argument (DataFrame, parameter) does not meet the documented contract."""


class IgnoredOptionError(ValidationError):
    """An option or parameter given where nothing reads it (it would be a silent no-op); the message
    names it, why it is ignored in this combination and the fix. The CLI exits 2 (a usage error)."""


class MissingDependencyError(RanklensError, ImportError):
    """An optional dependency is needed; the message names the pip extra that provides it."""


class ModelLoadError(RanklensError):
    """A model cannot be loaded (missing path, not a saved model, offline and not cached): the
    message names the spec, the path tried, what the loader said and what to do; the loader's own
    exception is chained as ``__cause__``. The CLI prints it as one line (``--debug``: traceback)."""


class RanklensWarning(UserWarning):
    """Warnings about dropped rows, policy choices and other things a researcher should know."""
