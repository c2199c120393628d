"""TREC run / qrels readers and writers: formats, errors (file + line), round trips."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import DataFormatError
from ranklens.io import read_qrels, read_run, read_runs, write_qrels, write_run

RUN = "q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.25 sys\nq2 Q0 d1 1 -3e-2 sys\n"


def _write(path: Path, text: str | bytes) -> Path:
    data = text.encode() if isinstance(text, str) else text
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def _expected_run() -> pd.DataFrame:
    return pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "score": [2.5, 1.25, -0.03]})


@pytest.mark.parametrize(
    "text",
    [
        RUN,
        RUN.replace(" ", "\t"),  # tabs
        RUN.replace("Q0", "0"),  # 0 instead of Q0
        RUN.replace(" Q0 ", "  Q0\t "),  # mixed, repeated whitespace
        RUN.replace("\n", "\r\n"),  # CRLF
        "\n" + RUN + "\n\n",  # blank lines
    ],
    ids=["spaces", "tabs", "zero", "mixed", "crlf", "blank-lines"],
)
def test_read_run_variants(tmp_path, text):
    df = read_run(_write(tmp_path / "r.run", text))
    pd.testing.assert_frame_equal(df[["query_id", "doc_id", "score"]].astype(object),
                                  _expected_run().astype(object))
    assert df["score"].dtype == np.float64
    assert pd.api.types.is_string_dtype(df["query_id"].dtype)
    assert df.attrs["name"] == "r"


def test_read_run_gz_and_ids_stay_strings(tmp_path):
    text = "001 Q0 0042 1 1 t\n1 Q0 42 2 0.5 t\n"
    df = read_run(_write(tmp_path / "x.run.gz", text))
    assert list(df["query_id"]) == ["001", "1"]
    assert list(df["doc_id"]) == ["0042", "42"]
    assert df.attrs["name"] == "x"


def test_read_run_accepts_frame_with_aliases():
    frame = pd.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "score": ["1.5", 2]})
    df = read_run(frame)
    assert list(df["query_id"]) == ["1", "1"]
    assert list(df["score"]) == [1.5, 2.0]
    assert "qid" in frame.columns  # input not mutated


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.0\n", 2, "expected 6"),
        ("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.0 sys extra\n", 2, "found 7"),
        ("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 high sys\n", 2, "'high'"),
        ("q1 Q0 d1 1 nan sys\n", 1, "NaN"),
        ("q1 Q0 d1 1 1 s\nq2 Q0 d1 1 1 s\nq1 Q0 d1 2 0.5 s\n", 3, "also on line 1"),
    ],
    ids=["too-few", "too-many", "non-numeric", "nan", "duplicate"],
)
def test_read_run_errors_name_file_and_line(tmp_path, text, line, words):
    path = _write(tmp_path / "bad.run", text)
    with pytest.raises(DataFormatError) as info:
        read_run(path)
    assert info.value.line == line
    assert str(path) in str(info.value)
    assert f"bad.run:{line}:" in str(info.value)
    assert words in str(info.value)


def test_read_run_errors_in_gz(tmp_path):
    path = _write(tmp_path / "bad.run.gz", "q1 Q0 d1 1 1 s\nq1 Q0 d2 2 x s\n")
    with pytest.raises(DataFormatError, match=r"bad\.run\.gz:2: score 'x'"):
        read_run(path)


@pytest.mark.parametrize("text", ["", "\n\n  \n"], ids=["empty", "blank"])
def test_empty_file(tmp_path, text):
    with pytest.raises(DataFormatError, match="empty file"):
        read_run(_write(tmp_path / "e.run", text))
    with pytest.raises(DataFormatError, match="empty file"):
        read_qrels(_write(tmp_path / "e.qrels", text))


def test_bad_encoding_names_line_and_byte(tmp_path):
    data = "q1 Q0 d1 1 1 s\n".encode() + "q1 Q0 caf\u00e9 2 0.5 s\n".encode("latin-1")
    path = _write(tmp_path / "enc.run", data)
    with pytest.raises(DataFormatError) as info:
        read_run(path)
    assert info.value.line == 2
    assert "b'\\xe9'" in str(info.value) and "column 10" in str(info.value)
    assert "encoding='latin-1'" in str(info.value)
    df = read_run(path, encoding="latin-1")
    assert df["doc_id"].iloc[1] == "caf\u00e9"


def test_utf8_bom_is_not_part_of_the_first_id(tmp_path):
    df = read_run(_write(tmp_path / "bom.run", b"\xef\xbb\xbf" + RUN.encode()))
    assert df["query_id"].iloc[0] == "q1"


def test_unknown_encoding(tmp_path):
    with pytest.raises(DataFormatError, match="unknown encoding"):
        read_run(_write(tmp_path / "r.run", RUN), encoding="no-such-codec")


def test_missing_file(tmp_path):
    with pytest.raises(DataFormatError, match="not found"):
        read_run(tmp_path / "nope.run")


def test_read_qrels(tmp_path):
    text = "1 0 d1 2\n1 0 d2 -1\n2\t0\td1\t0\n10 Q0 d9 1.0\n"
    q = read_qrels(_write(tmp_path / "q.txt.gz", text))
    assert list(q["query_id"]) == ["1", "1", "2", "10"]
    assert list(q["relevance"]) == [2, -1, 0, 1]
    assert q["relevance"].dtype == np.int64


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("1 0 d1 2\n1 0 d2\n", 2, "expected 4"),
        ("1 0 d1 2\n1 0 d2 yes\n", 2, "'yes'"),
        ("1 0 d1 2\n1 0 d2 0.5\n", 2, "not an integer"),
        ("1 0 d1 2\n2 0 d1 1\n1 0 d1 0\n", 3, "grade 2 on line 1 and grade 0"),
    ],
    ids=["columns", "non-numeric", "fraction", "duplicate"],
)
def test_read_qrels_errors(tmp_path, text, line, words):
    path = _write(tmp_path / "bad.qrels", text)
    with pytest.raises(DataFormatError) as info:
        read_qrels(path)
    assert info.value.line == line and str(path) in str(info.value) and words in str(info.value)


def test_write_read_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    run = pd.DataFrame({
        "query_id": np.repeat(["q1", "q2", "q10"], 4),
        "doc_id": [f"d{i}" for i in range(12)],
        "score": rng.normal(size=12) * 10.0 ** rng.integers(-12, 12, size=12),
    })
    path = write_run(run, tmp_path / "out" / "r.run.gz", tag="mysys")
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    assert all(len(line.split(" ")) == 6 and line.split(" ")[5] == "mysys" for line in lines)
    back = read_run(path)
    merged = run.merge(back, on=["query_id", "doc_id"], suffixes=("", "_b"))
    assert len(merged) == 12 and (merged["score"] == merged["score_b"]).all()  # exact float64
    # written in rank order: within each query the rank column counts 1..4 with falling scores
    ranks = [int(line.split()[3]) for line in lines]
    assert ranks == [1, 2, 3, 4] * 3

    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "relevance": [3, -1]})
    qpath = write_qrels(qrels, tmp_path / "q.trec")
    assert qpath.read_text() == "1 0 a 3\n2 0 b -1\n"
    pd.testing.assert_frame_equal(read_qrels(qpath).astype(object), qrels.astype(object))


def test_read_runs_dir_and_paths(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _write(tmp_path / "a" / "sys1.run.gz", RUN)
    _write(tmp_path / "b" / "sys1.run.gz", RUN)
    (tmp_path / "SOURCE.md").write_text("# not a run")
    (tmp_path / ".hidden").write_text("garbage")
    runs = read_runs(tmp_path)
    assert sorted(runs) == ["a/sys1", "b/sys1"]
    assert all(len(r) == 3 for r in runs.values())
    runs2 = read_runs([tmp_path / "a" / "sys1.run.gz"])
    assert list(runs2) == ["sys1"]


PATH_CASES = [RUN, RUN.replace(" ", "\t"), RUN.replace(" ", "  "), "# c\n" + RUN, RUN.replace("\n", "\r\n"),
              "q1 Q0 d1 1 1 s\nq1 Q0 d2 2 x s\n", "q1 Q0 d1 1 1 s\nq1 Q0 d1 2 0.5 s\n",
              "q1 Q0 d1 1 1 s\nq1 Q0 d2 2\n", "q1 Q0 d1 1 nan s\n", "q1 Q0 d1 1 -inf s\n", "q1 Q0 d1 1 NA s\n"]


@pytest.mark.parametrize("text", PATH_CASES)
def test_fast_normalised_and_line_paths_agree(tmp_path, monkeypatch, text):
    """The reader's three paths (pyarrow from disk, pyarrow on normalised bytes, the Python
    line walker) give the same frame or the same located error."""
    import ranklens.io._columns as cols

    path = _write(tmp_path / "r.run", text)

    def outcome():
        try:
            return read_run(path).values.tolist()
        except DataFormatError as exc:
            return str(exc)

    fast = outcome()
    monkeypatch.setattr(cols, "_fast", lambda p, layout: None)
    assert outcome() == fast
    monkeypatch.setattr(cols, "_arrow", lambda source, layout, sep: None)
    assert outcome() == fast
