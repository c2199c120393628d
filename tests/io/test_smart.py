"""SMART / NPL parsing and the classic collections' raw qrels, on small inline files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.errors import DataFormatError
from ranklens.io import load_collection, load_smart_collection, parse_npl, parse_smart, read_raw_qrels, read_smart

CRAN_DOCS = """.I 1
.T
experimental investigation of the aerodynamics of a
wing in a slipstream .
.A
brenckman,m.
.B
j. ae. scs. 25, 1958, 324.
.W
experimental investigation of the aerodynamics of a
wing in a slipstream .
  an experimental study of a wing .
.I 2
.T
simple shear flow .
.A
ting,l.
.B
j. ae. scs. 1958.
.W
.I 3
.T
jumbled
.W
first part
.W
second part
"""

CRAN_QRY = """.I 001
.W
what similarity laws must be obeyed .
.I 004
.W
what problems of heat conduction
in composite slabs .
"""

# positions: query 1 = .I 001, query 2 = .I 004
CRANQREL = "1 1 2 \n1 3 -1 \n2 2 1\n2 3 4"


def _w(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p


def test_parse_smart_records_and_repeated_fields():
    recs = parse_smart(CRAN_DOCS)
    assert [r[0] for r in recs] == ["1", "2", "3"]
    assert recs[0][1]["A"] == ["brenckman,m."]
    assert recs[1][1]["W"] == [""]  # empty .W kept
    assert recs[2][1]["W"] == ["first part", "second part"]


def test_parse_smart_drops_sentinel_and_reads_inline_values():
    text = ".I 1\n.T Title on the marker line\n.W\n body\n.A\nX, Y.\n.A\nZ, W.\n.I 0\n"
    recs = parse_smart(text)
    assert len(recs) == 1
    assert recs[0][1]["T"] == ["Title on the marker line"]
    assert recs[0][1]["A"] == ["X, Y.", "Z, W."]


def test_parse_smart_errors():
    with pytest.raises(DataFormatError, match=r"f:1: text before the first \.I"):
        parse_smart("hello\n.I 1\n.W\nx\n", source="f")
    with pytest.raises(DataFormatError, match=r"f:2: \.I line without an id"):
        parse_smart(".I 1\n.I\n", source="f")


def test_read_smart_frame(tmp_path):
    df = read_smart(_w(tmp_path, "cran.all.1400", CRAN_DOCS), ("T", "W"))
    assert list(df["doc_id"]) == ["1", "2", "3"]
    assert df["text"][0] == ("experimental investigation of the aerodynamics of a wing in a slipstream . "
                             "experimental investigation of the aerodynamics of a wing in a slipstream . "
                             "an experimental study of a wing .")
    assert df["text"][1] == "simple shear flow ."
    assert df["text"][2] == "jumbled first part second part"
    assert df["author"][0] == "brenckman,m." and df["bib"][1] == "j. ae. scs. 1958."
    q = read_smart(_w(tmp_path, "cran.qry", CRAN_QRY), ("W",), id_column="query_id", strip_zeros=True)
    assert list(q["query_id"]) == ["1", "4"] and list(q["original_id"]) == ["001", "004"]
    assert q["text"][1] == "what problems of heat conduction in composite slabs ."


def test_cranqrel_position_and_gain(tmp_path):
    q = read_raw_qrels(_w(tmp_path, "cranqrel", CRANQREL), fmt="cranqrel")
    assert q.values.tolist() == [["1", "1", 3], ["1", "3", 0], ["2", "2", 4], ["2", "3", 1]]
    with pytest.raises(DataFormatError, match=r"cranqrel:1: cranqrel code 7"):
        read_raw_qrels(_w(tmp_path, "cranqrel", "1 1 7\n"), fmt="cranqrel")


def test_cisi_cacm_npl_qrels(tmp_path):
    cisi = read_raw_qrels(_w(tmp_path, "CISI.REL", "     1     28\t0\t0.000000\n    10    5 0 0.0\n"), fmt="cisi")
    assert cisi.values.tolist() == [["1", "28", 1], ["10", "5", 1]]
    cacm = read_raw_qrels(_w(tmp_path, "qrels.text", "01 1410  0 0\n02 0007 0 0\n"), fmt="cacm")
    assert cacm.values.tolist() == [["1", "1410", 1], ["2", "7", 1]]
    npl = read_raw_qrels(_w(tmp_path, "rlv-ass", "1\n 12 30\n 7\n   /\n2\n  5\n   /\n"), fmt="npl")
    assert npl.values.tolist() == [["1", "12", 1], ["1", "30", 1], ["1", "7", 1], ["2", "5", 1]]
    with pytest.raises(DataFormatError, match=r"qrels.text:2: expected 4 columns"):
        read_raw_qrels(_w(tmp_path, "qrels.text", "01 1 0 0\n01 2 0\n"), fmt="cacm")


def test_parse_npl():
    text = "1\ncompact memories have\nflexible capacities\n   /\n2\nan analogue computer\n   /\n"
    assert parse_npl(text) == [("1", "compact memories have\nflexible capacities"), ("2", "an analogue computer")]


def test_load_smart_collection_raw_dir(tmp_path):
    _w(tmp_path, "cran.all.1400", CRAN_DOCS)
    _w(tmp_path, "cran.qry", CRAN_QRY)
    _w(tmp_path, "cranqrel", CRANQREL)
    c = load_smart_collection(tmp_path)
    assert c.name == "cranfield" and len(c.docs) == 3
    assert list(c.queries["query_id"]) == ["1", "2"]  # positions, as cranqrel numbers them
    assert list(c.queries["original_id"]) == ["001", "004"]
    assert c.docs["3"] == "first part second part"  # Cranfield text = .W only
    assert c.qrels["relevance"].tolist() == [3, 0, 4, 1]
    assert load_collection(tmp_path).qrels.equals(c.qrels)


def test_load_npl_raw(tmp_path):
    _w(tmp_path, "doc-text", "1\nalpha beta\n   /\n2\ngamma\n   /\n")
    _w(tmp_path, "query-text", "1\nALPHA\n/\n")
    _w(tmp_path, "rlv-ass", "1\n 1\n   /\n")
    c = load_smart_collection(tmp_path)
    assert c.name == "npl" and c.docs["1"] == "alpha beta" and c.query_text("1") == "ALPHA"


def test_unknown_dir(tmp_path):
    with pytest.raises(DataFormatError, match="cannot load collection"):
        load_collection(tmp_path)
