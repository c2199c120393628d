"""irds:<id> through ir_datasets, with a dataset the test builds and registers locally (no download)."""

from __future__ import annotations

import uuid

import pytest

ir_datasets = pytest.importorskip("ir_datasets")

from ranklens.io import load_collection, read_qrels, read_run  # noqa: E402
from ranklens.io.irds import IrdsDocStore, irds_queries  # noqa: E402


@pytest.fixture
def local_dataset(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds_home"))
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecScoredDocs, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    (tmp_path / "docs.tsv").write_text("d1\tcats purr\nd2\tdogs bark\n007\tlicence to kill\n")
    (tmp_path / "queries.tsv").write_text("1\tcats\n002\tspy\n")
    (tmp_path / "qrels.txt").write_text("1 0 d1 2\n1 0 d2 0\n002 0 007 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 d1 1 3.5 x\n1 Q0 d2 2 1.0 x\n002 Q0 007 1 9 x\n")
    ds = Dataset(
        TsvDocs(LocalDownload(tmp_path / "docs.tsv")),
        TsvQueries(LocalDownload(tmp_path / "queries.tsv")),
        TrecQrels(LocalDownload(tmp_path / "qrels.txt"), {0: "not", 1: "rel", 2: "very"}),
        TrecScoredDocs(LocalDownload(tmp_path / "run.txt")),
    )
    name = f"ranklens-test/{uuid.uuid4().hex[:8]}"
    ir_datasets.registry.register(name, ds)
    return name


def test_irds_collection(local_dataset):
    c = load_collection(f"irds:{local_dataset}")
    assert c.name == f"irds:{local_dataset}"
    assert c.queries.values.tolist() == [["1", "cats"], ["002", "spy"]]
    assert c.qrels.values.tolist() == [["1", "d1", 2], ["1", "d2", 0], ["002", "007", 1]]
    assert str(c.qrels["relevance"].dtype) == "int64"
    docs = c.docs
    assert isinstance(docs, IrdsDocStore)
    assert len(docs) == 3 and list(docs) == ["d1", "d2", "007"]
    assert docs["007"] == "licence to kill"
    assert docs.get_many(["d2", "d1"]) == ["dogs bark", "cats purr"]
    assert "d1" in docs and "nope" not in docs
    with pytest.raises(KeyError, match="nope"):
        docs["nope"]
    assert dict(docs.iter_docs())["d2"] == "dogs bark"


def test_irds_run_and_qrels_via_readers(local_dataset):
    run = read_run(f"irds:{local_dataset}")
    assert run.values.tolist() == [["1", "d1", 3.5], ["1", "d2", 1.0], ["002", "007", 9.0]]
    assert read_qrels(f"irds:{local_dataset}")["doc_id"].tolist() == ["d1", "d2", "007"]
    assert irds_queries(f"irds:{local_dataset}")["query_id"].tolist() == ["1", "002"]


def test_irds_unknown_id():
    from ranklens.errors import DataFormatError

    with pytest.raises(DataFormatError, match="unknown ir_datasets id"):
        load_collection("irds:ranklens-test/does-not-exist")
