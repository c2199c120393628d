"""The two regimes' names and their order: one spelling for the splits, the published-split reader,
the evaluation and the plots."""

from __future__ import annotations

__all__ = ["EXTRAPOLATION", "INTERPOLATION", "REGIMES"]

INTERPOLATION = "interpolation"
EXTRAPOLATION = "extrapolation"
REGIMES = (INTERPOLATION, EXTRAPOLATION)
