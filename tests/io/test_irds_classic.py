"""``irds:`` Cranfield gives the query ids and relevance of the classic files: a dataset built here
from ir_datasets' own Cranfield loader classes over tiny local files (no download) is compared
with ranklens' raw-file reader and with a plain-Python reading of ``cranqrel``."""

from __future__ import annotations

import uuid
import warnings

import pytest

ir_datasets = pytest.importorskip("ir_datasets")

from ranklens.errors import RanklensWarning, ValidationError  # noqa: E402
from ranklens.io import load_collection, load_smart_collection, read_qrels, reader_warnings  # noqa: E402
from ranklens.io.irds import irds_qrels, irds_queries, load_irds  # noqa: E402

# .I ids are not positions (001, 004, 009), as in the real cran.qry
CRAN_ALL = (".I 1\n.T\nflow over wings\n.A\nsmith\n.B\nj. ae. 1\n.W\nflow over wings\nmeasured in a tunnel .\n"
            ".I 2\n.T\nheat transfer\n.A\njones\n.B\nj. ae. 2\n.W\nheat transfer in boundary layers .\n"
            ".I 3\n.T\nshock waves\n.A\nbrown\n.B\nj. ae. 3\n.W\nshock waves at high mach numbers .\n")
CRAN_QRY = (".I 001\n.W\nwhat is known about flow over wings ?\n"
            ".I 004\n.W\nheat transfer in layers .\n"
            ".I 009\n.W\nshock waves .\n")
CRANQREL = "1 1 1\n1 3 -1\n2 2 2\n2 1 4\n3 3 3\n3 2 -1"  # no trailing newline, as the real file


def _register(ds) -> str:
    name = f"ranklens-test/cran-{uuid.uuid4().hex[:8]}"
    ir_datasets.registry.register(name, ds)
    return name


@pytest.fixture
def cran_dir(tmp_path):
    d = tmp_path / "cranfield"
    d.mkdir()
    (d / "cran.all.1400").write_text(CRAN_ALL)
    (d / "cran.qry").write_text(CRAN_QRY)
    (d / "cranqrel").write_text(CRANQREL)
    return d


