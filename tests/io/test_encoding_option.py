"""The global ``--encoding`` option: a latin-1 input is refused with the fix named, and read with
``--encoding latin-1`` it gives exactly the numbers of the same data in UTF-8."""

from __future__ import annotations

from ranklens.cli import main

QRELS = "q1 0 café 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN = "q1 Q0 d2 1 2.0 r\nq1 Q0 café 2 1.0 r\nq2 Q0 d3 1 3.0 r\nq2 Q0 d9 2 1.0 r\n"


def _write(tmp_path, name, text, encoding):
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    return str(p)


def test_latin1_refused_then_read_with_encoding_option(tmp_path, capsys):
    q8, r8 = _write(tmp_path, "q.utf8", QRELS, "utf-8"), _write(tmp_path, "r.utf8", RUN, "utf-8")
    q1, r1 = _write(tmp_path, "q.l1", QRELS, "latin-1"), _write(tmp_path, "r.l1", RUN, "latin-1")
    assert main(["evaluate", q8, r8, "-m", "P@1", "-m", "RR"]) == 0
    want = capsys.readouterr().out
    assert main(["evaluate", q1, r1, "-m", "P@1", "-m", "RR"]) == 1
    err = capsys.readouterr().err
    assert "q.l1" in err and "--encoding" in err and "Traceback" not in err
    assert main(["--encoding", "latin-1", "evaluate", q1, r1, "-m", "P@1", "-m", "RR"]) == 0
    got = capsys.readouterr().out
    # the same numbers; only the file names in the output may differ
    assert got.replace("r.l1", "r.utf8") == want
    # RR over q1 (relevant café at rank 2) and q2 (relevant d3 at rank 1): (1/2 + 1) / 2
    assert "0.75" in got


def test_unknown_encoding_is_a_located_usage_error(tmp_path, capsys):
    q8, r8 = _write(tmp_path, "q", QRELS, "utf-8"), _write(tmp_path, "r", RUN, "utf-8")
    assert main(["--encoding", "latin-99", "evaluate", q8, r8, "-m", "P@1"]) == 1
    assert "--encoding 'latin-99'" in capsys.readouterr().err
