"""TREC run / qrels readers and writers: formats, errors (file + line), round trips."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import DataFormatError, ValidationError
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
    monkeypatch.setattr(cols, "_fast", lambda p, layout: (None, False))
    assert outcome() == fast
    monkeypatch.setattr(cols, "_arrow", lambda source, layout, sep: None)
    assert outcome() == fast


# ----------------------------------------------------------------- coverage and depth warnings
def _brute_coverage(run_rows, qrels_rows, rel):
    """Plain-Python reference: (run-only queries, qrels-only queries, judged without rel)."""
    rq = {q for q, _, _ in run_rows}
    qq = {q for q, _, _ in qrels_rows}
    with_rel = {q for q, _, g in qrels_rows if g >= rel}
    return rq - qq, qq - rq, qq - with_rel


@pytest.mark.parametrize("rel", [1, 2])
def test_check_coverage_against_brute_force(rel):
    from ranklens.io import check_coverage

    run_rows = [("1", "a", 1.0), ("2", "b", 1.0), ("5", "c", 0.5), ("6", "c", 0.5)]
    qrels_rows = [("1", "a", 2), ("2", "b", 1), ("3", "x", 0), ("4", "y", 1), ("5", "c", 0)]
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    only_run, only_qrels, no_rel = _brute_coverage(run_rows, qrels_rows, rel)
    warnings = check_coverage(run, qrels, rel=rel)
    text = "\n".join(warnings)
    assert f"{len(only_run)} of 4 run queries have no qrels" in text
    assert f"{len(only_qrels)} of 5 judged queries are not in the run" in text
    assert f"{len(no_rel)} judged queries have no document with relevance >= {rel}" in text
    for ids in (only_run, only_qrels, no_rel):  # up to three examples each, sorted
        for q in sorted(ids)[:3]:
            assert repr(q) in text


def test_check_coverage_refuses_disjoint_files_and_names_all_zero_qrels():
    from ranklens.errors import ValidationError
    from ranklens.io import check_coverage

    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(ValidationError, match="none of the 1 queries of run is in qrels"):
        check_coverage(run, pd.DataFrame({"query_id": ["301"], "doc_id": ["a"], "relevance": [1]}))
    zero = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [0]})
    assert any("all-zero qrels" in w for w in check_coverage(run, zero))


def test_depth_warnings_against_brute_force():
    from ranklens.io import depth_warnings

    a = pd.DataFrame({"query_id": ["1"] * 3 + ["2"] * 2, "doc_id": list("abcde"), "score": [1.0] * 5})
    b = a.iloc[[0, 3]].reset_index(drop=True)
    depth = {n: max(r["query_id"].value_counts()) for n, r in (("a", a), ("b", b))}
    assert depth == {"a": 3, "b": 1}
    (w,) = depth_warnings({"a": a, "b": b})
    assert "a 3" in w and "b 1" in w and "past rank 1" in w
    assert depth_warnings({"a": a, "a2": a.copy()}) == ()


def test_qrels_identical_duplicates_kept_once_with_a_warning(tmp_path):
    from ranklens.io import read_qrels_table, reader_warnings

    text = "1 0 d1 2\n1 0 d2 0\n1 0 d1 2\n2 0 d3 1\n1 0 d2 0\n"
    path = _write(tmp_path / "q.txt", text)
    expected = []  # reference: first occurrence of each pair, in file order
    for line in text.splitlines():
        q, _, d, r = line.split()
        if (q, d) not in [(e[0], e[1]) for e in expected]:
            expected.append((q, d, int(r)))
    table = read_qrels_table(path)
    for out, warned in ((read_qrels(path), None), (table.to_pandas(), reader_warnings(table))):
        assert [tuple(x) for x in out.values.tolist()] == expected
        warned = warned if warned is not None else reader_warnings(out)
        assert len(warned) == 1 and "2 duplicate qrels line(s)" in warned[0]


@pytest.mark.realdata
def test_dl19_run_with_one_nan_score_is_refused_with_its_line(shared_data, tmp_path):
    from ranklens.io import read_run_table

    src = shared_data / "trec_dl_runs" / "official" / "dl19" / "ICT-BERT2.top100.run.gz"
    lines = gzip.decompress(src.read_bytes()).decode().splitlines()
    i = next(n for n, line in enumerate(lines) if line.split()[0] == "19335")
    good = read_run_table(src).to_pandas()
    for bad in ("nan", "NA", "null", "inf"):
        parts = lines[i].split()
        parts[4] = bad
        path = _write(tmp_path / "bad.run.gz", "\n".join(lines[:i] + [" ".join(parts)] + lines[i + 1:]) + "\n")
        with pytest.raises(DataFormatError, match=rf"bad\.run\.gz:{i + 1}: score '{bad}'"):
            read_run_table(path)
    # the three reading paths agree on the real file
    import ranklens.io._columns as cols

    plain = _write(tmp_path / "plain.run", "\n".join(lines) + "\n")
    fast = read_run_table(plain).to_pandas()
    assert fast.values.tolist() == good.values.tolist()
    text = plain.read_text()
    q, d, v, _ = cols.walk(text, plain, cols.RUN)
    assert list(zip(q, d, v)) == [tuple(x) for x in good.values.tolist()]


def test_qrels_duplicate_detection_against_brute_force_with_sketch_collisions(tmp_path):
    """Ids sharing length, first and last 8 bytes (the sketch) but not the middle must not be
    taken for duplicates; real repeats must be found wherever they are."""
    from ranklens.io import read_qrels_table

    rng = np.random.default_rng(5)
    docs = [f"clueweb12-{m:04d}-sametail" for m in range(300)]  # all collide in the sketch
    rows = [(str(q), d, 1) for q in range(3) for d in docs]
    repeats = [rows[i] for i in rng.choice(len(rows), 7, replace=False)]
    all_rows = rows + repeats
    order = rng.permutation(len(all_rows))
    lines = [all_rows[i] for i in order]
    path = _write(tmp_path / "q.txt", "".join(f"{q} 0 {d} {r}\n" for q, d, r in lines))
    seen, expected = set(), []
    for q, d, r in lines:  # reference: first occurrence kept, file order
        if (q, d) not in seen:
            seen.add((q, d))
            expected.append((q, d, r))
    table = read_qrels_table(path)
    assert [tuple(x) for x in table.to_pandas().values.tolist()] == expected


@pytest.mark.parametrize("sep", [b" ", b"\t"])
def test_clean_scan_matches_a_whole_file_check_at_every_block_edge(tmp_path: Path, sep: bytes) -> None:
    """The block-wise scan that sends a file to the fast parser agrees with a plain whole-file
    check, with blocks of a few bytes so every forbidden byte and every ``\\n#`` straddles an edge."""
    from ranklens.io._columns import _scan_clean

    other = b"\t" if sep == b" " else b" "

    def reference(data: bytes) -> bool:
        return not (data[:1] in (b"#", b"\xef", b"\xff", b"\xfe", b" ", b"\t") or other in data
                    or b"\r" in data or b"\x00" in data or b"\n#" in data)

    rng = np.random.default_rng(3)
    alphabet = [b"a", b"1", sep, b"\n", b"#", other, b"\r", b"\x00", b"\n#"]
    weights = np.array([30, 10, 8, 8, 2, 1, 1, 1, 1], float)
    seen = set()
    for case in range(400):
        picks = rng.choice(len(alphabet), size=int(rng.integers(1, 40)), p=weights / weights.sum())
        data = b"q" + b"".join(alphabet[i] for i in picks)
        path = tmp_path / f"f{case}"
        path.write_bytes(data)
        want = reference(data)
        seen.add(want)
        for chunk in (1, 2, 3, 5, 64):
            assert _scan_clean(path, sep, chunk=chunk) == want, (data, chunk)
    assert seen == {True, False}