@pytest.fixture
def local_cranfield(cran_dir, tmp_path, monkeypatch):
    """The tiny files through ir_datasets' Cranfield classes (what ``irds:cranfield`` runs)."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds_home"))
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.datasets.cranfield import CranfieldDocs, CranfieldQrels, CranfieldQueries
    from ir_datasets.util import LocalDownload

    return _register(Dataset(CranfieldDocs(LocalDownload(cran_dir / "cran.all.1400")),
                             CranfieldQueries(LocalDownload(cran_dir / "cran.qry")),
                             CranfieldQrels(LocalDownload(cran_dir / "cranqrel"))))


def reference_qrels() -> list[tuple[str, str, int]]:
    """cranqrel read by hand: query = position, gain = 5 - code, -1 -> 0."""
    out = []
    for line in CRANQREL.splitlines():
        q, d, code = line.split()
        out.append((q, d, 0 if int(code) == -1 else 5 - int(code)))
    return out


def _rows(qrels) -> list[tuple[str, str, int]]:
    return list(zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"].astype(int)))


def test_irds_cranfield_equals_the_raw_files(local_cranfield, cran_dir):
    with pytest.warns(RanklensWarning, match="5 - code"):
        c = load_collection(f"irds:{local_cranfield}")
    raw = load_smart_collection(cran_dir)
    assert _rows(c.qrels) == reference_qrels() == _rows(raw.qrels)
    assert c.queries["query_id"].tolist() == raw.queries["query_id"].tolist() == ["1", "2", "3"]
    assert c.queries["text"].tolist() == raw.queries["text"].tolist()
    assert c.meta["conventions"] == "classic" and c.meta["classic"] == "cranfield"
    assert any("5 - code" in w for w in reader_warnings(c.qrels))
    assert any("5 - code" in w for w in c.meta["warnings"])
    with pytest.warns(RanklensWarning):
        assert _rows(read_qrels(f"irds:{local_cranfield}")) == reference_qrels()


def test_the_mapping_reaches_every_result_of_the_one_door(local_cranfield):
    from ranklens.drive import run_analysis

    with pytest.warns(RanklensWarning):
        c = load_collection(f"irds:{local_cranfield}")
    results = run_analysis("asl", c, {"bm25": {"spec": "bm25"}}, {"k": 3, "n_resamples": 50})
    assert results and all(any("5 - code" in w for w in r.warnings) for r in results)


def test_irds_conventions_keep_ir_datasets_values_with_a_warning(local_cranfield):
    with pytest.warns(RanklensWarning, match="inverted"):
        q = irds_qrels(local_cranfield, conventions="irds")
    assert _rows(q) == [(a, b, int(c)) for a, b, c in (ln.split() for ln in CRANQREL.splitlines())]
    with pytest.raises(ValidationError, match="conventions"):
        irds_qrels(local_cranfield, conventions="trec")


def test_dot_i_query_ids_are_renumbered_by_position(cran_dir, tmp_path, monkeypatch):
    """ir_datasets before 0.5 numbered Cranfield queries by .I; classic conventions renumber them."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds_home"))
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.datasets.cranfield import CranfieldDocs, CranfieldQrels
    from ir_datasets.formats import BaseQueries, GenericQuery
    from ir_datasets.util import LocalDownload

    class DotIQueries(BaseQueries):
        def queries_iter(self):
            for qid, text in (("1", "what is known about flow over wings ?"), ("4", "heat transfer in layers ."),
                              ("9", "shock waves .")):
                yield GenericQuery(qid, text)

        def queries_cls(self):
            return GenericQuery

    name = _register(Dataset(CranfieldDocs(LocalDownload(cran_dir / "cran.all.1400")), DotIQueries(),
                             CranfieldQrels(LocalDownload(cran_dir / "cranqrel"))))
    with pytest.warns(RanklensWarning, match="renumbered"):
        q = irds_queries(name)
    assert q["query_id"].tolist() == ["1", "2", "3"] and q["original_id"].tolist() == ["1", "4", "9"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert irds_queries(name, conventions="irds")["query_id"].tolist() == ["1", "4", "9"]


def test_other_datasets_are_not_touched(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds_home"))
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    (tmp_path / "docs.tsv").write_text("d1\tcats\n")
    (tmp_path / "queries.tsv").write_text("7\tcats\n")
    (tmp_path / "qrels.txt").write_text("7 0 d1 3\n")
    name = _register(Dataset(TsvDocs(LocalDownload(tmp_path / "docs.tsv")),
                             TsvQueries(LocalDownload(tmp_path / "queries.tsv")),
                             TrecQrels(LocalDownload(tmp_path / "qrels.txt"), {})))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = load_irds(name)
    assert _rows(c.qrels) == [("7", "d1", 3)] and c.meta["classic"] is None and c.meta["warnings"] == []


@pytest.mark.realdata
def test_irds_cranfield_over_the_shared_files_equals_both_ranklens_readers(shared_data, tmp_path, monkeypatch):
    """The full collection: ir_datasets' loader over the shared raw files vs raw and derived readers."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds_home"))
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.datasets.cranfield import CranfieldDocs, CranfieldQrels, CranfieldQueries
    from ir_datasets.util import LocalDownload

    raw_dir = shared_data / "cranfield" / "raw"
    name = _register(Dataset(CranfieldDocs(LocalDownload(raw_dir / "cran.all.1400")),
                             CranfieldQueries(LocalDownload(raw_dir / "cran.qry")),
                             CranfieldQrels(LocalDownload(raw_dir / "cranqrel"))))
    with pytest.warns(RanklensWarning):
        c = load_irds(name)
    for source in ("raw", "derived"):
        other = load_smart_collection(shared_data / "cranfield", source=source)
        assert _rows(c.qrels) == _rows(other.qrels)
        assert c.queries["query_id"].tolist() == other.queries["query_id"].tolist()
    assert len(c.queries) == 225 and len(c.qrels) == 1837


@pytest.mark.realdata
def test_irds_vaswani_over_the_shared_npl_files_equals_the_raw_reader(shared_data, tmp_path, monkeypatch):
    """NPL / Vaswani: ir_datasets and the raw files already agree (ids, binary relevance), unchanged."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds_home"))
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.datasets.vaswani import VaswaniDocs, VaswaniQrels, VaswaniQueries
    from ir_datasets.util import LocalDownload

    raw_dir = shared_data / "npl" / "raw"
    name = _register(Dataset(VaswaniDocs(LocalDownload(raw_dir / "doc-text")),
                             VaswaniQueries(LocalDownload(raw_dir / "query-text")),
                             VaswaniQrels(LocalDownload(raw_dir / "rlv-ass"))))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RanklensWarning)
        c = load_irds(name)
    raw = load_smart_collection(shared_data / "npl")
    assert sorted(_rows(c.qrels)) == sorted(_rows(raw.qrels))
    assert c.queries["query_id"].tolist() == raw.queries["query_id"].tolist()
    assert c.meta["warnings"] == []
