from __future__ import annotations

import json

import pandas as pd
import pytest

from ranklens.errors import DataFormatError
from ranklens.explain import Rationale, read_rationales, read_subdoc_qrels, relevant_units, write_rationales

DOCS = {"d1": "Cats purr. Dogs bark loudly.", "d2": "Fish swim."}


def _write(tmp_path, name, lines):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_read_rationales_both_layouts_and_order(tmp_path):
    p = _write(tmp_path, "r.jsonl", [
        json.dumps({"query_id": 1, "doc_id": "d1", "start": 0, "end": 10, "weight": 0.2}),
        json.dumps({"query_id": "1", "doc_id": "d1", "start": 11, "end": 28, "weight": 0.7, "text": "Dogs bark loudly."}),
        "",
        json.dumps({"query_id": "2", "doc_id": "d2", "rationales": [{"start": 0, "end": 4}]}),
    ])
    got = read_rationales(p, docs=DOCS)
    assert got[("1", "d1")] == (Rationale(-1, 11, 28, "Dogs bark loudly.", 0.7), Rationale(-1, 0, 10, "Cats purr.", 0.2))
    assert got[("2", "d2")] == (Rationale(-1, 0, 4, "Fish", 1.0),)


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("{not json", r"r.jsonl:2: invalid JSON"),
        (json.dumps({"doc_id": "d1", "start": 0, "end": 3}), r"r.jsonl:2: missing field 'query_id'"),
        (json.dumps({"query_id": "q", "doc_id": "d1", "end": 3}), r"r.jsonl:2: missing field 'start'"),
        (json.dumps({"query_id": "q", "doc_id": "d1", "start": 5, "end": 3}), r"r.jsonl:2: need 0 <= start < end"),
        (json.dumps({"query_id": "q", "doc_id": "d1", "start": "a", "end": 3}), r"r.jsonl:2: field 'start'"),
        (json.dumps({"query_id": "q", "doc_id": "d1", "start": 0, "end": 3, "weight": "hi"}), r"r.jsonl:2: field 'weight'"),
        (json.dumps({"query_id": "q", "doc_id": "d9", "start": 0, "end": 3}), r"r.jsonl:2: unknown doc_id 'd9'"),
        (json.dumps({"query_id": "q", "doc_id": "d2", "start": 0, "end": 30}), r"r.jsonl:2: end=30 is past the end"),
        (json.dumps({"query_id": "q", "doc_id": "d2", "start": 0, "end": 4, "text": "Bird"}), r"r.jsonl:2: field 'text'.*does not match"),
    ],
)
def test_read_rationales_errors_name_line_and_field(tmp_path, line, match):
    good = json.dumps({"query_id": "q", "doc_id": "d1", "start": 0, "end": 4})
    p = _write(tmp_path, "r.jsonl", [good, line])
    with pytest.raises(DataFormatError, match=match):
        read_rationales(p, docs=DOCS)


def test_write_read_roundtrip(tmp_path):
    rats = {("q", "d1"): (Rationale(1, 11, 28, "Dogs bark loudly.", 0.5), Rationale(0, 0, 10, "Cats purr.", 0.25))}
    p = write_rationales(rats, tmp_path / "out.jsonl")
    assert read_rationales(p, docs=DOCS) == rats


def test_subdoc_tsv_jsonl_frame(tmp_path):
    tsv = _write(tmp_path, "s.tsv", ["doc_id\tunit\trelevant", "d1\t1\t1", "d1\t0\t0", "d2\tFish swim.\t1"])
    f = read_subdoc_qrels(tsv)
    assert list(f.columns) == ["doc_id", "unit", "relevant"]
    assert f["unit"].tolist() == [1, 0, "Fish swim."]
    assert relevant_units(f, "any", "d1", DOCS["d1"]) == ["Dogs bark loudly."]
    assert relevant_units(f, "any", "d2", DOCS["d2"]) == ["Fish swim."]
    js = _write(tmp_path, "s.jsonl", [json.dumps({"query_id": "q1", "doc_id": "d1", "sentence_index": 0, "relevant": 1})])
    g = read_subdoc_qrels(js)
    assert list(g.columns) == ["query_id", "doc_id", "unit", "relevant"]
    assert relevant_units(g, "q1", "d1", DOCS["d1"]) == ["Cats purr."]
    assert relevant_units(g, "q2", "d1", DOCS["d1"]) == []
    demo_like = pd.DataFrame({"query_id": ["q"], "doc_id": ["d2"], "sentence_index": [0], "relevant": [1]})
    assert read_subdoc_qrels(demo_like)["unit"].tolist() == [0]


def test_subdoc_errors(tmp_path):
    bad_cols = _write(tmp_path, "a.tsv", ["doc\tunit\trelevant", "d1\t0\t1"])
    with pytest.raises(DataFormatError, match="lacks column"):
        read_subdoc_qrels(bad_cols)
    ragged = _write(tmp_path, "b.tsv", ["doc_id\tunit\trelevant", "d1\t0\t1", "d1\t1"])
    with pytest.raises(DataFormatError, match=r"b.tsv:3: expected 3"):
        read_subdoc_qrels(ragged)
    badrel = _write(tmp_path, "c.tsv", ["doc_id\tunit\trelevant", "d1\t0\tyes"])
    with pytest.raises(DataFormatError, match=r"c.tsv:2: field 'relevant'"):
        read_subdoc_qrels(badrel)
    with pytest.raises(DataFormatError, match="not found"):
        read_subdoc_qrels(tmp_path / "missing.tsv")


def test_subdoc_frame_with_non_default_index_stays_aligned():
    frame = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"], "unit": ["u1", "u2"], "relevant": [1, 0]},
                         index=[7, 3])
    out = read_subdoc_qrels(frame)
    assert out.values.tolist() == [["q1", "d1", "u1", 1], ["q2", "d2", "u2", 0]]


def test_subdoc_from_passages_maps_passage_qrels_to_document_units():
    import pandas as pd

    from ranklens.explain import subdoc_from_passages

    mapping = pd.DataFrame({"doc_id": ["D1", "D1", "D2", "D2"], "passage_id": ["p1", "p2", "p2", "p3"],
                            "text": ["Cats purr. ", "Dogs bark.", "Dogs bark.", "Birds sing."]})
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["p2", "p3", "p1", "p9"],
                          "relevance": [2, 0, 1, 3]})
    got = subdoc_from_passages(mapping, qrels)
    # reference: every (query, document containing a relevant passage, that passage's text)
    ref = sorted((q, d, t.strip()) for q, p, r in qrels.itertuples(index=False) if r >= 1
                 for d, p2, t in mapping.itertuples(index=False) if p2 == p)
    assert sorted(zip(got["query_id"], got["doc_id"], got["unit"])) == ref
    assert (got["relevant"] == 1).all()
    assert subdoc_from_passages(mapping, qrels, min_relevance=2)["doc_id"].tolist() == ["D1", "D2"]