def test_repeated_keys_equals_a_counter_even_when_top_bits_collide() -> None:
    """The bucket pre-filter of the qrels duplicate check drops only keys that occur once."""
    from collections import Counter

    from ranklens.io._columns import _repeated_keys

    rng = np.random.default_rng(11)
    for n, pool in ((2, 1), (50, 40), (5_000, 4_000), (40_000, 10**12)):
        keys = rng.integers(0, pool, n).astype(np.uint64)
        keys[: n // 3] |= np.uint64(0xFFF) << np.uint64(52)  # a third share their top 12 bits
        counts = Counter(keys.tolist())
        want = [i for i, k in enumerate(keys.tolist()) if counts[k] > 1]
        assert _repeated_keys(keys).tolist() == want


def test_sketch_equals_its_definition_at_buffer_edges() -> None:
    """The in-place sketch (words read at the buffer's edges and shifted) equals its plain
    definition: length mixed with the little-endian first and last 8 bytes (all of a short
    string), for empty, short and long ids, sliced arrays, several chunks and large strings."""
    import pyarrow as pa

    from ranklens.io._columns import _MIX1, _MIX2, _sketch

    def reference(s: str) -> int:
        b = s.encode()
        head = int.from_bytes(b[:8], "little")
        tail = int.from_bytes(b[-8:], "little") if b else 0
        return ((head * _MIX1) ^ (tail * _MIX2) ^ len(b)) % 2**64

    rng = np.random.default_rng(2)
    alphabet = list("ab#é7 _-")
    for case in range(300):
        n = int(rng.integers(1, 12))
        ids = ["".join(rng.choice(alphabet, int(rng.integers(0, 20)))) for _ in range(n)]
        arr = pa.array(ids)
        cut = int(rng.integers(0, n))
        variants = [arr, arr.slice(cut), pa.chunked_array([arr.slice(0, cut), arr.slice(cut)]),
                    arr.cast(pa.large_string()).slice(cut)]
        for v in variants:
            want = [reference(s) for s in v.to_pylist()]
            assert _sketch(v).tolist() == want, (case, v)


def test_exact_query_codes_match_a_dictionary_on_grouped_and_scattered_queries() -> None:
    """Codes from the heads of runs of equal neighbours are equal exactly where the ids are."""
    import pyarrow as pa

    from ranklens.io._columns import _exact_codes

    rng = np.random.default_rng(4)
    for case in range(200):
        n = int(rng.integers(1, 60))
        ids = [f"q{int(x)}" for x in rng.integers(0, int(rng.integers(1, 8)), n)]
        if case % 2:
            ids.sort()  # grouped, as most qrels files are
        cuts = sorted({0, n, *rng.integers(0, n, int(rng.integers(0, 5))).tolist()})
        col = pa.chunked_array([pa.array(ids[a:b], pa.string()) for a, b in zip(cuts, cuts[1:])], pa.string())
        codes = _exact_codes(col).tolist()
        assert len(codes) == n
        for i in range(n):
            for j in range(n):
                assert (codes[i] == codes[j]) == (ids[i] == ids[j])


def test_scan_beside_the_parse_gives_the_same_tables(tmp_path: Path, monkeypatch) -> None:
    """Big files scan for forbidden bytes while pyarrow parses; a file the scan rejects must
    still take the normalising path (comment line, tab, CRLF), as the sequential order does."""
    import ranklens.io._columns as cols
    from ranklens.io import read_qrels_table, read_run_table

    base = "".join(f"q{q} Q0 d{d} {d + 1} {10 - d}.5 t\n" for q in range(3) for d in range(4))
    files = {"clean": base, "comment": "# a b c d e\n" + base, "tab": base.replace(" t\n", "\tt\n", 1),
             "crlf": base.replace("\n", "\r\n")}
    for name, text in files.items():
        path = tmp_path / f"{name}.run"
        path.write_bytes(text.encode())
        monkeypatch.setattr(cols, "_OVERLAP_BYTES", 1 << 40)
        seq = read_run_table(path)
        monkeypatch.setattr(cols, "_OVERLAP_BYTES", 0)
        side = read_run_table(path)
        assert side.equals(seq) and side.num_rows == 12, name
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n#x 0 y 1\n")
    for limit in (1 << 40, 0):
        monkeypatch.setattr(cols, "_OVERLAP_BYTES", limit)
        assert read_qrels_table(qrels).column("doc_id").to_pylist() == ["d1", "d2"]


# The one run-naming rule (io.trec.run_name, used by read_run, read_runs, discover_runs, the asl
# functions and `ranklens evaluate`): file name -> run name. Before issue 29 the reader stripped
# ".gz" and one suffix (x.top100.run.gz -> x.top100) while `ranklens evaluate` stripped every
# known suffix (-> x); the rule is now the latter, for everyone.
RUN_NAMES = [
    ("bm25.run", "bm25"),
    ("bm25.run.gz", "bm25"),
    ("x.top100.run.gz", "x"),
    ("x.top100.run", "x"),
    ("p_bm25.judged_topics.txt", "p_bm25"),
    ("input.bm25.gz", "input.bm25"),
    ("input.bm25", "input.bm25"),
    ("bm25.run.txt", "bm25"),
    ("a.trec", "a"),
    ("a.res", "a"),
    ("a.out", "a"),
    ("a.tsv", "a"),
    ("a.b.c", "a.b.c"),
    (".run", ".run"),
    ("run", "run"),
]


@pytest.mark.parametrize("file_name,name", RUN_NAMES)
def test_one_run_naming_rule(tmp_path, file_name, name):
    from ranklens.io import discover_runs, run_name

    assert run_name(file_name) == name
    if not file_name.startswith("."):
        _write(tmp_path / file_name, RUN)
        assert list(discover_runs(tmp_path / file_name)) == [name]
        assert list(discover_runs(tmp_path)) == [name]
        assert read_run(tmp_path / file_name).attrs["name"] == name


def test_discover_runs_one_rule_for_directories_and_clashes(tmp_path):
    from ranklens.asl.evaluation import load_runs
    from ranklens.io import discover_runs

    for rel in ("official/dl20/p_bm25.top100.run.gz", "official/dl20/other.run", "full/dl20/p_bm25.run",
                "official/dl20/sub/deep.txt", "official/dl20/README.md", "official/dl20/.hidden.run"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        _write(tmp_path / rel, RUN)
    one = discover_runs(tmp_path / "official" / "dl20")
    assert list(one) == ["other", "p_bm25", "sub/deep"]  # recursive, sorted, README/hidden skipped
    two = discover_runs([tmp_path / "official" / "dl20", tmp_path / "full" / "dl20"])
    assert sorted(two) == ["full/dl20/p_bm25", "official/dl20/p_bm25", "other", "sub/deep"]
    assert {k: str(v) for k, v in load_runs([tmp_path / "official" / "dl20", tmp_path / "full" / "dl20"]).items()} \
        == {k: str(v) for k, v in two.items()}
    assert list(read_runs([tmp_path / "official" / "dl20", tmp_path / "full" / "dl20"])) == list(two)
    with pytest.raises(ValidationError, match="given twice"):
        discover_runs([tmp_path / "full" / "dl20" / "p_bm25.run", tmp_path / "full" / "dl20"])
    with pytest.raises(ValidationError, match="not found"):
        discover_runs(tmp_path / "nope.run")
