"""The explain declaration: the demo parameters are valid and the defaults are the paper's (the
doors' identity is checked for every analysis by tests/core/test_doors.py)."""

from __future__ import annotations


from ranklens.results import Result

KINDS = {"explain-consistency", "explain-sweep"}


def _tables(root):
    out = {}
    for d in sorted(root.rglob("result.json")):
        res = Result.load(d.parent)
        out[res.kind] = res
    return out


def test_demo_params_are_valid_and_reach_the_driver():
    from ranklens.declare import make_params
    from ranklens.registry import get_analysis

    a = get_analysis("explain")
    p = make_params(a.params, a.demo)
    assert p.subdoc == "demo" and p.m == 3 and p.k == (10,)
    defaults = a.defaults()
    # the paper's defaults (Table 1, eq. 3, eq. 4, BM25 top-1000 re-ranked)
    assert (defaults.m, defaults.k, defaults.pool, defaults.candidates) == (None, (10, 50), 1000, "pool")
    assert (defaults.mer_missing, defaults.aggregate, defaults.samples, defaults.n) == ("zero", "sum", 0, 2)
