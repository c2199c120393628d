from __future__ import annotations

import json

import pytest

from ranklens.cli import main
from ranklens.results import Result


@pytest.fixture
def coll_dir(tmp_path, tiny):
    d = tmp_path / "coll"
    d.mkdir()
    with (d / "docs.jsonl").open("w") as fh:
        for doc_id, text in tiny.docs.items():
            fh.write(json.dumps({"doc_id": doc_id, "text": text}) + "\n")
    (d / "queries.tsv").write_text(
        "query_id\ttext\n" + "".join(f"{q}\t{t}\n" for q, t in zip(tiny.queries["query_id"], tiny.queries["text"]))
    )
    (d / "qrels.trec").write_text(
        "".join(f"{q} 0 {doc} {r}\n" for q, doc, r in tiny.qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False))
    )
    (d / "subdoc.tsv").write_text("query_id\tdoc_id\tunit\trelevant\nq1\td1\t0\t1\nq1\td3\t0\t1\nq2\td4\t0\t1\n")
    return d


def test_cli_explain_two_rankers(coll_dir, tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["explain", "--collection", str(coll_dir), "--ranker", "bm25", "--ranker", "tfidf",
               "--granularity", "sentence", "--granularity", "window:3", "-m", "1", "-k", "3", "-k", "5",
               "--subdoc", str(coll_dir / "subdoc.tsv"), "--embedder", "tfidf", "--sweep-m", "1,2",
               "--show", "1", "--no-color", "--out", str(out)])
    assert rc == 0
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    header = lines[-5].split("\t")  # the consistency summary is the last table printed
    assert header[:2] == ["ranker", "granularity"] and "mrc@3" in header and "mer@10" in header
    assert {ln.split("\t")[0] for ln in lines[-4:]} == {"bm25", "tfidf"}
    assert "[[" in captured.err and "\x1b[" not in captured.err
    res = Result.load(out / "explain-consistency")
    assert res.kind == "explain-consistency"
    assert set(res.table["ranker"]) == {"bm25", "tfidf"}
    mer = res.table["mer@10"].dropna()
    assert len(mer) and ((mer >= -1) & (mer <= 1 + 1e-9)).all()
    assert Result.load(out / "explain-sweep").kind == "explain-sweep"
    assert {"consistency.png", "scatter-mrc@3.png", "scatter-mer@10.png", "sweep.png"} <= {f.name for f in out.iterdir()}
    html = (out / "rationales.html").read_text()
    assert "<mark" in html


def test_cli_user_rationales_need_one_ranker(coll_dir, tmp_path, capsys):
    r = tmp_path / "r.jsonl"
    r.write_text(json.dumps({"query_id": "q1", "doc_id": "d1", "start": 0, "end": 36, "weight": 1}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--ranker", "bm25", "--ranker", "tfidf",
               "--rationales", str(r), "--out", str(tmp_path / "o")])
    assert rc == 1
    assert "exactly one --ranker" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"query_id": "q1", "doc_id": "d1", "start": 0, "end": 999}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--ranker", "bm25", "--rationales", str(bad),
               "--out", str(tmp_path / "o")])
    assert rc == 1
    assert "bad.jsonl:1: end=999" in capsys.readouterr().err


def test_cli_user_rationales(coll_dir, tmp_path):
    r = tmp_path / "r.jsonl"
    r.write_text(json.dumps({"query_id": "q1", "doc_id": "d1", "start": 0, "end": 36, "weight": 1}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--ranker", "bm25", "--rationales", str(r), "-k", "3",
               "--out", str(tmp_path / "o")])
    assert rc == 0
    res = Result.load(tmp_path / "o" / "explain-consistency")
    assert set(res.table["granularity"]) == {"user"}


def test_cli_conventions_and_w_sweep(coll_dir, tmp_path):
    from ranklens.explain import result_html

    out = tmp_path / "o"
    rc = main(["explain", "--collection", str(coll_dir), "--ranker", "bm25", "--granularity", "sentence",
               "-m", "1", "-k", "3", "--sweep-w", "2,3", "--aggregate", "sum", "--ties", "float64",
               "--subdoc", str(coll_dir / "subdoc.tsv"), "--embedder", "tfidf", "--mer-missing", "zero",
               "--display-queries", "2", "--display-docs", "1", "--out", str(out)])
    assert rc == 0
    cons = Result.load(out / "explain-consistency")
    sweep = Result.load(out / "explain-sweep")
    for res in (cons, sweep):
        params = res.provenance.params
        assert params["aggregate"] == "sum" and "aggregate='sum'" in params["explainer"]
        assert params["ties"] == "float64" and params["mer_missing"] == "zero"
    # the w-sweep: -m as the only m, window:2 and window:3 beside the --granularity
    assert sweep.table["granularity"].tolist() == ["sentence", "window:2", "window:3"]
    assert set(sweep.table["m"]) == {1}
    assert (out / "sweep-w.png").is_file() and not (out / "sweep.png").exists()
    # mer-missing zero: every query with a ranked document has a MER value
    assert cons.table["mer@10"].notna().all()
    docs = cons.tables["documents"]
    assert docs["query_id"].nunique() == 2 and (docs["rank"] == 1).all()
    assert result_html(cons).count("<mark") >= 2


def test_cli_user_rationales_cut_to_m(coll_dir, tmp_path, tiny):
    d1 = tiny.docs["d1"]
    r = tmp_path / "r.jsonl"
    r.write_text(
        json.dumps({"query_id": "q1", "doc_id": "d1", "rationales": [
            {"start": 0, "end": 36, "weight": 0.2}, {"start": 37, "end": len(d1), "weight": 0.7}]}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--ranker", "bm25", "--rationales", str(r), "-m", "1",
               "-k", "3", "--out", str(tmp_path / "o")])
    assert rc == 0
    rats = Result.load(tmp_path / "o" / "explain-consistency").tables["rationales"]
    got = rats[rats["doc_id"] == "d1"]
    assert got["text"].tolist() == [d1[37:]] and got["weight"].tolist() == [0.7]


def test_cli_sweep_option_errors(coll_dir, tmp_path, capsys):
    rc = main(["explain", "--collection", str(coll_dir), "--ranker", "bm25", "--sweep-w", "2,x",
               "--out", str(tmp_path / "o")])
    assert rc == 1 and "--sweep-w must be comma-separated integers" in capsys.readouterr().err
    r = tmp_path / "r.jsonl"
    r.write_text(json.dumps({"query_id": "q1", "doc_id": "d1", "start": 0, "end": 5}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--ranker", "bm25", "--rationales", str(r),
               "--sweep-w", "3", "--out", str(tmp_path / "o")])
    assert rc == 1 and "cannot be used with --rationales" in capsys.readouterr().err
