from __future__ import annotations

import pytest

from ranklens.results import Result


@pytest.mark.slow
def test_run_demo_without_fine_tune(tmp_path):
    from ranklens.resampling.demo import run_demo

    res = run_demo(tmp_path, fine_tune=False)
    assert [r.kind for r in res] == ["query-similarity", "label-overlap", "regime-table", "split-pca"]
    for name in ("query-similarity-demo", "label-overlap-demo", "regime-table-demo", "split-pca-demo"):
        assert Result.load(tmp_path / name).kind == name.rsplit("-demo", 1)[0]
    sim = res[0]
    # paraphrase training queries exist for some test queries: they should often be the nearest
    assert sim.summary.get("nearest_is_paraphrase", 0) > 0
    t = res[2].tables["regime_table"].set_index(["model", "measure"])
    # the memorising model must do better with the similar training queries
    assert t.loc[("memorizing", "nDCG@10"), "interpolation"] > t.loc[("memorizing", "nDCG@10"), "extrapolation"]
    assert (tmp_path / "regime-table-demo" / "pca.png").is_file()
    pca = res[3]
    assert pca.summary["split"] == "restrain-demo" and len(pca.summary["explained_variance"]) == 2
    assert set(pca.table["regime"]) == {"interpolation", "extrapolation"}
