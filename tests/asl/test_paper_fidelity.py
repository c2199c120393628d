"""The paper's definitions against small brute-force references written here in plain Python:
MAP coverage (Appendix A.1), ΔSort (section 4.4), Table 2 across tracks, depth cuts, grade
mappings and the missing-query policy."""

from __future__ import annotations

import math
from statistics import mean, stdev

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sst

from ranklens.asl import evaluate, map_coverage, map_to_asl_chain
from ranklens.asl.asl import asl_per_query
from ranklens.asl.ranked import truncate
from ranklens.asl.ranking import rank_coded
from ranklens.asl.chain import across_tracks, better_counts


def frame(order: dict[str, list[str]]) -> pd.DataFrame:
    rows = [(q, d, float(len(ds) - i)) for q, ds in order.items() for i, d in enumerate(ds)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def qrels_of(rel: dict[str, list[str]]) -> pd.DataFrame:
    return pd.DataFrame([(q, d, 1) for q, ds in rel.items() for d in ds],
                        columns=["query_id", "doc_id", "relevance"])


# ------------------------------------------------------------------ references (plain Python)

def ref_precisions(ranking: list[str], relevant: set[str]) -> list[float]:
    """MAP's own precisions (eq. 6), 0 for relevant documents never retrieved."""
    out, found = [], 0
    for rank, d in enumerate(ranking, 1):
        if d in relevant:
            found += 1
            out.append(found / rank)
    return out + [0.0] * (len(relevant) - found)


def ref_coverage(ranking: list[str], relevant: set[str]) -> float | None:
    """Appendix A.1 by brute force: try every n, keep the first closest."""
    p = sorted(ref_precisions(ranking, relevant), reverse=True)
    ap = sum(p) / len(p)
    if ap == 0:
        return None
    best_n, best_d = None, math.inf
    for n in range(1, len(p) + 1):
        sl = [1 / x if x > 0 else math.inf for x in p[:n]]
        d = abs(sum(sl) / n - 1 / ap)
        if d < best_d:
            best_n, best_d = n, d
    return best_n / len(p)


def ref_asl_q(ranking: list[str], relevant: set[str]) -> float:
    """Eq. 2 for retrieved, eq. 3 (irrel_q) for unretrieved relevant documents."""
    sls, irrel = [], 0
    for d in ranking:
        if d in relevant:
            sls.append(irrel + 1)
        else:
            irrel += 1
    sls += [irrel] * (len(relevant) - len(sls))
    return sum(sls) / len(sls)


def ref_ap(ranking: list[str], relevant: set[str]) -> float:
    p = ref_precisions(ranking, relevant)
    return sum(p) / len(p)


def ref_n_better(values: list[float], per_query: list[list[float]], higher: bool) -> list[int]:
    """Section 4.4: t better than s = metric 10% better relative to s AND ttest_rel p <= 0.05."""
    out = []
    for s, vs in enumerate(values):
        n = 0
        for t, vt in enumerate(values):
            if t == s:
                continue
            gain = (vt - vs) / abs(vs) if higher else (vs - vt) / abs(vs)
            a, b = np.array(per_query[t]), np.array(per_query[s])
            p = 1.0 if np.all(a == b) else sst.ttest_rel(a, b).pvalue
            if gain >= 0.10 - 1e-12 and p <= 0.05:
                n += 1
        out.append(n)
    return out


# ------------------------------------------------------------------ MAP coverage

def test_coverage_minimal_case_is_one():
    """r1 n1 r2 n2 r3: P = 1, 2/3, 3/5; 1/AP = 1.3235; mean SL of the top 3 = 1.389 is the
    closest -> n = 3 of 3 (atomized SLs 1, 2, 3 would give 2/3)."""
    qrels = qrels_of({"q": ["r1", "r2", "r3"]})
    res = map_coverage(qrels, {"A": frame({"q": ["r1", "n1", "r2", "n2", "r3"]})})
    assert res.tables["per_query"]["coverage"].tolist() == [ref_coverage(
        ["r1", "n1", "r2", "n2", "r3"], {"r1", "r2", "r3"})] == [1.0]
    assert res.table["coverage"].tolist() == [1.0]


@pytest.mark.parametrize("ranking", [
    ["r1", "n1", "r2", "n2", "r3"],
    ["n1", "r1", "n2", "n3", "n4", "n5", "n6", "n7", "r2", "r3"],       # precision not monotone
    ["r1", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "r2"],       # r3 never retrieved
    ["n1", "n2", "n3", "r3"],                                           # r1, r2 never retrieved
    ["r1", "r2", "r3"],
])
def test_coverage_equals_brute_force(ranking):
    rel = {"r1", "r2", "r3"}
    res = map_coverage(qrels_of({"q": sorted(rel)}), {"A": frame({"q": ranking})})
    assert res.tables["per_query"]["coverage"].tolist() == pytest.approx([ref_coverage(ranking, rel)])


def test_coverage_random_runs_equal_brute_force():
    rng = np.random.default_rng(3)
    rel = {q: sorted(f"d{i}" for i in rng.choice(40, size=rng.integers(1, 9), replace=False))
           for q in ("a", "b", "c", "d", "e", "f")}
    order = {q: [f"d{i}" for i in rng.permutation(40)[: rng.integers(5, 40)]] for q in rel}
    res = map_coverage(qrels_of(rel), {"A": frame(order)})
    got = res.tables["per_query"].set_index("query_id")["coverage"].to_dict()
    want = {q: ref_coverage(order[q], set(rel[q])) for q in rel}
    assert got == pytest.approx({q: v for q, v in want.items() if v is not None})
    assert res.table["coverage"].iloc[0] == pytest.approx(mean(v for v in want.values() if v is not None))
    if any(v is None for v in want.values()):
        assert res.warnings


# ------------------------------------------------------------------ ΔSort

def test_better_counts_boundaries():
    # higher is better: 1.10 is 10% better than 1.0, 1.09 is not
    p = np.zeros((3, 3))
    assert better_counts(np.array([1.0, 1.10, 1.09]), p, True).tolist() == [1, 0, 0]
    # lower is better (ASL): 9.0 is 10% better than 10, 9.1 is not
    assert better_counts(np.array([10.0, 9.0, 9.1]), p, False).tolist() == [1, 0, 0]
    # a p-value above alpha blocks it
    p2 = np.full((3, 3), 0.06)
    assert better_counts(np.array([1.0, 2.0, 3.0]), p2, True).tolist() == [0, 0, 0]


def _random_track(seed, n_sys=5, n_q=12, depth=25):
    rng = np.random.default_rng(seed)
    rel = {f"q{q}": sorted(f"d{i}" for i in rng.choice(depth + 10, size=rng.integers(1, 6), replace=False))
           for q in range(n_q)}
    runs = {}
    for s in range(n_sys):
        order = {}
        for q, r in rel.items():
            docs = [f"d{i}" for i in range(depth + 10)]
            score = {d: rng.normal() + (0.9 * s if d in r else 0.0) for d in docs}
            order[q] = sorted(docs, key=lambda d: -score[d])[:depth]
        runs[f"s{s}"] = order
    return rel, runs


def test_dsort_cumulative_equals_brute_force():
    rel, runs = _random_track(1)
    names = list(runs)
    res = map_to_asl_chain(qrels_of(rel), {n: frame(o) for n, o in runs.items()})
    qs = sorted(rel)
    ap = [[ref_ap(runs[n][q], set(rel[q])) for q in qs] for n in names]
    asl = [[ref_asl_q(runs[n][q], set(rel[q])) for q in qs] for n in names]
    n0 = ref_n_better([mean(x) for x in ap], ap, True)
    n1 = ref_n_better([mean(x) for x in asl], asl, False)
    got = res.tables["dsort"]
    got = got[(got["chain"] == "MAP->ASL") & (got["step"] == "Cumulative")].set_index("model")
    assert got.loc[names, "n0"].tolist() == n0
    assert got.loc[names, "n1"].tolist() == n1
    ds = [100 * abs(a - b) / len(names) for a, b in zip(n0, n1)]
    row = res.table[(res.table["chain"] == "MAP->ASL") & (res.table["step"] == "Cumulative")].iloc[0]
    assert row["dsort"] == pytest.approx(max(ds))
    tau = sst.kendalltau([mean(x) for x in ap], [1 / mean(x) for x in asl]).statistic
    assert row["kendall_tau"] == pytest.approx(tau)


def test_rates_across_queries_row_tests_asl_q():
    """'Agg. rates across queries': 1/mean ASL_q, 10% in that space, t-test on ASL_q."""
    rel, runs = _random_track(2)
    names = list(runs)
    res = map_to_asl_chain(qrels_of(rel), {n: frame(o) for n, o in runs.items()})
    qs = sorted(rel)
    asl = [[ref_asl_q(runs[n][q], set(rel[q])) for q in qs] for n in names]
    want = ref_n_better([1 / mean(x) for x in asl], asl, True)
    got = res.tables["dsort"]
    got = got[got["step"] == "Agg. rates across queries"].set_index("model")
    assert got.loc[names, "n1"].tolist() == want


def test_kendall_keeps_exact_ties():
    """Two systems with the same per-query values tie in every stage: tau-b counts the tie."""
    rel, runs = _random_track(4, n_sys=3)
    runs["copy"] = runs["s1"]
    res = map_to_asl_chain(qrels_of(rel), {n: frame(o) for n, o in runs.items()})
    row = res.table[(res.table["chain"] == "MAP->ASL") & (res.table["step"] == "Cumulative")].iloc[0]
    sysv = res.tables["systems"].set_index(["stage", "model"])["precision_space"]
    names = list(runs)
    a = [sysv[("MAP", n)] for n in names]
    b = [sysv[("ASL", n)] for n in names]
    assert row["kendall_tau"] == pytest.approx(sst.kendalltau(np.round(a, 10), np.round(b, 10)).statistic)


def test_table2_mean_sd_over_tracks():
    chains = {}
    for seed in (5, 6, 7):
        rel, runs = _random_track(seed)
        chains[f"t{seed}"] = map_to_asl_chain(qrels_of(rel), {n: frame(o) for n, o in runs.items()})
    t2 = across_tracks(chains).table.set_index(["chain", "step"])
    for key, col in (("dsort", "dsort"), ("tau", "kendall_tau")):
        vals = [c.table.set_index(["chain", "step"]).loc[("MAP->ASL", "Atomize P"), col] for c in chains.values()]
        assert t2.loc[("MAP->ASL", "Atomize P"), f"{key}_mean"] == pytest.approx(mean(vals))
        assert t2.loc[("MAP->ASL", "Atomize P"), f"{key}_sd"] == pytest.approx(stdev(vals))


# ------------------------------------------------------------------ defaults, depth, grades, missing

def test_default_unretrieved_is_eq3_and_warns_below_optimum():
    # q: n1 only, r1 unretrieved -> eq. 3: SL = 1; q2: nothing non-relevant retrieved, r2 missed: SL 0
    qrels = qrels_of({"q": ["r1"], "q2": ["r2", "r3"]})
    run = frame({"q": ["n1"], "q2": ["r3"]})
    res = evaluate(qrels, {"A": run}, ["ASL"])
    assert res.summary["ASL"] == pytest.approx((ref_asl_q(["n1"], {"r1"}) + ref_asl_q(["r3"], {"r2", "r3"})) / 2)
    assert any("below the optimum" in w for w in res.warnings)


def test_depth_cut_equals_cutting_by_hand_and_warns_on_mixed_depths():
    rel, runs = _random_track(8, n_sys=2)
    qrels = qrels_of(rel)
    full = frame(runs["s1"])
    cut = frame({q: o[:7] for q, o in runs["s1"].items()})
    rr = truncate(rank_coded(full, qrels), 7)
    want = rank_coded(cut, qrels)
    np.testing.assert_allclose(asl_per_query(rr), asl_per_query(want))
    res = evaluate(qrels, {"full": full, "short": cut}, ["ASL", "AP"])
    assert any("different depths" in w for w in res.warnings)
    d = res.table.set_index("model")
    assert d.loc["short", "depth_max"] == 7 and d.loc["full", "depth_median"] == 25
    same = evaluate(qrels, {"full": full, "short": cut}, ["ASL", "AP"], depth=7).table.set_index("model")
    assert same.loc["full", "ASL"] == pytest.approx(same.loc["short", "ASL"])
    assert same.loc["full", "AP"] == pytest.approx(same.loc["short", "AP"])


def test_grade_mapping_nist_dl20():
    qrels = pd.DataFrame([("q", "a", 1), ("q", "b", 2), ("q", "c", 3)], columns=["query_id", "doc_id", "relevance"])
    run = frame({"q": ["a", "x", "b", "c"]})
    mapped = evaluate(qrels, {"A": run}, ["AP", "nDCG@10"], grades="nist-dl20").summary
    by_hand = qrels.assign(relevance=qrels["relevance"].replace({1: 0}))
    plain = evaluate(by_hand, {"A": run}, ["AP", "nDCG@10"]).summary
    assert mapped["AP"] == pytest.approx(plain["AP"]) and mapped["nDCG@10"] == pytest.approx(plain["nDCG@10"])
    assert mapped["AP"] == pytest.approx((1 / 3 + 2 / 4) / 2)


def test_missing_zero_never_rewards_a_missing_query():
    qrels = qrels_of({"q": ["r1"], "q2": ["r2", "r3"]})
    run = frame({"q": ["n1", "n2", "r1"]})  # q2 not answered
    res = evaluate(qrels, {"A": run}, ["ASL", "AP"], missing="zero").tables["per_query"]
    v = res.set_index(["query_id", "measure"])["value"]
    # worst case: the run's depth (3) of non-relevant documents, every relevant one unretrieved
    assert v[("q2", "ASL")] == pytest.approx(3.0)
    assert v[("q2", "ASL")] >= max(ref_asl_q(o, {"r2", "r3"}) for o in (["n1", "n2", "n3"], ["r2", "r3"]))
    assert v[("q2", "AP")] == 0.0
