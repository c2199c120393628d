"""Loaders for the real-data checks of the resampling module (WikiQA, TREC DL vs MS MARCO dev).

The WikiQA files use a ``query_id<TAB>question`` header and a ``corpus.tsv`` with
``sentence_id``/``sentence`` columns, which the generic readers do not map, so they are read here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import DataFormatError

__all__ = ["RealSplitData", "load_dl_vs_dev", "load_wikiqa"]


@dataclass(frozen=True)
class RealSplitData:
    """Training queries, test queries, qrels (both), and the corpus (``doc_id -> text``)."""

    name: str
    train_queries: pd.DataFrame
    test_queries: pd.DataFrame
    qrels: pd.DataFrame
    corpus: dict[str, str]
    dev_queries: pd.DataFrame | None = None


def _read_tsv(path: Path, id_col: str, text_col: str) -> pd.DataFrame:
    if not path.is_file():
        raise DataFormatError("file not found; point to the wikiqa folder of the shared data", path=path)
    df = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    missing = {id_col, text_col} - set(df.columns)
    if missing:
        raise DataFormatError(f"missing column(s) {sorted(missing)} in the header", path=path, line=1)
    return pd.DataFrame({"query_id": df[id_col].to_numpy(dtype=object), "text": df[text_col].to_numpy(dtype=object)})


def load_wikiqa(root: str | os.PathLike[str]) -> RealSplitData:
    """WikiQA (``<root>/derived``): train queries as training set, test queries as test set,
    dev queries in ``dev_queries``; qrels of all splits (judged negatives included); 26k sentences."""
    from ..io import read_qrels

    d = Path(root) / "derived" if (Path(root) / "derived").is_dir() else Path(root)
    corpus_df = pd.read_csv(d / "corpus.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    corpus = dict(zip(corpus_df["sentence_id"], corpus_df["sentence"]))
    qs = {s: _read_tsv(d / f"queries.{s}.tsv", "query_id", "question") for s in ("train", "dev", "test")}
    qrels = pd.concat([read_qrels(d / f"qrels.{s}.trec") for s in ("train", "dev", "test")], ignore_index=True)
    return RealSplitData(name="wikiqa", train_queries=qs["train"], test_queries=qs["test"], qrels=qrels,
                         corpus=corpus, dev_queries=qs["dev"])


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
