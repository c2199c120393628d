"""docs/pyterrier.md runs as written: BM25 scores (not all 0.0), ASL's +/- follow its direction,
a PyTerrier transformer object works at the Python door."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyterrier")

DOC = Path(__file__).resolve().parents[2] / "docs" / "pyterrier.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_pyterrier_page_runs_and_scores():
    ns: dict = {}
    for block in _blocks():
        exec(compile(block, str(DOC), "exec"), ns)  # noqa: S102 - the documentation's own code
    scored = ns["bm25"].transform(ns["topics"])
    cats = scored[scored["qid"] == "1"].set_index("docno")["score"]
    assert min(cats["d1"], cats["d4"], cats["d6"]) > 0 and cats["d1"] > cats["d4"]  # tf 2 vs 1, same length
    assert (cats.drop(["d1", "d4", "d6"]) == 0).all()
    raw, fixed = ns["table"], ns["asl_directions"](ns["table"])
    assert fixed["ASL +"].equals(raw["ASL -"]) and fixed["ASL -"].equals(raw["ASL +"])
    assert (fixed["AP +"].fillna(-1) == raw["AP +"].fillna(-1)).all()
    assert ns["res"][0].summary["model_calls"]["overlap"] > 0


def test_asl_directions_against_a_hand_count():
    import pandas as pd

    from ranklens.asl.ir_measures_ext import asl_directions

    base, other = [3.0, 1.0, 2.0, 4.0], [1.0, 1.0, 5.0, 6.0]  # ASL per query: 1 improved, 2 got worse
    up = sum(o > b for o, b in zip(other, base))  # what PyTerrier puts in "ASL +"
    down = sum(o < b for o, b in zip(other, base))
    pt_table = pd.DataFrame({"name": ["b", "o"], "ASL": [2.5, 3.25], "ASL +": [None, up], "ASL -": [None, down],
                             "nDCG@10 +": [None, 2], "nDCG@10 -": [None, 0]})
    out = asl_directions(pt_table)
    assert (out.loc[1, "ASL +"], out.loc[1, "ASL -"]) == (down, up) == (1, 2)  # + = improved = ASL went down
    assert out.loc[1, "nDCG@10 +"] == 2 and pt_table.loc[1, "ASL +"] == up  # others kept; input not mutated
