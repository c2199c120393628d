"""Catalogue, round two (issue 31, readers): streams and compression sniffed from the bytes, SMART
record boundaries, the one id rule and the one grade rule. Each case gives a located error (file,
line, fix) or a documented, warned acceptance -- through the Python readers and, where there is one,
the command line."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from ranklens.cli import main
from ranklens.errors import DataFormatError, RanklensError

from .test_malformed import CRAN_DOCS, CRAN_QRY, CRANQREL, _assert_located, _cli, _write


def _big_run(n_queries: int = 40, depth: int = 60) -> str:
    """A run well over 8 KiB (the block the old 2-byte sniff swallowed from a pipe)."""
    lines = [f"q{q} Q0 doc{q}_{r} {r + 1} {depth - r}.25 tag" for q in range(n_queries) for r in range(depth)]
    return "\n".join(lines) + "\n"


QRELS_TEXT = "".join(f"q{q} 0 doc{q}_{r} {1 if r % 7 == 0 else 0}\n" for q in range(40) for r in range(0, 60, 3))


def _rows(table) -> list:
    return table.to_pylist()


def _writer(target: str, path: Path) -> subprocess.Popen:
    """A separate process that copies ``path`` into ``target`` (a FIFO)."""
    code = "import shutil,sys; shutil.copyfileobj(open(sys.argv[1],'rb'), open(sys.argv[2],'wb'))"
    return subprocess.Popen([sys.executable, "-c", code, str(path), target])


# ------------------------------------------------------------------------------------ streams
def test_fifo_with_a_writer_reads_every_byte(tmp_path):
    from ranklens.io import read_run_table

    src = _write(tmp_path / "r.run", _big_run())
    assert src.stat().st_size > 8192 * 4
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = _writer(str(fifo), src)
    try:
        got = read_run_table(fifo)
    finally:
        proc.wait(timeout=30)
    assert _rows(got) == _rows(read_run_table(src))
    assert got.num_rows == 40 * 60


def test_anonymous_pipe_as_dev_fd_reads_every_byte(tmp_path):
    """``ranklens evaluate qrels <(zcat run.gz)``: the shell passes /dev/fd/N; nothing is swallowed."""
    from ranklens.io import read_run, read_run_table

    text = _big_run()
    src = _write(tmp_path / "r.run", text)
    r, w = os.pipe()

    def feed() -> None:
        with os.fdopen(w, "wb") as fh:
            fh.write(gzip.compress(text.encode()))  # compressed in the pipe: sniffed from the bytes

    t = threading.Thread(target=feed)
    t.start()
    try:
        got = read_run(f"/dev/fd/{r}")
    finally:
        t.join()
        os.close(r)
    assert got.values.tolist() == read_run(src).values.tolist()
    assert len(got) == 2400 and _rows(read_run_table(src))[0] == {"query_id": "q0", "doc_id": "doc0_0", "score": 60.25}


def test_stdin_dash_and_dev_stdin_through_the_cli(tmp_path):
    """``-`` and ``/dev/stdin`` give the numbers of the file itself (formerly: 8 KiB lost / "empty file")."""
    run = _write(tmp_path / "r.run", _big_run())
    qrels = _write(tmp_path / "q.txt", QRELS_TEXT)

    def cli(args: list[str], stdin: Path | None) -> str:
        with open(stdin or os.devnull, "rb") as fh:
            out = subprocess.run([sys.executable, "-m", "ranklens", *args], stdin=fh, capture_output=True,
                                 text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.splitlines()[-1].split("\t")[-1]

    want = cli(["evaluate", str(qrels), str(run), "-m", "AP"], None)
    assert cli(["evaluate", str(qrels), "/dev/stdin", "-m", "AP"], run) == want
    assert cli(["evaluate", "-", str(run), "-m", "AP"], qrels) == want
    assert float(want) > 0


def test_fifo_without_a_writer_times_out_with_a_located_error(tmp_path, monkeypatch, capsys):
    from ranklens.io import read_qrels_table

    fifo = tmp_path / "nobody.fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("RANKLENS_STREAM_TIMEOUT", "0.3")
    with pytest.raises(DataFormatError) as info:
        read_qrels_table(fifo)
    _assert_located(info.value, fifo, None, "nothing was written to it within 0.3 s")
    run = _write(tmp_path / "r.run", _big_run())
    _cli(["evaluate", str(fifo), str(run)], capsys, fifo, None, "RANKLENS_STREAM_TIMEOUT")


@pytest.mark.parametrize("fmt", ["gzip", "bzip2", "xz", "lz4"])
def test_every_compression_read_whatever_the_name(tmp_path, fmt):
    from ranklens.io import read_run_table

    text = _big_run(5, 20).encode()
    if fmt == "lz4":
        lz4_frame = pytest.importorskip("lz4.frame")
        packed = lz4_frame.compress(text)
    else:
        packed = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[fmt](text)
    plain = read_run_table(_write(tmp_path / "plain.run", text))
    assert _rows(read_run_table(_write(tmp_path / "no_suffix.run", packed))) == _rows(plain)
    truncated = _write(tmp_path / "cut.run", packed[: len(packed) // 2])
    with pytest.raises(DataFormatError) as info:
        read_run_table(truncated)
    _assert_located(info.value, truncated, None, f"corrupt or truncated {fmt}")


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".zst", ".lz4", ".xz"])
def test_plain_text_named_like_a_compressed_file_is_read_as_text(tmp_path, capsys, suffix):
    from ranklens.io import read_qrels_table, read_run_table

    text = _big_run(3, 10)
    named = _write(tmp_path / f"r.run{suffix}", text)
    assert _rows(read_run_table(named)) == _rows(read_run_table(_write(tmp_path / "r.run", text)))
    q = _write(tmp_path / f"q{suffix}", QRELS_TEXT)
    assert read_qrels_table(q).num_rows == QRELS_TEXT.count("\n")
    assert main(["evaluate", str(q), str(named), "-m", "P@5"]) == 0
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(("case", "content", "words"), [
    ("zstd", b"\x28\xb5\x2f\xfd" + b"\x00" * 20, "zstd-compressed"),
    ("zip", b"PK\x03\x04" + b"\x00" * 20, "zip archive"),
])
def test_formats_that_are_not_read_are_refused(tmp_path, capsys, case, content, words):
    from ranklens.io import read_run

    path = _write(tmp_path / "r.run", content)
    with pytest.raises(DataFormatError) as info:
        read_run(path)
    _assert_located(info.value, path, None, words)
    qrels = _write(tmp_path / "q.txt", QRELS_TEXT)
    _cli(["evaluate", str(qrels), str(path)], capsys, path, None, words)


def test_bad_last_line_of_a_big_file_is_named(tmp_path):
    """The error path walks the file line by line (nothing kept): the right line, the same message as
    the small-file walk."""
    from ranklens.io import read_run_table

    text = _big_run(50, 100)
    path = _write(tmp_path / "r.run", text + "q9 Q0 dX 1 nan tag\n")
    with pytest.raises(DataFormatError) as info:
        read_run_table(path)
    _assert_located(info.value, path, 5001, "not a finite number")
    path = _write(tmp_path / "r2.run", text + "q9 Q0 dX 1\n")
    with pytest.raises(DataFormatError) as info:
        read_run_table(path)
    _assert_located(info.value, path, 5001, "found 4")


# ------------------------------------------------------------------------------------ grades and ids
GRADE_CASES = [
    ("qrels-hex-grade", "1 0 d1 0x10\n", ("error", 1, "not an integer grade")),
    ("qrels-exponent-grade", "1 0 d1 1e1\n", ("error", 1, "not an integer grade")),
    ("qrels-underscore-grade", "1 0 d1 1_0\n", ("error", 1, "not an integer grade")),
    ("qrels-plus-grade", "1 0 d1 +2\n1 0 d2 -1\n", ("ok", [2, -1])),
    ("qrels-point-zero", "1 0 d1 2.00\n", ("ok", [2])),
    ("qrels-plain-digits", "1 0 d1 0\n1 0 d2 12\n", ("ok", [0, 12])),  # the cast without the regex passes
    ("qrels-huge-digits", "1 0 d1 0\n1 0 d2 99999999999999999999\n", ("error", 2, "out of range")),
    ("qrels-non-ascii-digit", "1 0 d1 \u0663\n", ("error", 1, "not an integer grade")),
]


@pytest.mark.parametrize(("case", "content", "expect"), GRADE_CASES, ids=[c[0] for c in GRADE_CASES])
def test_one_grade_rule(tmp_path, capsys, case, content, expect):
    from ranklens.io import read_qrels, read_qrels_table

    path = _write(tmp_path / f"{case}.qrels", content)
    if expect[0] == "error":
        for read in (read_qrels, read_qrels_table):
            with pytest.raises(RanklensError) as info:
                read(path)
            _assert_located(info.value, path, expect[1], expect[2])
        run = _write(tmp_path / "r.run", "1 Q0 d1 1 2.0 s\n")
        _cli(["evaluate", str(path), str(run)], capsys, path, expect[1], expect[2])
    else:
        assert read_qrels_table(path).column("relevance").to_pylist() == expect[1]
        assert read_qrels(path)["relevance"].tolist() == expect[1]


ID_CASES = [
    ("docs-list-id", '{"doc_id": ["zz1"], "text": "a"}\n', 1, "JSON list"),
    ("docs-dict-id", '{"doc_id": {"a": 1}, "text": "a"}\n', 1, "JSON dict"),
    ("docs-blank-id", '{"doc_id": " ", "text": "a"}\n', 1, "whitespace"),
    ("docs-space-id", '{"doc_id": "d0", "text": "x"}\n{"doc_id": "zz 1", "text": "a"}\n', 2, "whitespace"),
    ("docs-trailing-space-id", '{"doc_id": "ast01 ", "text": "a"}\n', 1, "whitespace"),
]


@pytest.mark.parametrize(("case", "content", "line", "words"), ID_CASES, ids=[c[0] for c in ID_CASES])
def test_one_id_rule_jsonl(tmp_path, capsys, case, content, line, words):
    from ranklens.io import load_collection, read_docs

    d = tmp_path / "coll"
    _write(d / "queries.tsv", "1\talpha\n")
    bad = _write(d / "docs.jsonl", content)
    for read in (read_docs, lambda p: read_docs(p, stream=True)):
        with pytest.raises(RanklensError) as info:
            read(bad)
        _assert_located(info.value, bad, line, words)
    with pytest.raises(RanklensError) as info:
        load_collection(d)
    _assert_located(info.value, bad, line, words)
    _cli(["asl", "--collection", str(d), "--out", str(tmp_path / "out")], capsys, bad, line, words)


def test_one_id_rule_tsv_and_topics(tmp_path):
    from ranklens.io import read_queries

    for content, line in (("1\talpha\nzz 1\tbeta\n", 2), ("query_id\ttext\nast01 \tbeta\n", 2)):
        bad = _write(tmp_path / "queries.tsv", content)
        with pytest.raises(DataFormatError) as info:
            read_queries(bad)
        _assert_located(info.value, bad, line, "whitespace")
    topics = _write(tmp_path / "topics.txt", "<top>\n<num> 1\n<title> a\n</top>\n\n<top>\n<num> 2\n<title> b\n")
    with pytest.raises(DataFormatError) as info:
        read_queries(topics)
    _assert_located(info.value, topics, 6, "without </top>")


def test_invisible_and_non_nfc_ids_are_warned(tmp_path):
    from ranklens.io import read_docs, read_run, reader_warnings

    docs = _write(tmp_path / "docs.jsonl", '{"doc_id": "d\\u200b1", "text": "a"}\n{"doc_id": "e\\u0301", "text": "b"}\n'
                  '{"doc_id": "d2", "text": "c"}\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        store = read_docs(docs)
    assert list(store) == ["d\u200b1", "e\u0301", "d2"]  # accepted as written
    assert len(store.warnings) == 1 and "2 doc_id(s)" in store.warnings[0] and "U+200B" in store.warnings[0]
    assert any("U+200B" in str(w.message) for w in caught)
    run = _write(tmp_path / "r.run", "1 Q0 d\u200b1 1 2.0 s\n1 Q0 d2 2 1.0 s\n")
    got = reader_warnings(read_run(run))
    assert len(got) == 1 and "1 doc_id(s)" in got[0] and str(run) in got[0]
    assert reader_warnings(read_run(_write(tmp_path / "ok.run", "1 Q0 caf\u00e9 1 2.0 s\n"))) == ()


def test_jsonl_with_unicode_line_separators_and_tsv_with_form_feed(tmp_path):
    from ranklens.io import read_docs, read_queries

    docs = _write(tmp_path / "docs.jsonl", json.dumps({"doc_id": "d1", "text": "a\u2028b\u0085c"}, ensure_ascii=False)
                  + "\n" + json.dumps({"doc_id": "d2", "text": "x"}) + "\n")
    store = read_docs(docs)
    assert store["d1"] == "a\u2028b\u0085c" and len(store) == 2
    q = _write(tmp_path / "queries.tsv", "1\talpha\fbeta\n2\tgamma\n")
    got = read_queries(q)
    assert got["query_id"].tolist() == ["1", "2"] and got["text"].tolist() == ["alpha\fbeta", "gamma"]


def test_encoding_option_reaches_queries_and_docs(tmp_path):
    from ranklens.io import load_collection
    from ranklens.io._columns import encoding_setting

    d = tmp_path / "coll"
    _write(d / "queries.tsv", "1\tcaf\u00e9\n".encode("latin-1"))
    _write(d / "docs.jsonl", '{"doc_id": "d1", "text": "caf\u00e9 au lait"}\n'.encode("latin-1"))
    with pytest.raises(DataFormatError, match="latin-1"):
        load_collection(d)
    with encoding_setting("latin-1"):
        coll = load_collection(d)
    assert coll.queries["text"].tolist() == ["caf\u00e9"] and coll.docs["d1"] == "caf\u00e9 au lait"


def test_utf32_is_named_utf32(tmp_path, capsys):
    from ranklens.io import read_run

    path = _write(tmp_path / "r.run", "1 Q0 d1 1 2.0 s\n".encode("utf-32"))
    with pytest.raises(DataFormatError) as info:
        read_run(path)
    _assert_located(info.value, path, 1, "UTF-32")
    assert "UTF-16" not in str(info.value)


# ------------------------------------------------------------------------------------ SMART
SMART_CASES = [
    ("smart-record-starts-with-A", "cran.all.1400",
     CRAN_DOCS.replace(".I 2\n.T\nt two\n", ""), 10, "a '.I <id>' line is probably missing before line 10"),
    ("smart-lower-case-i", "cran.all.1400", CRAN_DOCS.replace(".I 2", ".i 2"), 10, "lower-case field marker"),
    ("smart-I-extra-words", "cran.all.1400", CRAN_DOCS.replace(".I 2", ".I 2 extra words"), 10, "more than one word"),
    ("smart-I-negative", "cran.qry", CRAN_QRY.replace(".I 002", ".I -1"), 4, "without a sign"),
    ("smart-cranqrel-hex", "cranqrel", "1 1 0x1\n", 1, "non-integer"),
]


@pytest.mark.parametrize(("case", "name", "content", "line", "words"), SMART_CASES, ids=[c[0] for c in SMART_CASES])
def test_smart_boundaries(tmp_path, capsys, case, name, content, line, words):
    from ranklens.io import load_smart_collection

    d = tmp_path / "cran"
    for fname, text in (("cran.all.1400", CRAN_DOCS), ("cran.qry", CRAN_QRY), ("cranqrel", CRANQREL)):
        _write(d / fname, text)
    bad = _write(d / name, content)
    with pytest.raises(RanklensError) as info:
        load_smart_collection(d)
    _assert_located(info.value, bad, line, words)
    _cli(["asl", "--collection", str(d), "--out", str(tmp_path / "out")], capsys, bad, line, words)


def _cran(tmp_path: Path, docs: str = CRAN_DOCS, qrels: str = CRANQREL) -> Path:
    d = tmp_path / "cran"
    for fname, text in (("cran.all.1400", docs), ("cran.qry", CRAN_QRY), ("cranqrel", qrels)):
        _write(d / fname, text)
    return d


def test_smart_record_that_is_only_a_w_block_is_warned(tmp_path):
    from ranklens.io import load_smart_collection

    docs = CRAN_DOCS.replace(".I 2\n.T\nt two\n.A\na\n.B\nb\n", "")  # record 2 lost all but its .W
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coll = load_smart_collection(_cran(tmp_path, docs))
    assert list(coll.docs) == ["1"] and coll.docs["1"] == "w one w two"  # kept, joined ...
    notes = coll.meta["warnings"]
    assert any("1 record(s) have a field that comes back (.I 1 (line 10))" in n for n in notes), notes  # ... warned
    # judged doc 2 no longer exists: warned with counts
    assert any("judge 1 document(s) that are not in the collection (1 judgment(s); e.g. '2')" in n for n in notes)


def test_smart_form_feed_keeps_the_words_after_it(tmp_path):
    from ranklens.io import load_smart_collection

    coll = load_smart_collection(_cran(tmp_path, CRAN_DOCS.replace("w one", "w one\fafter the feed")))
    assert coll.docs["1"] == "w one after the feed"
    assert coll.meta["warnings"] == []


def test_cranqrel_judging_unknown_documents_and_queries_is_warned(tmp_path, capsys):
    from ranklens.io import load_smart_collection

    d = _cran(tmp_path, qrels=CRANQREL + "1 99 2\n1 98 1\n7 1 1\n")
    with pytest.warns(Warning, match="judge 2 document"):
        coll = load_smart_collection(d)
    notes = coll.meta["warnings"]
    assert any("2 document(s) that are not in the collection (2 judgment(s); e.g. '99')" in n for n in notes), notes
    assert any("1 query id(s) that are not among the queries (1 judgment(s); e.g. '7')" in n for n in notes), notes


def test_directory_collection_existence_check(tmp_path):
    from ranklens.io import load_collection

    d = tmp_path / "coll"
    _write(d / "docs.jsonl", '{"doc_id": "d1", "text": "a"}\n')
    _write(d / "queries.tsv", "1\talpha\n")
    _write(d / "qrels.trec", "1 0 d1 1\n1 0 d9 1\n")
    with pytest.warns(Warning, match="judge 1 document"):
        coll = load_collection(d)
    assert any("(1 judgment(s); e.g. 'd9')" in n for n in coll.meta["warnings"])
