from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import ValidationError
from ranklens.regimes import (
    EXTRAPOLATION,
    INTERPOLATION,
    ReSTrain,
    ReSTTest,
    plot_split_pca,
    plot_split_pca_result,
    project_2d,
    split_pca,
)
from ranklens.results import Result

from ._synth import synthetic

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


@pytest.fixture(scope="module")
def data():
    tq, eq, _, _ = synthetic(n_topics=5, docs_per_topic=3, per_doc=2)
    return tq, eq, pd.concat([tq, eq], ignore_index=True)


def test_split_pca_result_table_and_summary(data):
    tq, eq, allq = data
    s = ReSTTest(n_buckets=3, seed=0).fit(tq, eq).splits_[1]
    res = split_pca(s, allq)
    assert res.kind == "regimes-split-pca"
    t = res.table
    assert list(t.columns) == ["query_id", "side", "regime", "x", "y"]
    for regime in (INTERPOLATION, EXTRAPOLATION):
        g = t[t.regime == regime]
        assert g[g.side == "train"]["query_id"].tolist() == list(s.train_ids(regime))
        assert g[g.side == "test"]["query_id"].tolist() == list(s.test_ids(regime))
        assert res.summary[f"n_test|{regime}"] == len(s.test_ids(regime))
    # the coordinates are the projection of the split's pooled queries (one shared fit)
    text = dict(zip(allq["query_id"], allq["text"]))
    xy = project_2d([text[x] for x in s.pool_ids()])
    ref = dict(zip(s.pool_ids(), map(tuple, xy)))
    np.testing.assert_allclose(t[["x", "y"]].to_numpy(), [ref[q] for q in t["query_id"]], atol=1e-9)
    ev = res.summary["explained_variance"]
    assert len(ev) == 2 and all(0 < v <= 1 for v in ev)
    assert res.summary["explained_variance_total"] == pytest.approx(sum(ev))
    assert res.summary["split"] == s.name and res.provenance.inputs["split"] == s.fingerprint


def test_split_pca_plot_from_a_saved_result_alone(tmp_path, data):
    tq, eq, allq = data
    s = ReSTrain(similarity="bm25", k=1, k_exclude=1).fit(tq, eq).splits_[0]
    res = split_pca(s, allq)
    back = Result.load(res.save(tmp_path / "pca"))
    pd.testing.assert_frame_equal(back.table, res.table, check_dtype=False)
    fig = plot_split_pca_result(back)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    # train and test points of the interpolation panel, at the Result's coordinates
    tr, te = (c.get_offsets() for c in fig.axes[0].collections)
    g = res.table[res.table.regime == INTERPOLATION]
    np.testing.assert_allclose(np.asarray(tr), g[g.side == "train"][["x", "y"]].to_numpy())
    np.testing.assert_allclose(np.asarray(te), g[g.side == "test"][["x", "y"]].to_numpy())
    plt.close(fig)
    # plot_split_pca draws the same thing (it goes through split_pca)
    fig2 = plot_split_pca(s, allq)
    np.testing.assert_allclose(np.asarray(fig2.axes[0].collections[0].get_offsets()), np.asarray(tr))
    plt.close(fig2)
    fig3, ax = plt.subplots()
    assert plot_split_pca_result(back, ax=ax) is fig3
    plt.close(fig3)


def test_split_pca_errors(data):
    tq, eq, allq = data
    s = ReSTrain(similarity="bm25", k=1, k_exclude=1).fit(tq, eq).splits_[0]
    with pytest.raises(ValidationError, match="lack text"):
        split_pca(s, tq)
    with pytest.raises(ValidationError, match="regimes-split-pca"):
        plot_split_pca_result(Result(kind="regimes-table", summary={}, table=pd.DataFrame(),
                                     provenance=split_pca(s, allq).provenance))


def test_illustrate_split_resamples_in_the_plane_vs_brute_force(data):
    """Fig. 1: ReSTrain on the 2-D points. The interpolation set is the union of every test
    query's nearest training query by plain 2-D Euclidean distance (ties: lower index), read off
    the Result's own coordinates; the extrapolation set avoids every test query's top-k'."""
    from ranklens.regimes import illustrate_split

    tq, eq, _ = data
    res = illustrate_split(tq, eq, method="restrain", k=1, k_exclude=2)
    assert res.kind == "regimes-split-pca" and res.summary["resampled_in"] == "2-D projection"
    t = res.table
    pool = pd.concat([tq, eq], ignore_index=True)
    coords = project_2d(pool["text"].tolist())  # the plane the split was made in
    xy = {q: (float(x), float(y)) for q, (x, y) in zip(pool["query_id"], coords)}
    assert all(xy[q] == pytest.approx((x, y)) for q, x, y in zip(t["query_id"], t["x"], t["y"]))
    train_ids = list(tq["query_id"])

    def ranked(q):
        d = [((xy[q][0] - xy[c][0]) ** 2 + (xy[q][1] - xy[c][1]) ** 2) ** 0.5 for c in train_ids]
        return [train_ids[i] for i in sorted(range(len(d)), key=lambda i: (d[i], i))]

    want = {ranked(q)[0] for q in eq["query_id"]}
    excluded = {c for q in eq["query_id"] for c in ranked(q)[:2]}
    got_i = set(t.loc[(t["regime"] == INTERPOLATION) & (t["side"] == "train"), "query_id"])
    got_e = set(t.loc[(t["regime"] == EXTRAPOLATION) & (t["side"] == "train"), "query_id"])
    assert got_i == want
    assert len(got_e) == len(want) and not got_e & excluded


def test_illustrate_split_resttest_buckets_are_plane_regions(data):
    from sklearn.cluster import KMeans

    from ranklens.regimes import illustrate_split

    tq, eq, _ = data
    res = illustrate_split(tq, eq, method="resttest", n_buckets=3)
    t = res.table
    test = t.loc[t["side"] == "test"].drop_duplicates("query_id")
    train = t.loc[(t["side"] == "train")].drop_duplicates("query_id")
    pts = pd.concat([train, test])
    labels = KMeans(n_clusters=3, n_init=10, random_state=0).fit_predict(pts[["x", "y"]].to_numpy())
    lab = dict(zip(pts["query_id"], labels))
    extrap = set(t.loc[(t["regime"] == EXTRAPOLATION) & (t["side"] == "test"), "query_id"])
    # fold 0: the extrapolation test queries are exactly the test queries of one k-means region,
    # and the fold's training queries are the training queries outside it
    regions = {lab[q] for q in extrap}
    assert len(regions) == 1
    inside_train = {q for q in train["query_id"] if lab[q] in regions}
    assert not inside_train & set(t.loc[(t["regime"] == EXTRAPOLATION) & (t["side"] == "train"), "query_id"])
    with pytest.raises(ValidationError, match="restrain"):
        illustrate_split(tq, eq, method="other")
