"""ASL kernel: hand-worked values, a slow reference, hypothesis properties, pytrec_eval oracle."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.errors import ValidationError
from ranklens.asl.asl import asl_per_query, search_lengths
from ranklens.asl.measures import ASL, parse_measure
from ranklens.asl.ranking import rank_coded, tie_totals


def frame_run(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def frame_qrels(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


# q1: a(unjudged) b(rel1) c(rel0) d(rel2) e(unjudged); f (rel1) unretrieved
# q2: y and x tie at 3.0 -> doc_id descending puts y first; x relevant
# q3: judged only, absent from the run
RUN = frame_run([("1", "a", 5), ("1", "b", 4), ("1", "c", 3), ("1", "d", 2), ("1", "e", 1),
                 ("2", "x", 3), ("2", "y", 3), ("2", "z", 1)])
QRELS = frame_qrels([("1", "b", 1), ("1", "c", 0), ("1", "d", 2), ("1", "f", 1),
                     ("2", "x", 1), ("2", "y", 0), ("3", "q", 1)])


def by_query(rr, values):
    return dict(zip(rr.query_ids.tolist(), values.tolist()))


def test_hand_worked_lower_bound():
    rr = rank_coded(RUN, QRELS)
    v = by_query(rr, asl_per_query(rr, unretrieved="lower_bound"))
    # q1: SL(b)=2, SL(d)=4-1=3, f unretrieved: 3 non-relevant retrieved + 1 = 4 -> 9/3
    assert v["1"] == pytest.approx(3.0)
    # q2: y (non-relevant, larger doc id) first, x second -> SL 2
    assert v["2"] == pytest.approx(2.0)
    # q3: empty ranking: lower bound 1
    assert v["3"] == pytest.approx(1.0)


def test_hand_worked_policies_and_first_n():
    rr = rank_coded(RUN, QRELS)
    paper = by_query(rr, asl_per_query(rr, unretrieved="paper"))
    assert paper["1"] == pytest.approx((2 + 3 + 3) / 3)
    # expected, N=10: q1 has n=5 retrieved, M=1 missing, K=10-5-1=4 -> 1 + 3 + 1*4/2 = 6
    exp = by_query(rr, asl_per_query(rr, unretrieved="expected", collection_size=10))
    assert exp["1"] == pytest.approx((2 + 3 + 6) / 3)
    g1 = by_query(rr, asl_per_query(rr, unretrieved="lower_bound", first=1))
    assert g1["1"] == pytest.approx(2.0) and g1["2"] == pytest.approx(2.0)
    g2 = by_query(rr, asl_per_query(rr, unretrieved="lower_bound", first=2))
    assert g2["1"] == pytest.approx(2.5)
    rel2 = by_query(rr, asl_per_query(rr, rel=2, unretrieved="lower_bound"))
    assert rel2["1"] == pytest.approx(4.0)  # only d counts; a, b, c are non-relevant above it
    assert np.isnan(rel2["2"])  # no document with relevance >= 2
    cut = by_query(rr, asl_per_query(rr, cutoff=3, unretrieved="lower_bound"))
    # top 3: a b c -> SL(b)=2; d and f unretrieved: 2 non-relevant + 1 = 3 each
    assert cut["1"] == pytest.approx((2 + 3 + 3) / 3)


def test_expected_needs_collection_size():
    rr = rank_coded(RUN, QRELS)
    with pytest.raises(ValidationError, match="collection_size"):
        asl_per_query(rr, unretrieved="expected")
    with pytest.raises(ValidationError, match="unretrieved"):
        asl_per_query(rr, unretrieved="nope")


def test_per_document_table_matches_query_means():
    rr = rank_coded(RUN, QRELS)
    sl = search_lengths(rr, unretrieved="lower_bound")
    assert list(sl.columns) == ["query_id", "doc_id", "relevance", "rank", "sl", "retrieved"]
    row = sl[(sl.query_id == "1") & (sl.doc_id == "f")].iloc[0]
    assert pd.isna(row["rank"]) and row["sl"] == 4 and not row["retrieved"]
    row = sl[(sl.query_id == "1") & (sl.doc_id == "d")].iloc[0]
    assert row["rank"] == 4 and row["sl"] == 3 and row["relevance"] == 2
    means = sl.groupby("query_id")["sl"].mean()
    v = by_query(rr, asl_per_query(rr, unretrieved="lower_bound"))
    for q, m in means.items():
        assert m == pytest.approx(v[q])


def test_tie_rules_order():
    rr = rank_coded(RUN, QRELS, ties="input_order")
    assert by_query(rr, asl_per_query(rr))["2"] == pytest.approx(1.0)  # x first (input order)
    # scores 1e-9 apart tie in float32 (trec_eval) but not in float64
    run = frame_run([("1", "a", 1.0 + 1e-9), ("1", "b", 1.0)])
    qrels = frame_qrels([("1", "a", 1)])
    assert asl_per_query(rank_coded(run, qrels, ties="trec_eval"))[0] == 2.0  # b > a
    assert asl_per_query(rank_coded(run, qrels, ties="float64"))[0] == 1.0
    t = tie_totals(run)
    assert t["tied_rows_float32"] == 2 and t["tied_rows_float64"] == 0


def test_rank_order_equals_io_rank_run():
    from ranklens import io

    rng = np.random.default_rng(3)
    n = 400
    run = frame_run(zip(rng.integers(0, 7, n).astype(str),
                        [f"d{i:04d}" for i in rng.permutation(n)],
                        np.round(rng.normal(size=n), 1)))
    for rule in ("trec_eval", "float64", "input_order"):
        ours = rank_coded(run, frame_qrels([]), ties=rule).ranks_frame()
        theirs = io.rank_run(run, ties=rule)
        pd.testing.assert_frame_equal(
            ours[["query_id", "doc_id", "rank"]].reset_index(drop=True),
            theirs[["query_id", "doc_id", "rank"]].astype({"query_id": "str", "doc_id": "str"})
            .reset_index(drop=True), check_dtype=False)


def test_parse_measure_roundtrip():
    for s in ["ASL", "ASL@g1-10", "ASL(rel=2)", "ASL(rel=2)@g1-1", "ASL@100",
              "ASL(unretrieved=paper)"]:
        assert str(parse_measure(s)) == s
    assert parse_measure("ASL(rel=2)@g1-1") == ASL(own_rel=2, first=1)
    assert str(parse_measure("nDCG@10")) == "nDCG@10"
    with pytest.raises(ValidationError):
        parse_measure("ASL(foo=1)")
    with pytest.raises(ValidationError):
        parse_measure("ASL@g2")


# ------------------------------------------------------------------ slow reference + properties

def reference_asl(run: pd.DataFrame, qrels: pd.DataFrame, *, rel=1, first=None,
                  unretrieved="paper", collection_size=None, ties="trec_eval", cutoff=None):
    """Obviously-correct per-query ASL: sort each query's list in Python, cut it at
    ``cutoff``, walk it."""
    grades = {(q, d): int(r) for q, d, r in qrels.itertuples(index=False)}
    nrel: dict[str, int] = {}
    for (q, _d), g in grades.items():
        if g >= rel:
            nrel[q] = nrel.get(q, 0) + 1
    lists: dict[str, list] = {}
    for i, (q, d, s) in enumerate(run.itertuples(index=False)):
        lists.setdefault(q, []).append((d, float(s), i))
    out = {}
    for q in set(lists) | set(nrel):
        rows = lists.get(q, [])
        if ties == "input_order":
            ranked = sorted(rows, key=lambda r: (-r[1], r[2]))
        else:
            conv = (lambda s: float(np.float32(s))) if ties == "trec_eval" else float
            ranked = sorted(rows, key=lambda r: r[0], reverse=True)  # doc_id descending ...
            ranked = sorted(ranked, key=lambda r: -conv(r[1]))  # ... then score (stable)
        ranked = ranked[:cutoff]  # relevant documents below the cut count as unretrieved
        sls, nonrel = [], 0
        for d, _s, _i in ranked:
            if grades.get((q, d), -1) >= rel:
                sls.append(nonrel + 1)
            else:
                nonrel += 1
        big_r = nrel.get(q, 0)
        miss = big_r - len(sls)
        for j in range(1, miss + 1):
            if unretrieved == "paper":
                sls.append(nonrel)
            elif unretrieved == "lower_bound":
                sls.append(nonrel + 1)
            else:
                k = collection_size - len(ranked) - miss
                sls.append(1 + nonrel + j * k / (miss + 1))
        if big_r == 0:
            out[q] = float("nan")
            continue
        n = big_r if first is None else min(first, big_r)
        out[q] = sum(sls[:n]) / n
    return out


@st.composite
def run_and_qrels(draw, max_q=4, max_docs=14):
    nq = draw(st.integers(1, max_q))
    pool = [f"d{i:02d}" for i in range(20)]
    run_rows, qrel_rows = [], []
    tie_scores = draw(st.booleans())
    for q in range(nq):
        qid = f"q{q}"
        docs = draw(st.lists(st.sampled_from(pool), unique=True, max_size=max_docs))
        for d in docs:
            s = draw(st.sampled_from([0.0, 0.5, 1.0, 1.5]) if tie_scores
                     else st.floats(-5, 5, allow_nan=False))
            run_rows.append((qid, d, s))
        judged = draw(st.lists(st.sampled_from(pool), unique=True, max_size=10))
        for d in judged:
            qrel_rows.append((qid, d, draw(st.integers(0, 3))))
    return frame_run(run_rows), frame_qrels(qrel_rows)


def _compare(run, qrels, **kw):
    ties = kw.get("ties", "trec_eval")
    rr = rank_coded(run, qrels, ties=ties)
    fast = by_query(rr, asl_per_query(rr, **{k: v for k, v in kw.items() if k != "ties"}))
    ref = reference_asl(run, qrels, **kw)
    for q, v in ref.items():
        if np.isnan(v):
            assert np.isnan(fast[q])
        else:
            assert fast[q] == pytest.approx(v, abs=1e-9), (q, kw)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels(), rel=st.integers(1, 2), first=st.sampled_from([None, 1, 3]),
       policy=st.sampled_from(["lower_bound", "paper", "expected"]),
       ties=st.sampled_from(["trec_eval", "float64", "input_order"]),
       cutoff=st.sampled_from([None, 1, 3, 7]))
def test_fast_kernel_equals_reference(data, rel, first, policy, ties, cutoff):
    run, qrels = data
    _compare(run, qrels, rel=rel, first=first, unretrieved=policy,
             collection_size=100 if policy == "expected" else None, ties=ties, cutoff=cutoff)


def test_fast_kernel_equals_reference_random_large():
    rng = np.random.default_rng(7)
    rows, qrows = [], []
    for q in range(30):
        n = int(rng.integers(0, 80))
        docs = rng.choice(200, size=n, replace=False)
        for d in docs:
            rows.append((f"q{q}", f"D{d:05d}", float(np.round(rng.normal(), 1))))
        for d in rng.choice(200, size=40, replace=False):
            qrows.append((f"q{q}", f"D{d:05d}", int(rng.integers(0, 4))))
    run, qrels = frame_run(rows), frame_qrels(qrows)
    for first in (None, 1, 10):
        _compare(run, qrels, first=first)
        _compare(run, qrels, first=first, rel=2, unretrieved="expected", collection_size=500)
        _compare(run, qrels, first=first, cutoff=25, unretrieved="lower_bound")


@settings(max_examples=40, deadline=None)
@given(data=run_and_qrels())
def test_perfect_ranking_gives_one(data):
    run, qrels = data
    g = {(q, d): r for q, d, r in qrels.itertuples(index=False)}
    # score = relevance grade (>= 1 first), ties irrelevant because relevant docs come first
    perfect = run.assign(score=[10.0 if g.get((q, d), 0) >= 1 else 0.0
                                for q, d in zip(run.query_id, run.doc_id)])
    sl = search_lengths(rank_coded(perfect, qrels))
    assert (sl.loc[sl["retrieved"], "sl"] == 1.0).all()


@settings(max_examples=40, deadline=None)
@given(data=run_and_qrels(), pick=st.integers(0, 1000))
def test_moving_relevant_up_never_increases_its_sl(data, pick):
    run, qrels = data
    # distinct scores: rank = row order within the query
    run = run.assign(score=-np.arange(len(run), dtype=float))
    sl = search_lengths(rank_coded(run, qrels))
    ret = sl[sl["retrieved"] & (sl["rank"] > 1)]
    if ret.empty:
        return
    row = ret.iloc[pick % len(ret)]
    idx = run.index[(run.query_id == row.query_id) & (run.doc_id == row.doc_id)][0]
    above = run.index[(run.query_id == row.query_id) & (run.score > run.loc[idx, "score"])]
    prev = above[-1]
    moved = run.copy()
    moved.loc[[idx, prev], "score"] = moved.loc[[prev, idx], "score"].to_numpy()
    sl2 = search_lengths(rank_coded(moved, qrels))
    after = sl2[(sl2.query_id == row.query_id) & (sl2.doc_id == row.doc_id)]["sl"].iloc[0]
    assert after <= row["sl"]


@settings(max_examples=40, deadline=None)
@given(data=run_and_qrels(), seed=st.integers(0, 10_000))
def test_permuting_nonrelevant_between_relevant_changes_nothing(data, seed):
    run, qrels = data
    run = run.assign(score=-np.arange(len(run), dtype=float))
    rel = {(q, d) for q, d, r in qrels.itertuples(index=False) if r >= 1}
    is_rel = np.array([(q, d) in rel for q, d in zip(run.query_id, run.doc_id)])
    rng = np.random.default_rng(seed)
    perm_scores = run["score"].to_numpy().copy()
    # shuffle scores inside every maximal block of consecutive non-relevant rows of a query
    start = 0
    qids = run["query_id"].to_numpy()
    for i in range(len(run) + 1):
        boundary = i == len(run) or is_rel[i] or (i > 0 and qids[i] != qids[i - 1])
        if boundary:
            if i - start > 1:
                perm_scores[start:i] = rng.permutation(perm_scores[start:i])
            start = i + 1 if i < len(run) and is_rel[i] else i
    a = rank_coded(run, qrels)
    b = rank_coded(run.assign(score=perm_scores), qrels)
    for first in (None, 2):
        np.testing.assert_array_equal(asl_per_query(a, first=first), asl_per_query(b, first=first))


@settings(max_examples=40, deadline=None)
@given(data=run_and_qrels(), seed=st.integers(0, 10_000))
def test_row_order_does_not_matter_under_fixed_tie_rule(data, seed):
    run, qrels = data
    shuffled = run.sample(frac=1.0, random_state=seed)
    for rule in ("trec_eval", "float64"):
        a = asl_per_query(rank_coded(run, qrels, ties=rule))
        b = asl_per_query(rank_coded(shuffled, qrels, ties=rule))
        np.testing.assert_array_equal(a, b)


@settings(max_examples=30, deadline=None)
@given(data=run_and_qrels())
def test_tied_rows_agree_with_count_ties(data):
    run, qrels = data
    t = tie_totals(run) if len(run) else {"tied_rows_float32": 0, "tied_rows_float64": 0}
    assert rank_coded(run, qrels, ties="trec_eval").tied_rows == t["tied_rows_float32"]
    assert rank_coded(run, qrels, ties="float64").tied_rows == t["tied_rows_float64"]
    if len(run):  # the run totals are the per-query counts of ranklens.io.count_ties, summed
        from ranklens.io import count_ties

        for name, rule in (("float32", "trec_eval"), ("float64", "float64")):
            per_query = count_ties(run, ties=rule)
            assert t[f"tied_rows_{name}"] == per_query["tied_rows"].sum()
            assert t[f"tie_groups_{name}"] == per_query["tied_groups"].sum()


def test_rows_not_grouped_by_query_and_ragged_lists():
    # interleaved queries, different lengths: same result as the grouped frame
    run = frame_run([("2", "x", 1), ("1", "a", 3), ("2", "y", 2), ("1", "b", 1), ("1", "c", 2)])
    qrels = frame_qrels([("1", "b", 1), ("2", "x", 1)])
    rr = rank_coded(run, qrels)
    assert by_query(rr, asl_per_query(rr)) == {"1": 3.0, "2": 2.0}
    grouped = rank_coded(run.sort_values("query_id", kind="stable"), qrels)
    np.testing.assert_array_equal(asl_per_query(grouped), asl_per_query(rr))


def test_chunked_arrow_run_equals_frame():
    import pyarrow as pa

    rng = np.random.default_rng(11)
    rows = [(f"q{rng.integers(0, 6)}", f"d{i:03d}", float(np.round(rng.normal(), 1)))
            for i in range(300)]
    run = frame_run(rows)
    qrels = frame_qrels([(f"q{q}", f"d{d:03d}", int(rng.integers(0, 3)))
                         for q in range(6) for d in rng.choice(300, 40, replace=False)])
    tab = pa.Table.from_pandas(run, preserve_index=False)
    chunked = pa.concat_tables([tab.slice(0, 100), tab.slice(100, 120), tab.slice(220)])
    assert chunked.column("query_id").num_chunks == 3
    a, b = rank_coded(run, qrels), rank_coded(chunked, qrels)
    for first in (None, 5):
        np.testing.assert_array_equal(asl_per_query(a, first=first), asl_per_query(b, first=first))
    pd.testing.assert_frame_equal(search_lengths(a), search_lengths(b))


def test_presorted_fast_path_equals_shuffled_input():
    rng = np.random.default_rng(12)
    rows = []
    for q in range(5):
        sc = np.sort(np.round(rng.normal(size=30), 1))[::-1]  # rank order, with ties
        rows += [(f"q{q}", f"d{rng.integers(0, 10**6):07d}", float(s)) for s in sc]
    run = frame_run(rows).drop_duplicates(["query_id", "doc_id"])
    qrels = frame_qrels([(q, d, int(rng.integers(0, 3))) for q, d, _ in rows[::3]])
    a = rank_coded(run, qrels)
    b = rank_coded(run.sample(frac=1.0, random_state=1), qrels)
    pd.testing.assert_frame_equal(a.ranks_frame(), b.ranks_frame())
    for first in (None, 3):
        np.testing.assert_array_equal(asl_per_query(a, first=first), asl_per_query(b, first=first))


@pytest.mark.parametrize("alphabet, lengths", [
    ("aAzZ09-_.é\x7f", (0, 3, 8)),        # non-ASCII: bytes, not code points
    ("aAzZ09-_.é\x7f", (7, 9, 16)),       # prefixes of each other
    ("ab\x00", (0, 1, 2, 3)),             # NUL bytes: "ab" < "ab\0"
    ("aAzZ09", (15, 17, 30)),             # longer ids
])
def test_tied_rows_break_by_doc_id_descending_bytes(alphabet, lengths):
    """Ties in score are broken by doc_id descending in byte order (trec_eval's strcmp), compared
    with a plain Python sort of the UTF-8 bytes."""
    import random

    import pyarrow as pa

    from ranklens.asl.ranking import _doc_desc_order

    rng = random.Random(len(alphabet) * 31 + lengths[-1])
    for _ in range(200):
        n = rng.randint(1, 40)
        docs = ["".join(rng.choice(alphabet) for _ in range(rng.choice(lengths))) for _ in range(n)]
        group = np.array(sorted(rng.randint(0, 3) for _ in range(n)))
        arr = pa.array(["pad", *docs]).slice(1) if rng.random() < 0.3 else pa.array(docs)
        ref = sorted(sorted(range(n), key=lambda i: docs[i].encode(), reverse=True), key=lambda i: group[i])
        assert [docs[i] for i in _doc_desc_order(arr, group)] == [docs[i] for i in ref]
