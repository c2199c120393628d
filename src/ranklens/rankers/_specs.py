"""Parsing of model spec strings shared by ``make_ranker`` and ``make_embedder``."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ValidationError
from ..specs import split_spec  # noqa: F401 - re-exported (one parser of spec strings)

__all__ = ["corpus_texts", "split_spec", "unknown_spec"]


def unknown_spec(spec: str, kind: str, valid: Iterable[str], what: str) -> ValidationError:
    """Error listing the valid spec forms, with a did-you-mean suggestion."""
    valid = list(valid)
    names = [v.split(":")[0] for v in valid]
    close = difflib.get_close_matches(kind, names, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return ValidationError(f"unknown {what} spec {spec!r}.{hint} Valid specs: {', '.join(valid)}")


def corpus_texts(corpus: Any) -> list[str]:
    """Texts of a corpus given as a DocStore/mapping (values, in order) or a sequence of str."""
    if isinstance(corpus, Mapping):
        if hasattr(corpus, "iter_docs"):
            return [t for _, t in corpus.iter_docs()]
        return [str(v) for v in corpus.values()]
    if isinstance(corpus, str):
        raise ValidationError("corpus must be a DocStore, a mapping or a sequence of texts, not one str")
    return list(corpus)


def need_arg(spec: str, kind: str, arg: str | None, example: str) -> str:
    if not arg:
        raise ValidationError(f"model spec {spec!r} needs an argument, e.g. {example!r}")
    return arg
