"""ranklens's own standard-measure kernels (:mod:`ranklens.asl.kernels`) equal

- a plain-Python transcription of trec_eval 9.0.8's loops (``m_map.c``, ``m_P.c``, ...),
  written here, on hand-made and random runs (ties, unjudged and negatively graded documents,
  queries only in the qrels, queries only in the run);
- pytrec_eval (``provider="pytrec_eval"``, the oracle path) on the same random runs, and on
  every shared TREC DL run (real data).

trec_eval 9.0.8's own test outputs are compared in ``test_trec_eval_conformance.py``.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranklens.asl.ranking import rank_coded
from ranklens.asl.evaluation import per_query_values

MEASURES = ["AP", "AP@5", "P@1", "P@5", "P@20", "R@3", "R@10", "RR", "Rprec", "Bpref",
            "Success@1", "Success@5", "nDCG", "nDCG@3", "nDCG@10", "NumRel"]


# --- plain-Python trec_eval 9.0.8 (one query; ``ranked``: grades in rank order, None = not in
# the qrels; ``judged``: the query's qrels grades) -------------------------------------------

def _ref(name: str, cutoff: int | None, rel: int, ranked: list, judged: list[int]) -> float:
    num_rel = sum(1 for g in judged if g >= 0 and g >= rel)
    is_rel = [g is not None and g >= rel for g in ranked]
    if name == "NumRel":
        return float(num_rel)
    if name in ("P", "R", "Success", "AP") and cutoff is not None:
        top = is_rel[:cutoff]
    else:
        top = is_rel
    if name == "P":
        return sum(top) / cutoff
    if name == "R":
        return sum(top) / num_rel if num_rel else 0.0
    if name == "Success":
        return 1.0 if any(top) else 0.0
    if name == "AP":
        found, total = 0, 0.0
        for i, r in enumerate(top):
            if r:
                found += 1
                total += found / (i + 1)
        return total / num_rel if num_rel else 0.0
    if name == "RR":
        return next((1.0 / (i + 1) for i, r in enumerate(is_rel) if r), 0.0)
    if name == "Rprec":
        k = min(len(ranked), num_rel)
        return sum(is_rel[:k]) / num_rel if k else 0.0
    if name == "Bpref":
        return _ref_bpref(rel, ranked, judged, num_rel)
    return _ref_ndcg(cutoff, ranked, judged)


def _ref_bpref(rel: int, ranked: list, judged: list[int], num_rel: int) -> float:
    num_nonrel = sum(1 for g in judged if 0 <= g < rel)
    nonrel_so_far, total = 0, 0.0
    for g in ranked:
        if g is None or g < 0:  # not in the pool / in the pool but unjudged
            continue
        if g < rel:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
        else:
            total += 1.0
    return total / num_rel if num_rel else 0.0


def _ref_ndcg(cutoff: int | None, ranked: list, judged: list[int]) -> float:
    k = len(ranked) if cutoff is None else cutoff
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(ranked[:k]) if g is not None and g > 0)
    ideal = sorted((g for g in judged if g > 0), reverse=True)
    k = len(ideal) if cutoff is None else cutoff
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k]))
    return dcg / idcg if idcg > 0 else 0.0


def _reference(run: pd.DataFrame, qrels: pd.DataFrame, measure: str, rel: int) -> dict[str, float]:
    """Per judged query answered by the run: trec_eval's value (ranking: score desc as float32,
    then doc_id descending)."""
    import ir_measures

    m = ir_measures.parse_measure(measure)
    cutoff = m.params.get("cutoff")
    out = {}
    judged = {q: dict(zip(g.doc_id, g.relevance)) for q, g in qrels.groupby("query_id")}
    for q, g in run.groupby("query_id"):
        if q not in judged:
            continue
        rows = sorted(zip(g.score.astype(np.float32), g.doc_id), key=lambda t: (-t[0], _neg(t[1])))
        ranked = [judged[q].get(d) for _, d in rows]
        out[q] = _ref(m.NAME, cutoff, rel, ranked, list(judged[q].values()))
    return out


def _neg(s: str) -> tuple:
    return tuple(-b for b in s.encode()) + (1,)  # descending byte order, prefix after longer


def _ours(run, qrels, measure: str, rel: int, provider: str = "ranklens") -> dict[str, float]:
    rr = rank_coded(run, qrels)
    pq = per_query_values(rr, None, [measure], rel=rel, provider=provider)
    return dict(zip(pq.query_id, pq.value))


def _random_case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(rng.randint(1, 25))]
    run_rows, qrels_rows = [], []
    for q in range(rng.randint(1, 6)):
        qid = f"q{q}"
        if rng.random() < 0.85:  # some queries only in the qrels
            for d in rng.sample(docs, rng.randint(1, len(docs))):
                run_rows.append((qid, d, float(rng.choice([1, 2, 2, 3, 0.5, rng.random()]))))
        if rng.random() < 0.9:  # some queries only in the run
            for d in rng.sample(docs + ["x1", "x2"], rng.randint(1, len(docs))):
                qrels_rows.append((qid, d, rng.choice([-1, 0, 0, 1, 1, 2, 3])))
    if not qrels_rows:
        qrels_rows.append(("q0", "d0", 1))
    if not run_rows:
        run_rows.append(("q0", "d0", 1.0))
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    return run, qrels


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("rel", [1, 2])
def test_kernels_equal_a_plain_trec_eval_transcription(seed, rel):
    run, qrels = _random_case(seed)
    for measure in MEASURES:
        ref = _reference(run, qrels, measure, rel)
        ours = _ours(run, qrels, measure, rel)
        assert set(ours) == set(ref), (measure, ours, ref)
        for q, v in ref.items():
            assert ours[q] == pytest.approx(v, abs=1e-12), (seed, measure, q, ours[q], v)


@pytest.mark.parametrize("seed", range(25))
def test_kernels_equal_pytrec_eval(seed):
    run, qrels = _random_case(seed)
    for rel in (1, 2):
        for measure in MEASURES:
            if measure == "NumRel" and rel != 1:
                continue
            name = measure if rel == 1 or measure.startswith("nDCG") else (
                measure.split("@")[0] + f"(rel={rel})" + ("@" + measure.split("@")[1] if "@" in measure else ""))
            ours = _ours(run, qrels, name, 1)
            oracle = _ours(run, qrels, name, 1, provider="pytrec_eval")
            assert set(ours) == set(oracle), (seed, name)
            for q, v in oracle.items():
                assert ours[q] == pytest.approx(v, abs=1e-12), (seed, name, q, ours[q], v)


def test_hand_made_case():
    # q1: ranked a(2) n(unjudged) b(0) c(1) ; qrels also d(3) unretrieved, e(-1) in the pool
    run = pd.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "n", "b", "c"],
                        "score": [4.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1"] * 5, "doc_id": ["a", "b", "c", "d", "e"],
                          "relevance": [2, 0, 1, 3, -1]})
    got = {m: _ours(run, qrels, m, 1)["q1"] for m in ["AP", "P@5", "RR", "Rprec", "Bpref", "nDCG@2"]}
    assert got["AP"] == pytest.approx((1 / 1 + 2 / 4) / 3)
    assert got["P@5"] == pytest.approx(2 / 5)
    assert got["RR"] == 1.0
    assert got["Rprec"] == pytest.approx(1 / 3)  # top 3: a, n, b
    assert got["Bpref"] == pytest.approx((1 + (1 - 1 / 1)) / 3)  # N = 1 judged non-relevant
    assert got["nDCG@2"] == pytest.approx(2 / (3 + 2 / math.log2(3)))


def test_unsupported_measures_go_to_ir_measures():
    from ranklens.asl.kernels import supports
    import ir_measures

    assert supports(ir_measures.parse_measure("nDCG@10"))
    assert not supports(ir_measures.parse_measure("nDCG(dcg='exp-log2')@10"))
    assert not supports(ir_measures.parse_measure("Judged@10"))
    run, qrels = _random_case(3)
    ours = _ours(run, qrels, "Judged@5", 1)
    assert ours and all(0 <= v <= 1 for v in ours.values())


@pytest.mark.realdata
@pytest.mark.slow
def test_every_dl_run_equals_pytrec_eval(shared_data):
    """All 154 shared TREC DL runs (official top-100, full depth, community), rel 1 and 2:
    every query's value of every kernel measure equals pytrec_eval's to 1e-12."""
    base: Path = shared_data / "trec_dl_runs"
    runs = sorted(base.rglob("*.gz"))
    assert len(runs) == 154
    measures = ["AP", "nDCG@10", "nDCG", "P@10", "R@100", "RR", "Rprec", "Bpref", "Success@10", "AP@100"]
    for path in runs:
        year = "dl19" if "dl19" in str(path) or "2019" in str(path) else "dl20"
        qrels = shared_data / "trec_dl_msmarco_passage" / f"qrels.{year}-passage.txt"
        rr = rank_coded(path, qrels, duplicates="best")
        for rel in (1, 2):
            ours = per_query_values(rr, None, measures, rel=rel)
            oracle = per_query_values(rr, None, measures, rel=rel, provider="pytrec_eval")
            a = ours.set_index(["query_id", "measure"])["value"]
            b = oracle.set_index(["query_id", "measure"])["value"]
            assert a.index.sort_values().equals(b.index.sort_values()), path
            diff = (a - b.reindex(a.index)).abs().max()
            assert diff <= 1e-12, (path.name, rel, diff)
