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
    assert not any(_VARIANTS.match(m) for m in ("nDCG@10", "RR@10", "AP", "ASL", "mrc@10", "R@100", "P@10"))


def test_explain_stores_ndcg_with_ir_measures_spelling():
    from ranklens.registry import get_analysis

    kinds = {k.name: k for k in get_analysis("explain").kinds}
    metrics = [m for k in kinds.values() if k.model_rows for m in k.model_rows.metrics]
    assert "nDCG@10" in metrics and "ndcg@10" not in metrics
