"""The ASL conventions as one value: the eight choices every ASL result is computed under
(tie rule, relevance threshold, unretrieved policy, collection size, missing queries, duplicate
rows, common depth, grade mapping). Built once from the analysis's ``Params``
(:meth:`Conventions.from_params`) and handed on: :meth:`Conventions.rank` ranks a track's runs
once under it (the ranked runs are what the analyses then take), :meth:`Conventions.kwargs`
spells it as the keyword arguments the metric functions take.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .declaration import Params

__all__ = ["ChainOptions", "Conventions"]

DEFAULTS = Params()


@dataclass(frozen=True)
class Conventions:
    """The eight ASL conventions (defaults: the declared ``Params`` defaults)."""

    ties: str = DEFAULTS.ties
    rel: int = DEFAULTS.rel
    unretrieved: str = DEFAULTS.unretrieved
    collection_size: int | None = DEFAULTS.collection_size
    missing: str = DEFAULTS.missing
    duplicates: str = DEFAULTS.duplicates
    depth: int | None = DEFAULTS.depth
    grades: tuple[str, ...] = DEFAULTS.grades

    @classmethod
    def from_params(cls, p: Params) -> Conventions:
        return cls(ties=p.ties, rel=p.rel, unretrieved=p.unretrieved, collection_size=p.collection_size,
                   missing=p.missing, duplicates=p.duplicates, depth=p.depth, grades=tuple(p.grades))

    def rank(self, qrels: Any, runs: Any) -> dict[str, Any]:
        """Every run of a track ranked once under these conventions (tie rule, duplicates,
        depth, grade mapping): ``{name: RankedRun}``, which every analysis function takes in
        place of the runs (:func:`ranklens.asl.ranking.rank_runs`)."""
        from .ranking import rank_runs

        return rank_runs(qrels, runs, ties=self.ties, duplicates=self.duplicates, depth=self.depth,
                         grades=self.grades)

    def kwargs(self, *names: str) -> dict[str, Any]:
        """The conventions as the metric functions' keyword arguments; ``names`` picks a subset
        (e.g. MAP coverage takes no ``unretrieved``)."""
        out = {"ties": self.ties, "rel": self.rel, "unretrieved": self.unretrieved,
               "collection_size": self.collection_size, "missing": self.missing, "duplicates": self.duplicates,
               "depth": self.depth, "grades": self.grades}
        return {k: out[k] for k in names} if names else out

    def header(self) -> str:
        """The policies as the tools print them in a table's first line."""
        return (f"unretrieved={self.unretrieved} rel={self.rel} ties={self.ties} missing={self.missing} "
                f"depth={self.depth or 'as given'}" + (f" grades={','.join(self.grades)}" if self.grades else ""))


@dataclass(frozen=True)
class ChainOptions:
    """The MAP -> ASL chain's options (ΔSort's threshold and test, Kendall's tau digits)."""

    min_rel_diff: float = DEFAULTS.min_rel_diff
    alpha: float = DEFAULTS.alpha
    better_space: str = DEFAULTS.better_space
    tau_digits: int = DEFAULTS.tau_digits

    @classmethod
    def from_params(cls, p: Params) -> ChainOptions:
        return cls(min_rel_diff=p.min_rel_diff, alpha=p.alpha, better_space=p.better_space, tau_digits=p.tau_digits)

    def kwargs(self) -> dict[str, Any]:
        return {"min_rel_diff": self.min_rel_diff, "alpha": self.alpha, "better_space": self.better_space,
                "tau_digits": self.tau_digits}


COVERAGE = ("ties", "rel", "missing", "duplicates", "depth", "grades")  # what MAP coverage takes
TIES_REPORT = ("rel", "unretrieved", "collection_size", "duplicates")  # what the tie report takes
