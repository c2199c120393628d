"""The measures as values: the ASL family (:class:`ASL`: ``ASL``, ``ASL@g1-10``,
``ASL(rel=2)@g1-1``, ``ASL(unretrieved=lower_bound)``, ``ASL@100``) and their spelling
(:func:`parse_measure`: ``ASL...`` -> :class:`ASL`, anything else -> an ir_measures measure),
their direction and the call-level ``rel`` applied to measures that did not set their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ..errors import ValidationError
from .asl import UNRETRIEVED_POLICIES

__all__ = ["ASL", "higher_is_better", "measure_name", "parse_measure", "with_default_rel"]


@dataclass(frozen=True)
class ASL:
    """The ASL measure family as a value: ``ASL``, ``ASL@g1-10``, ``ASL(rel=2)@g1-1``.

    The measure's own ``rel`` and ``unretrieved`` (written ``ASL(rel=2)``,
    ``ASL(unretrieved=lower_bound)``) override the evaluate call's; unset (None) they are the
    call's (:meth:`resolved`). They are named ``own_rel`` and ``own_unretrieved`` here because
    they are not the analysis's ``rel``/``unretrieved`` but exceptions to them; read the
    resolved values as :attr:`rel` and :attr:`unretrieved`.

    Attributes:
        own_rel: minimum relevance (None = the evaluate call's ``rel``).
        first: ASL@g1-n (None = all relevant documents).
        cutoff: evaluate only the top-``cutoff`` documents (written ``ASL@100``).
        own_unretrieved: policy override (None = the evaluate call's ``unretrieved``).
    """

    own_rel: int | None = None
    first: int | None = None
    cutoff: int | None = None
    own_unretrieved: str | None = None
    higher_is_better: ClassVar[bool] = False
    citation: ClassVar[str] = ("Alex, Hall & Metzler. Atomized Search Length: Beyond User "
                               "Models. arXiv:2201.01745 (2022)")

    @property
    def rel(self) -> int | None:
        """The measure's minimum relevance (after :meth:`resolved`: the one it is computed at)."""
        return self.own_rel

    @property
    def unretrieved(self) -> str | None:
        """The measure's unretrieved policy (after :meth:`resolved`: the one it is computed with)."""
        return self.own_unretrieved

    def __str__(self) -> str:
        params = []
        if self.own_rel is not None:
            params.append(f"rel={self.own_rel}")
        if self.own_unretrieved is not None:
            params.append(f"unretrieved={self.own_unretrieved}")
        s = "ASL" + (f"({','.join(params)})" if params else "")
        if self.first is not None:
            s += f"@g1-{self.first}"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        return s

    def __matmul__(self, cutoff: int) -> ASL:
        return replace(self, cutoff=int(cutoff))

    def resolved(self, *, rel: int, unretrieved: str) -> ASL:
        """This measure with the call-level defaults filled in."""
        return replace(self, own_rel=self.own_rel if self.own_rel is not None else rel,
                       own_unretrieved=self.own_unretrieved or unretrieved)


_ASL_RE = re.compile(r"^ASL(?:\((?P<params>[^)]*)\))?(?P<suffix>(?:@(?:g1-\d+|\d+))*)$")


def parse_measure(spec: Any):
    """Parse a measure string: ``ASL...`` -> :class:`ASL`, anything else -> ir_measures.

    Args:
        spec: e.g. ``"ASL"``, ``"ASL@g1-10"``, ``"ASL(rel=2)@g1-1"``, ``"ASL@100"``, ``"AP"``,
            ``"nDCG@10"``, ``"P(rel=2)@20"``, ``"RR"``, or an already-parsed measure.
    """
    if isinstance(spec, ASL):
        return spec
    if not isinstance(spec, str):
        return spec  # an ir_measures measure object
    s = spec.strip()
    m = _ASL_RE.match(s)
    if m:
        kw: dict[str, Any] = {}
        if m.group("params"):
            for part in m.group("params").split(","):
                k, _, v = part.partition("=")
                k, v = k.strip(), v.strip()
                if k in ("rel", "cutoff"):
                    try:
                        kw["own_rel" if k == "rel" else k] = int(v)
                    except ValueError:
                        raise ValidationError(f"measure {spec!r}: {k} must be an integer") from None
                elif k == "unretrieved":
                    if v not in UNRETRIEVED_POLICIES:
                        raise ValidationError(f"measure {spec!r}: unretrieved must be one of "
                                              f"{', '.join(UNRETRIEVED_POLICIES)}")
                    kw["own_unretrieved"] = v
                else:
                    raise ValidationError(f"measure {spec!r}: unknown parameter {k!r} "
                                          "(ASL takes rel, unretrieved, cutoff)")
        for part in filter(None, m.group("suffix").split("@")):
            if part.startswith("g1-"):
                kw["first"] = int(part[3:])
            else:
                kw["cutoff"] = int(part)
        return ASL(**kw)
    if s.upper().startswith("ASL"):
        raise ValidationError(f"cannot parse measure {spec!r}; ASL forms: ASL, ASL@g1-10, "
                              "ASL(rel=2), ASL(rel=2)@g1-1, ASL(unretrieved=paper), ASL@100")
    import ir_measures

    try:
        return ir_measures.parse_measure(s)
    except (ValueError, NameError, SyntaxError, TypeError, AttributeError) as exc:
        raise ValidationError(f"cannot parse measure {spec!r}: {exc}. Examples: AP, nDCG@10, "
                              "P@20, RR, P(rel=2)@10, ASL, ASL@g1-10") from None


def measure_name(m: Any) -> str:
    """Canonical name of a parsed measure."""
    return str(m)


def higher_is_better(m: Any) -> bool:
    """Direction of a measure (ASL: lower is better)."""
    return not isinstance(m, ASL)


def with_default_rel(m: Any, rel: int) -> Any:
    """Apply a call-level ``rel`` to ir_measures measures that take it and did not set it."""
    if isinstance(m, ASL) or rel == 1:
        return m
    params = getattr(m, "SUPPORTED_PARAMS", {})
    if "rel" in params and "rel" not in getattr(m, "params", {}):
        return m(rel=rel)
    return m
