"""Standard measures reported through ranklens -- its own kernels (``provider="ranklens"``) and
the oracle path (``provider="pytrec_eval"``: ir_measures/pytrec_eval after ranklens's own
trec_eval-rule ranking) -- reproduce trec_eval 9.0.8's expected outputs, per query and ``all``.

Expected files and commands: ``trec_eval_tests/SOURCE.md``. Only measures both sides support are
compared (listed in ``COMPARED``); trec_eval prints 4 decimals, so values must agree to 5e-5.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.realdata

COMPARED = re.compile(
    r"^(map|map_cut_\d+|P_\d+|recip_rank|ndcg|ndcg_cut_\d+|Rprec|recall_\d+|bpref|"
    r"success_\d+|iprec_at_recall_[\d.]+|infAP)$"
)

CASES = [
    # expected file, qrels, run, rel, missing (-c -> zero)
    ("out.test", "qrels.test", "results.test", 1, "skip"),
    ("out.test.aq", "qrels.test", "results.test", 1, "skip"),
    ("out.test.aqc", "qrels.test", "results.trunc", 1, "zero"),
    ("out.test.aql", "qrels.rel_level", "results.test", 2, "skip"),
]


def read_expected(path: Path) -> dict[tuple[str, str], float]:
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) != 3 or not COMPARED.match(parts[0]):
            continue
        out[(parts[0], parts[1])] = float(parts[2])
    return out


def _six_fields(path: Path, tmp_path: Path) -> Path:
    """trec_eval reads the first six fields of a run line; ``results.trunc`` has trailing junk
    words that ranklens's strict reader refuses, so the test gives it the six fields."""
    text = path.read_text()
    if all(len(ln.split()) == 6 for ln in text.splitlines() if ln.strip()):
        return path
    out = tmp_path / path.name
    out.write_text("".join(" ".join(ln.split()[:6]) + "\n" for ln in text.splitlines() if ln.strip()))
    return out


@pytest.mark.parametrize("provider", ["ranklens", "pytrec_eval"])
@pytest.mark.parametrize("expected,qrels,run,rel,missing", CASES)
def test_reproduces_trec_eval_908(shared_data, tmp_path, expected, qrels, run, rel, missing, provider):
    import ir_measures

    from ranklens.asl.ranking import rank_coded
    from ranklens.asl.evaluation import per_query_values, qrels_to_dict

    base = shared_data / "trec_eval_tests"
    exp = read_expected(base / "v9.0.8_expected" / expected)
    run_path = _six_fields(base / "test" / run, tmp_path)
    names = sorted({m for m, _ in exp})
    measures = {n: ir_measures.parse_trec_measure(n)[0] for n in names}
    rr = rank_coded(run_path, base / "test" / qrels)
    qd = qrels_to_dict(base / "test" / qrels)
    pq = per_query_values(rr, qd, list(measures.values()), rel=rel, missing=missing, provider=provider)
    by = {(m, q): v for q, m, v in pq[["query_id", "measure", "value"]].itertuples(index=False)}
    compared = 0
    for (name, q), value in exp.items():
        mname = str(measures[name] if rel == 1 or "rel" not in measures[name].SUPPORTED_PARAMS
                    or "rel" in measures[name].params else measures[name](rel=rel))
        if q == "all":
            vals = [v for (m, _q), v in by.items() if m == mname]
            ours = sum(vals) / len(vals)
        else:
            ours = by[(mname, q)]
        assert abs(ours - value) <= 5e-5 + 1e-12, (expected, name, q, ours, value)
        compared += 1
    assert compared >= len(names)
    assert {"map", "P_10", "recip_rank", "Rprec", "bpref"} <= set(names)
