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

#: How ASL places a relevant document the run did not retrieve (eq. 3: ``paper``); ``asl.asl`` uses this tuple.
UNRETRIEVED_POLICIES: tuple[str, ...] = ("lower_bound", "paper", "expected")

__all__ = ["ASL", "higher_is_better", "is_summed", "measure_at_rel", "measure_name", "parse_measure",
           "with_default_rel"]


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


def is_summed(m: Any) -> bool:
    """Whether a measure's summary over queries is a sum, not a mean: the count measures
    ``NumQ``, ``NumRet``, ``NumRel`` and ``NumRelRet`` (= ``NumRet(rel=1)``), as trec_eval
    (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``) and ir_measures (their ``SumAgg``
    aggregator) sum them."""
    if isinstance(m, ASL) or not hasattr(m, "aggregator"):
        return False
    return type(m.aggregator()).__name__ == "SumAgg"


#: Measures whose ``rel`` left unset does not mean ``rel=1``: ``NumRet`` counts every retrieved
#: document (trec_eval ``num_ret``, which ``-l`` does not change).
_REL_MEANS_ALL = frozenset({"NumRet"})


def with_default_rel(m: Any, rel: int) -> Any:
    """Apply a call-level ``rel`` (trec_eval ``-l``) to the relevance measures: ir_measures measures
    that take ``rel`` and did not set it. ``NumRet`` without ``rel`` counts every retrieved document
    and stays as it is (trec_eval's ``num_ret`` under ``-l``)."""
    if isinstance(m, ASL) or rel == 1:
        return m
    params = getattr(m, "SUPPORTED_PARAMS", {})
    if "rel" in params and "rel" not in getattr(m, "params", {}) and getattr(m, "NAME", None) not in _REL_MEANS_ALL:
        return m(rel=rel)
    return m


def measure_at_rel(spec: Any, rel: int) -> Any:
    """:func:`parse_measure` then :func:`with_default_rel`; the alias ``NumRelRet`` (trec_eval's
    ``num_rel_ret``: relevant retrieved at the call's level) becomes ``NumRet(rel=REL)``, where
    ir_measures would fix it at ``rel=1`` (trec_eval ``-l 2`` counts it at level 2)."""
    if isinstance(spec, str) and spec.strip() == "NumRelRet":
        import ir_measures

        return ir_measures.parse_measure("NumRet")(rel=rel)
    return with_default_rel(parse_measure(spec), rel)


def trec_hint(name: str) -> str:
    """``; trec_eval's ndcg_cut_10 is nDCG@10 here`` when ``name`` is a trec_eval measure name."""
    try:
        import ir_measures

        parsed = ir_measures.parse_trec_measure(name)
    except Exception:  # not a trec_eval name either: no hint
        return ""
    return f"; trec_eval's {name} is {', '.join(str(m) for m in parsed)} here" if parsed else ""
