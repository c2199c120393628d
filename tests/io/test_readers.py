"""Queries and documents readers, JsonlDocStore, load_collection on a directory."""

from __future__ import annotations

import gzip
import json
import pickle

import pytest

from ranklens.errors import DataFormatError
from ranklens.io import DocStore, JsonlDocStore, load_collection, read_docs, read_queries

DOCS = [
    {"doc_id": "d1", "title": "Cats", "text": "Cats purr."},
    {"doc_id": "d2", "title": "", "text": "Dogs bark."},
    {"doc_id": "d3", "title": "Only a title", "text": ""},
]


def _jsonl(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_queries_tsv_with_and_without_header(tmp_path):
    (tmp_path / "a.tsv").write_text('1\twhat is "x"\n002\t Androgen receptor define\n')
    q = read_queries(tmp_path / "a.tsv")
    assert list(q["query_id"]) == ["1", "002"]
    assert list(q["text"]) == ['what is "x"', " Androgen receptor define"]  # quotes kept verbatim
    (tmp_path / "b.tsv").write_text("query_id\toriginal_I\ttext\n1\t001\thello world\n")
    q = read_queries(tmp_path / "b.tsv")
    assert list(q.columns) == ["query_id", "text", "original_I"]
    assert q.iloc[0].tolist() == ["1", "hello world", "001"]


def test_queries_jsonl_topics_smart(tmp_path):
    _jsonl(tmp_path / "q.jsonl", [{"_id": 5, "text": "a"}, {"_id": "6", "text": "b"}])
    assert read_queries(tmp_path / "q.jsonl").values.tolist() == [["5", "a"], ["6", "b"]]
    _jsonl(tmp_path / "q2.jsonl", [{"qid": "1", "query": "x"}])
    assert read_queries(tmp_path / "q2.jsonl").values.tolist() == [["1", "x"]]
    (tmp_path / "topics.txt").write_text(
        "<top>\n<num> Number: 301\n<title> International Organized Crime\n<desc> Description:\n"
        "Identify organizations.\n<narr> Narrative:\nA relevant document ...\n</top>\n"
        "<top>\n<num> Number: 302 </num>\n<title> Poliomyelitis </title>\n</top>\n")
    t = read_queries(tmp_path / "topics.txt")
    assert t[["query_id", "text"]].values.tolist() == [["301", "International Organized Crime"], ["302", "Poliomyelitis"]]
    assert t["desc"][0] == "Identify organizations."
    assert read_queries(tmp_path / "topics.txt", field="desc")["text"][0] == "Identify organizations."
    (tmp_path / "x.qry").write_text(".I 1\n.W\nfirst\nquery\n")
    assert read_queries(tmp_path / "x.qry").values.tolist()[0][:2] == ["1", "first query"]


def test_queries_errors(tmp_path):
    (tmp_path / "q.tsv").write_text("1\tok\nno-tab-here\n")
    with pytest.raises(DataFormatError, match=r"q\.tsv:2: expected 'id<TAB>text'"):
        read_queries(tmp_path / "q.tsv")
    (tmp_path / "q.jsonl").write_text('{"qid": "1", "text": "a"}\n{"qid": 2, "txt": "b"}\n')
    with pytest.raises(DataFormatError, match=r"q\.jsonl:2: no query text field"):
        read_queries(tmp_path / "q.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"qid": "1", "text": "a"}\n{oops\n')
    with pytest.raises(DataFormatError, match=r"bad\.jsonl:2: invalid JSON"):
        read_queries(tmp_path / "bad.jsonl")
    (tmp_path / "dup.tsv").write_text("1\ta\n1\tb\n")
    with pytest.raises(DataFormatError, match="duplicate query_id '1'"):
        read_queries(tmp_path / "dup.tsv")
    (tmp_path / "empty.tsv").write_text("")
    with pytest.raises(DataFormatError, match="empty file"):
        read_queries(tmp_path / "empty.tsv")


def test_read_docs_jsonl_title_option(tmp_path):
    p = _jsonl(tmp_path / "docs.jsonl", DOCS)
    plain = read_docs(p)
    assert isinstance(plain, DocStore)
    assert [plain[d] for d in ("d1", "d2", "d3")] == ["Cats purr.", "Dogs bark.", "Only a title"]
    titled = read_docs(p, include_title=True, title_sep=". ")
    assert titled.get_many(["d1", "d2"]) == ["Cats. Cats purr.", "Dogs bark."]
    assert list(plain.metadata.columns) == ["doc_id", "title"]


def test_read_docs_field_aliases_gz_and_errors(tmp_path):
    p = tmp_path / "c.jsonl.gz"
    p.write_bytes(gzip.compress(b'{"docno": "x", "contents": "hello"}\n{"_id": "y", "body": "bye"}\n'))
    assert dict(read_docs(p).iter_docs()) == {"x": "hello", "y": "bye"}
    (tmp_path / "bad.jsonl").write_text('{"doc_id": "a", "text": "x"}\n{"doc_id": "a", "text": "y"}\n')
    with pytest.raises(DataFormatError, match=r"bad\.jsonl:2: duplicate doc id 'a' \(first on line 1\)"):
        read_docs(tmp_path / "bad.jsonl")
    (tmp_path / "noid.jsonl").write_text('{"name": "a", "text": "x"}\n')
    with pytest.raises(DataFormatError, match=r"noid\.jsonl:1: no doc id field"):
        read_docs(tmp_path / "noid.jsonl")


def test_read_docs_tsv(tmp_path):
    (tmp_path / "docs.tsv").write_text("docno\ttitle\ttext\nd1\tT\tbody one\n")
    assert read_docs(tmp_path / "docs.tsv")["d1"] == "body one"
    assert read_docs(tmp_path / "docs.tsv", include_title=True)["d1"] == "T body one"
    (tmp_path / "c.tsv").write_text("7\tseven\n8\teight\n")
    assert dict(read_docs(tmp_path / "c.tsv").iter_docs()) == {"7": "seven", "8": "eight"}


def test_jsonl_doc_store_matches_in_memory(tmp_path):
    recs = [{"doc_id": f"d{i}", "title": f"t{i}", "text": f"text {i} \u00e9\u4e2d"} for i in range(50)]
    p = _jsonl(tmp_path / "docs.jsonl", recs)
    mem = read_docs(p, include_title=True)
    st = read_docs(p, include_title=True, stream=True)
    assert isinstance(st, JsonlDocStore) and isinstance(st, DocStore)
    assert len(st) == len(mem) == 50 and list(st) == list(mem)
    ids = ["d49", "d3", "d17", "d3"]
    assert st.get_many(ids) == mem.get_many(ids)
    assert st["d10"] == "t10 text 10 \u00e9\u4e2d"
    assert list(st.iter_docs()) == list(mem.iter_docs())
    assert st.to_frame().equals(mem.to_frame())
    assert "d1" in st and "zz" not in st
    with pytest.raises(KeyError, match="zz"):
        st["zz"]
    clone = pickle.loads(pickle.dumps(st))
    assert clone["d5"] == st["d5"]


def test_jsonl_doc_store_rejects_gzip(tmp_path):
    p = tmp_path / "d.jsonl.gz"
    p.write_bytes(gzip.compress(b'{"doc_id": "a", "text": "x"}\n'))
    with pytest.raises(DataFormatError, match="uncompressed"):
        JsonlDocStore(p)


def test_load_collection_directory(tmp_path):
    _jsonl(tmp_path / "docs.jsonl", DOCS)
    (tmp_path / "queries.tsv").write_text("query_id\ttext\nq1\tcats\n")
    (tmp_path / "qrels.trec").write_text("q1 0 d1 2\n")
    c = load_collection(tmp_path)
    assert c.name == tmp_path.name and len(c.docs) == 3 and c.query_text("q1") == "cats"
    assert c.qrels.values.tolist() == [["q1", "d1", 2]]
    s = load_collection(tmp_path, stream_docs=True, include_title=True)
    assert isinstance(s.docs, JsonlDocStore) and s.docs["d1"] == "Cats Cats purr."


def test_load_collection_demo():
    import json

    from ranklens.datasets import demo

    c = load_collection("demo")
    # the same documents as reading the shipped file by hand
    lines = (demo.demo_path() / "docs.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    assert set(c.docs) == {r["doc_id"] for r in rows} and len(rows) == len(c.docs)
    assert len(c.queries) > 0
    assert set(c.qrels["doc_id"]) <= set(c.docs)
    assert set(c.qrels["query_id"]) <= set(c.queries["query_id"])


def test_io_import_is_light():
    import subprocess
    import sys

    code = "import sys, ranklens.io; print(sorted({'ir_datasets', 'torch', 'duckdb'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
