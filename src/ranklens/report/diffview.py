"""The report's "Results diff" section: two result sets side by side (:mod:`ranklens.diff`).

:func:`diff_html` renders a :class:`ranklens.diff.ResultsDiff` (read by its attributes; this
module imports nothing of :mod:`ranklens.diff`) through ``templates/diff.html.j2``: the summary
(shared, changed, significantly changed numbers), each provenance difference with the number of
changed numbers it stands behind, the changed numbers (change, paired-test significance, the
provenance that differs) and, folded, every shared number. ``ranklens report DIR --diff OTHER``
puts it after the headline; ``ranklens results diff A B --format html`` prints it alone.
"""

from __future__ import annotations

from collections import Counter
from importlib import resources
from typing import Any

import pandas as pd

from .tables import Ids, table_html

__all__ = ["diff_html"]


def _frame(diff: Any, numbers: list[Any]) -> pd.DataFrame:
    rows = []
    for n in numbers:
        sig = n.significant(diff.alpha)
        rows.append({"result": n.result, "item": n.item or "-", "model": n.model or "-", "metric": n.metric,
                     "A": n.a, "B": n.b, "change": n.change if n.changed else 0.0,
                     "significant": "-" if sig is None else f"{'yes' if sig else 'no'} (p={n.p_value:.3g}, "
                                                             f"n={n.n})",
                     "provenance that differs": "; ".join(n.causes) if n.changed else ""})
    return pd.DataFrame(rows, columns=["result", "item", "model", "metric", "A", "B", "change", "significant",
                                       "provenance that differs"])


def diff_html(diff: Any, ids: Ids | None = None, *, anchor: str = "diff", places: int | None = None,
              all_numbers: bool = True) -> str:
    """The escaped HTML section of one results diff (``all_numbers=False``: the changed ones only)."""
    from jinja2 import Environment

    ids = ids or Ids()
    changed = [n for n in diff.numbers if n.changed]
    causes = Counter(c for n in changed for c in n.causes)
    unexplained = sum(1 for n in changed if not n.causes)
    n_sig = sum(1 for n in changed if n.significant(diff.alpha))
    tmpl = Environment(autoescape=True).from_string(
        resources.files("ranklens.report").joinpath("templates/diff.html.j2").read_text(encoding="utf-8"))
    return tmpl.render(
        anchor=anchor, a=str(diff.a), b=str(diff.b), alpha=diff.alpha, n_shared=len(diff.numbers),
        n_changed=len(changed), n_sig=n_sig, causes=causes.most_common(), unexplained=unexplained,
        only_a=list(diff.only_a), only_b=list(diff.only_b),
        changed_table=table_html(_frame(diff, changed), ids, places=places, download="diff-changed.tsv")
        if changed else "",
        all_table=table_html(_frame(diff, list(diff.numbers)), ids, places=places, download="diff-all.tsv")
        if diff.numbers and all_numbers else "")
