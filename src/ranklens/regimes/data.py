"""Loaders for the real-data checks of the resampling module: TREC DL vs MS MARCO dev (WikiQA is
:func:`ranklens.io.pairs.load_wikiqa`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd


__all__ = ["load_dl_vs_dev"]


def load_dl_vs_dev(root: str | os.PathLike[str]) -> dict[str, pd.DataFrame]:
    """TREC DL 2019/2020 passage topics and qrels, and MS MARCO dev-small topics and qrels
    (``<root>`` = the ``trec_dl_msmarco_passage`` folder). No passage texts.

    Returns:
        ``{"dl19_queries", "dl20_queries", "dev_queries", "dl19_qrels", "dl20_qrels", "dev_qrels"}``;
        DL20 queries are restricted to the judged ones.
    """
    from ..io import read_qrels

    d = Path(root)

    def topics(name: str) -> pd.DataFrame:
        df = pd.read_csv(d / name, sep="\t", header=None, dtype=str, keep_default_na=False, quoting=3)
        return pd.DataFrame({"query_id": df[0].to_numpy(dtype=object), "text": df[1].to_numpy(dtype=object)})

    out = {
        "dl19_qrels": read_qrels(d / "qrels.dl19-passage.txt"),
        "dl20_qrels": read_qrels(d / "qrels.dl20-passage.txt"),
        "dev_qrels": read_qrels(d / "qrels.msmarco-passage.dev-subset.txt"),
        "dl19_queries": topics("topics.dl19-passage.txt"),
        "dev_queries": topics("topics.msmarco-passage.dev-subset.txt"),
    }
    dl20 = topics("topics.dl20.txt")
    out["dl20_queries"] = dl20.loc[dl20["query_id"].isin(set(out["dl20_qrels"]["query_id"]))].reset_index(drop=True)
    return out
