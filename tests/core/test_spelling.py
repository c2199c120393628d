"""One spelling per measure across every result kind: a measure ir_measures knows is stored under
ir_measures' spelling (``nDCG@10``, ``RR@10``, ``AP``), never a lower-case or trec_eval variant
(``ndcg@10``, ``ndcg_cut_10``, ``map``), so comparisons across analyses find the same rows."""

from __future__ import annotations

import re

import pytest

from ranklens.registry import analyses

# trec_eval / lower-case spellings of measures ir_measures spells otherwise (reference list)
_VARIANTS = re.compile(r"^(ndcg(@\d+)?|ndcg_cut_\d+|map|map_cut_\d+|recip_rank|rr(@\d+)?|p_\d+|p@\d+|recall_\d+|"
                       r"r@\d+|ap(@\d+)?|bpref|success_\d+|err(@\d+)?)$")


def _declared_metrics():
    for a in analyses().values():
        for k in a.kinds:
            rows = k.model_rows
            names = list(k.higher_is_better)
            if rows is not None:
                names += list(rows.metrics) + [new for _, new in rows.rename]
            for m in names:
                yield k.name, m


@pytest.mark.parametrize("kind,metric", sorted(set(_declared_metrics())))
def test_declared_measure_spelling_is_ir_measures(kind, metric):
    assert not _VARIANTS.match(metric), f"{kind}: {metric!r} is not ir_measures' spelling"


def test_reference_catches_the_variants():
    assert all(_VARIANTS.match(m) for m in ("ndcg@10", "ndcg_cut_10", "map", "recip_rank", "rr@10", "p_10"))
    assert not any(_VARIANTS.match(m) for m in ("nDCG@10", "RR@10", "AP", "ASL", "MRC@10", "mrc@10", "R@100", "P@10"))


def test_explain_stores_ndcg_with_ir_measures_spelling():
    from ranklens.registry import get_analysis

    kinds = {k.name: k for k in get_analysis("explain").kinds}
    metrics = [m for k in kinds.values() if k.model_rows for m in k.model_rows.metrics]
    assert "nDCG@10" in metrics and "ndcg@10" not in metrics


def test_a_result_saved_with_the_old_explain_spelling_loads_with_the_new(tmp_path):
    """Results saved before explain's rename (``mrc@10``, ``mer@10``) read back as ``MRC@10`` /
    ``MER@10`` in every table's columns, a ``measure`` column and the summary keys; other names stay."""
    import pandas as pd

    from ranklens.results import Result, make_provenance

    old = Result(kind="explain-consistency", summary={"bm25/sentence/mrc@10": 0.5, "bm25/sentence/mer@50": 0.1,
                                                      "bm25/sentence/nDCG@10": 0.7, "mrcx": 1.0},
                 table=pd.DataFrame({"model": ["bm25"], "mrc@10": [0.5], "mer@50": [0.1], "nDCG@10": [0.7]}),
                 tables={"ci": pd.DataFrame({"measure": ["mrc@10", "nDCG@10"], "mean": [0.5, 0.7]})},
                 provenance=make_provenance())
    d = old.save(tmp_path / "r")
    back = Result.load(d)
    assert list(back.table.columns) == ["model", "MRC@10", "MER@50", "nDCG@10"]
    assert back.tables["ci"]["measure"].tolist() == ["MRC@10", "nDCG@10"]
    assert set(back.summary) == {"bm25/sentence/MRC@10", "bm25/sentence/MER@50", "bm25/sentence/nDCG@10", "mrcx"}
    assert not [w for w in back.warnings if "edited" in w]  # the digest is of the file as saved
    # another analysis's columns are never renamed
    other = Result(kind="asl-evaluate", summary={}, table=pd.DataFrame({"model": ["a"], "mrc@10": [1.0]}),
                   provenance=make_provenance())
    assert list(Result.load(other.save(tmp_path / "o")).table.columns) == ["model", "mrc@10"]
