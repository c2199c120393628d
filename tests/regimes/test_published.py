"""The authors' published split files (jingtaozhan/extrapolate-eval) read into Splits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ranklens.errors import DataFormatError, ValidationError
from ranklens.regimes import EXTRAPOLATION, INTERPOLATION, Split
from ranklens.regimes.splits import read_published_split, read_published_splits


def _write(path: Path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{q}\t0\t{d}\t{r}\n" for q, d, r in rows))


def _ref_ids(path: Path) -> tuple[str, ...]:
    """Plain-Python reference: query ids of a qrels file in first-seen order."""
    out: list[str] = []
    for line in path.read_text().splitlines():
        q = line.split()[0]
        if q not in out:
            out.append(q)
    return tuple(out)


@pytest.fixture
def layout(tmp_path):
    r = tmp_path / "restrain_files" / "msmarco-passage" / "14k"
    _write(r / "interpolate.train-qrel.txt", [("5", "d1", 1), ("3", "d2", 1), ("5", "d9", 1)])
    _write(r / "extrapolate.train-qrel.txt", [("7", "d4", 1), ("8", "d5", 1)])
    for n, (tr, ie, ex) in enumerate([(["1", "2"], ["a"], ["b", "c"]), (["3"], ["b", "c"], ["a"])], start=1):
        b = tmp_path / "resttest_files" / "msmarco-passage" / f"bucket-{n}"
        _write(b / "train-qrel.txt", [(q, "d", 1) for q in tr])
        for ts in ("dev", "trec19"):
            _write(b / f"interpolate.{ts}-qrel.txt", [(q, "d", 0) for q in ie])
            _write(b / f"extrapolate.{ts}-qrel.txt", [(q + ts, "d", 2) for q in ex])
    return tmp_path


def test_restrain_files_vs_reference(layout):
    d = layout / "restrain_files" / "msmarco-passage" / "14k"
    s = Split.load(d, test_ids=["t1", "t2", "t1"])
    assert s.method == "restrain" and s.name == "restrain-14k"
    assert s.train_ids(INTERPOLATION) == _ref_ids(d / "interpolate.train-qrel.txt") == ("5", "3")
    assert s.train_ids(EXTRAPOLATION) == _ref_ids(d / "extrapolate.train-qrel.txt")
    assert s.test_ids(INTERPOLATION) == s.test_ids(EXTRAPOLATION) == ("t1", "t2")
    with pytest.raises(ValidationError, match="test_ids"):
        Split.load(d)


def test_resttest_buckets_vs_reference(layout):
    root = layout / "resttest_files"
    splits = read_published_splits(root, test_set="trec19")
    assert [s.fold for s in splits] == [0, 1]
    for s in splits:
        b = root / "msmarco-passage" / f"bucket-{s.fold + 1}"
        assert s.train_ids(INTERPOLATION) == s.train_ids(EXTRAPOLATION) == _ref_ids(b / "train-qrel.txt")
        assert s.test_ids(INTERPOLATION) == _ref_ids(b / "interpolate.trec19-qrel.txt")
        assert s.test_ids(EXTRAPOLATION) == _ref_ids(b / "extrapolate.trec19-qrel.txt")
    # folds of one configuration form one setting in the regime table
    from ranklens.regimes import setting_name

    assert {setting_name(s) for s in splits} == {"resttest-trec19"}
    with pytest.raises(ValidationError, match="test_set"):
        read_published_split(root / "msmarco-passage" / "bucket-1", test_set="trec21")


def test_missing_train_file_named(layout):
    b = layout / "resttest_files" / "msmarco-passage" / "bucket-1"
    (b / "train-qrel.txt").unlink()
    with pytest.raises(DataFormatError, match="train-qrel.txt"):
        Split.load(b)


def test_not_a_split_dir(tmp_path):
    with pytest.raises(DataFormatError, match="not a split directory"):
        Split.load(tmp_path)


_MIRROR = Path(os.environ.get("RANKLENS_EXTRAPOLATE_EVAL", "/work/.mirror/jingtaozhan+extrapolate-eval/files"))


@pytest.mark.realdata
def test_published_restrain_sizes(shared_data):
    """Checked out files of jingtaozhan/extrapolate-eval (RANKLENS_EXTRAPOLATE_EVAL): the three
    ReSTrain sizes are disjoint interpolation / extrapolation sets near 14k, 45k and 200k."""
    root = _MIRROR / "restrain_files"
    if not root.is_dir():
        pytest.skip(f"extrapolate-eval files not found at {root}")
    from ranklens.regimes.data import load_dl_vs_dev

    d = load_dl_vs_dev(shared_data / "trec_dl_msmarco_passage")
    tid = [*d["dl19_queries"]["query_id"], *d["dl20_queries"]["query_id"]]
    splits = {s.name: s for s in read_published_splits(root, test_ids=tid)}
    assert set(splits) == {"restrain-14k", "restrain-45k", "restrain-200k"}
    for name, nominal in (("restrain-14k", 14_000), ("restrain-45k", 45_000), ("restrain-200k", 200_000)):
        s = splits[name]
        i, e = set(s.train_ids(INTERPOLATION)), set(s.train_ids(EXTRAPOLATION))
        assert not i & e
        assert 0.9 * nominal < len(i) <= nominal and 0.9 * nominal < len(e) <= 1.01 * nominal
        assert len(s.test_ids(INTERPOLATION)) == 97


def test_splits_named_by_the_data_registry(layout, tmp_path, monkeypatch):
    """``--splits restrain-splits`` reads the registry's copy (``$RANKLENS_DATA/restrain_splits``),
    the same splits as the folder itself; without a copy, the error names the resource and the fix."""
    from ranklens.datareg import MissingDataError
    from ranklens.regimes.tools import _load_splits

    root = tmp_path / "data"
    (root / "restrain_splits").mkdir(parents=True)
    os.symlink(layout / "restrain_files", root / "restrain_splits" / "restrain_files")
    monkeypatch.setenv("RANKLENS_DATA", str(root))
    monkeypatch.chdir(tmp_path)  # no folder named restrain-splits here
    got = _load_splits("restrain-splits", test_ids=["t1", "t2"])
    want = _load_splits(str(layout / "restrain_files"), test_ids=["t1", "t2"])
    assert [s.name for s in got] == [s.name for s in want] == ["restrain-14k"]
    assert got[0].regimes == want[0].regimes
    assert got[0].train_ids(INTERPOLATION) == _ref_ids(layout / "restrain_files/msmarco-passage/14k/interpolate.train-qrel.txt")
    monkeypatch.setenv("RANKLENS_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("RANKLENS_DATA_CACHE", str(tmp_path / "cache"))
    with pytest.raises(MissingDataError, match="restrain-splits.*ranklens data add PATH"):
        _load_splits("restrain-splits", test_ids=["t1"])
