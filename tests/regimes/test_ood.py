"""OOD correlation over ReSTrain and ReSTTest variants: correlations vs plain-Python ranks,
bootstrap CIs over variants, the pseudo-replication warning, and the declaration's ``ood``."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from ranklens.regimes import ood_correlation, variant_scores


def _ranks(v):
    """Average ranks (1-based), plain Python."""
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for t in range(i, j + 1):
            r[order[t]] = (i + j) / 2 + 1
        i = j + 1
    return r


def _spearman(x, y):
    rx, ry = _ranks(x), _ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return num / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))


def _kendall_no_ties(x, y):
    n = len(x)
    s = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i in range(n) for j in range(i + 1, n))
    return s / (n * (n - 1) / 2)


def test_restrain_models_enter_one_regime_each_vs_reference():
    # four ReSTrain splits (interp + extrap model each) and one ReSTTest fold model (both regimes)
    ind = pd.DataFrame({
        "variant": ["a/r1/interpolation", "a/r1/extrapolation", "b/r2/interpolation", "b/r2/extrapolation",
                    "c/r3/interpolation", "c/r3/extrapolation", "d/r4/interpolation", "d/r4/extrapolation",
                    "e/t-fold0/interpolation+extrapolation"],
        "interpolation": [0.50, np.nan, 0.61, np.nan, 0.55, np.nan, 0.40, np.nan, 0.58],
        "extrapolation": [np.nan, 0.30, np.nan, 0.42, np.nan, 0.25, np.nan, 0.37, 0.33],
    })
    ood_vals = [0.20, 0.18, 0.31, 0.29, 0.22, 0.12, 0.25, 0.26, 0.27]
    ood = pd.DataFrame({"variant": ind["variant"], "collection": "x", "value": ood_vals})
    r = ood_correlation(ind, ood, n_resamples=300)
    t = r.table.set_index("regime")
    for regime in ("interpolation", "extrapolation"):
        keep = ind[regime].notna().to_numpy()
        x = ind.loc[keep, regime].tolist()
        y = [v for v, k in zip(ood_vals, keep) if k]
        assert t.loc[regime, "n"] == len(x) == 5
        assert t.loc[regime, "spearman"] == pytest.approx(_spearman(x, y))
        assert t.loc[regime, "kendall"] == pytest.approx(_kendall_no_ties(x, y))
        assert t.loc[regime, "spearman_ci_low"] <= t.loc[regime, "spearman_ci_high"]
    # five different trainers: independent models, no pseudo-replication warning
    assert not [w for w in r.warnings if "pseudo-replication" in w]


def test_folds_of_one_model_warned_and_perfect_order_ci():
    ind = pd.DataFrame({"variant": [f"bm25/rt-fold{i}/interpolation+extrapolation" for i in range(5)],
                        "interpolation": [0.5, 0.4, 0.6, 0.3, 0.7], "extrapolation": [0.1, 0.2, 0.3, 0.4, 0.5]})
    ood = pd.DataFrame({"variant": ind["variant"], "collection": "c", "value": [0.11, 0.21, 0.31, 0.41, 0.51]})
    r = ood_correlation(ind, ood, n_resamples=500)
    t = r.table.set_index("regime")
    assert t.loc["extrapolation", "n_models"] == 1
    # a perfectly monotone relation: every usable resample has rho = tau = 1
    vals = t.loc["extrapolation", ["spearman", "spearman_ci_low", "spearman_ci_high", "kendall_ci_low"]]
    assert vals.tolist() == pytest.approx([1.0] * 4)
    assert t.loc["extrapolation", "n_resamples_used"] > 0
    assert any("pseudo-replication" in w and "from 1 trainer" in w for w in r.warnings)
    bm = r.tables["by_model"].set_index(["model", "regime"])
    assert bm.loc[("bm25", "extrapolation"), "spearman"] == pytest.approx(1.0)
    x, y = ind["interpolation"].tolist(), ood["value"].tolist()
    assert bm.loc[("bm25", "interpolation"), "spearman"] == pytest.approx(_spearman(x, y))


def test_variant_scores_keep_restrain_and_resttest(tmp_path):
    from ranklens.engine import ScoringEngine
    from ranklens.regimes import BM25Trainer, ReSTrain, ReSTTest, evaluate_regimes, train_variants

    from ._synth import synthetic

    tq, eq, qrels, corpus = synthetic(n_topics=4, docs_per_topic=3)
    allq = pd.concat([tq, eq], ignore_index=True)
    splits = [*ReSTrain(k=1, k_exclude=1, similarity="tfidf", name="rs").fit(tq, eq).splits_,
              *ReSTTest(n_buckets=2, seed=0, name="rt").fit(tq, eq).splits_]
    eng = ScoringEngine(cache=False)
    vs = train_variants([BM25Trainer(k1_grid=(0.9,), b_grid=(0.4,))], splits, allq, qrels, corpus, tmp_path,
                        engine=eng)
    reg = evaluate_regimes(vs, splits, allq, qrels, corpus, measures=["nDCG@10"], depth=10, engine=eng)
    sc = variant_scores(reg).set_index("variant")
    assert set(sc.index) == {"bm25-tuned/rs/interpolation", "bm25-tuned/rs/extrapolation",
                             "bm25-tuned/rt-fold0/interpolation+extrapolation",
                             "bm25-tuned/rt-fold1/interpolation+extrapolation"}
    assert np.isnan(sc.loc["bm25-tuned/rs/interpolation", "extrapolation"])
    t = reg.table
    ref = t.loc[(t["split"] == "rs") & (t["regime"] == "interpolation"), "value"].mean()
    assert sc.loc["bm25-tuned/rs/interpolation", "interpolation"] == pytest.approx(ref)


def _write_collection(d, corpus, queries, qrels):
    d.mkdir(parents=True)
    (d / "docs.jsonl").write_text("".join(json.dumps({"doc_id": k, "text": v}) + "\n" for k, v in corpus.items()))
    (d / "queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in zip(queries["query_id"], queries["text"])))
    (d / "qrels.trec").write_text("".join(f"{q} 0 {dd} {r}\n" for q, dd, r in
                                          zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"])))


def test_declaration_ood_result(tmp_path):
    from ranklens.engine import ScoringEngine
    from ranklens.io.collection import Collection, DocStore
    from ranklens.regimes.declaration import Params
    from ranklens.regimes.driver import run

    from ._synth import synthetic

    tq, eq, qr, corpus = synthetic(n_topics=4, docs_per_topic=3, per_doc=3)
    coll = Collection(name="in", docs=DocStore(corpus), queries=pd.concat([tq, eq], ignore_index=True), qrels=qr)
    otq, oeq, oqr, ocorpus = synthetic(n_topics=3, docs_per_topic=3, seed=5)
    _write_collection(tmp_path / "other", ocorpus, pd.concat([otq, oeq], ignore_index=True), oqr)
    p = Params(similarity="tfidf", k_exclude=1, train_fraction=0.8, buckets=3, trainers=("bm25", "memorizing"), measures=("nDCG@10",),
               depth=10, ood=(str(tmp_path / "other"),))
    out = run(coll, {}, p, engine=ScoringEngine(cache=False))
    assert not [w for w in out[-2].warnings if "ReSTrain skipped" in w]
    ood = out[-1]
    assert ood.kind == "regimes-ood-correlation"
    t = ood.table.set_index("regime")
    # per trainer: ReSTrain's interpolation model + 3 ReSTTest fold models enter interpolation
    assert t.loc["interpolation", "n"] == t.loc["extrapolation", "n"] == 2 * (1 + 3)
    assert t.loc["interpolation", "n_models"] == 2
    assert any("pseudo-replication" in w for w in ood.warnings)
    assert set(ood.tables["points"]["collection"]) == {"other"}
