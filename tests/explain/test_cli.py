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


def test_cli_explain_two_models(coll_dir, tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--model", "tfidf",
               "--granularities", "sentence,window:3", "--m", "1", "--k", "3,5",
               "--subdoc", str(coll_dir / "subdoc.tsv"), "--embedder", "tfidf", "--sweep-m", "1,2",
               "--out", str(out)])
    assert rc == 0
    captured = capsys.readouterr()
    assert "# explain-consistency" in captured.out and "bm25/sentence/MRC@3" in captured.out
    res = Result.load(out / "explain-consistency")
    assert res.kind == "explain-consistency"
    assert set(res.table["model"]) == {"bm25", "tfidf"}
    mer = res.table["MER@10"].dropna()
    assert len(mer) and ((mer >= -1) & (mer <= 1 + 1e-9)).all()
    assert {"ci", "comparisons", "units", "unit_diagnostics"} <= set(res.tables)
    assert res.provenance.analysis_params["m"] == 1
    assert Result.load(out / "explain-sweep").kind == "explain-sweep"
    assert {"consistency.png", "relevance_scatter.png", "mer_scatter.png"} <= {
        f.name for f in (out / "explain-consistency").iterdir()}
    assert (out / "explain-sweep" / "sweep.png").is_file()


def test_cli_user_rationales_need_one_model(coll_dir, tmp_path, capsys):
    r = tmp_path / "r.jsonl"
    r.write_text(json.dumps({"query_id": "q1", "doc_id": "d1", "start": 0, "end": 36, "weight": 1}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--model", "tfidf",
               "--rationales", str(r), "--out", str(tmp_path / "o")])
    assert rc == 1
    assert "exactly one model" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"query_id": "q1", "doc_id": "d1", "start": 0, "end": 999}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--rationales", str(bad),
               "--out", str(tmp_path / "o")])
    assert rc == 1
    assert "bad.jsonl:1: end=999" in capsys.readouterr().err


def test_cli_user_rationales(coll_dir, tmp_path):
    r = tmp_path / "r.jsonl"
    r.write_text(json.dumps({"query_id": "q1", "doc_id": "d1", "start": 0, "end": 36, "weight": 1}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--rationales", str(r), "--k", "3",
               "--sweep-m", "none", "--out", str(tmp_path / "o")])
    assert rc == 0
    res = Result.load(tmp_path / "o" / "explain-consistency")
    assert set(res.table["granularity"]) == {"user"}


def test_cli_conventions_and_w_sweep(coll_dir, tmp_path):
    from ranklens.explain import result_html

    out = tmp_path / "o"
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--granularities", "sentence",
               "--m", "1", "--k", "3", "--sweep-m", "none", "--sweep-w", "2,3", "--aggregate", "mean",
               "--ties", "float64", "--subdoc", str(coll_dir / "subdoc.tsv"), "--embedder", "tfidf",
               "--mer-missing", "skip", "--display-queries", "2", "--display-docs", "1", "--out", str(out)])
    assert rc == 0
    cons = Result.load(out / "explain-consistency")
    sweep = Result.load(out / "explain-sweep")
    for res in (cons, sweep):
        params = res.provenance.params
        assert params["aggregate"] == "mean" and "aggregate='mean'" in params["explainer"]
        assert params["ties"] == "float64" and params["mer_missing"] == "skip"
    # the w-sweep alone: window:2 and window:3 at --m
    assert sweep.table["granularity"].tolist() == ["window:2", "window:3"]
    assert set(sweep.table["m"]) == {1}
    assert (out / "explain-sweep" / "sweep.png").is_file()
    docs = cons.tables["documents"]
    assert docs["query_id"].nunique() == 2 and (docs["rank"] == 1).all()
    assert result_html(cons).count("<mark") >= 2


def test_cli_user_rationales_cut_to_m(coll_dir, tmp_path, tiny):
    d1 = tiny.docs["d1"]
    r = tmp_path / "r.jsonl"
    r.write_text(
        json.dumps({"query_id": "q1", "doc_id": "d1", "rationales": [
            {"start": 0, "end": 36, "weight": 0.2}, {"start": 37, "end": len(d1), "weight": 0.7}]}) + "\n")
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--rationales", str(r), "--m", "1",
               "--k", "3", "--sweep-m", "none", "--out", str(tmp_path / "o")])
    assert rc == 0
    rats = Result.load(tmp_path / "o" / "explain-consistency").tables["rationales"]
    got = rats[rats["doc_id"] == "d1"]
    assert got["text"].tolist() == [d1[37:]] and got["weight"].tolist() == [0.7]


def test_cli_option_errors_name_the_option(coll_dir, tmp_path, capsys):
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--sweep-w", "2,x",
               "--out", str(tmp_path / "o")])
    assert rc == 1 and "--sweep-w" in capsys.readouterr().err
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--candidates", "run",
               "--out", str(tmp_path / "o")])
    assert rc == 1 and "needs run" in capsys.readouterr().err


def test_cli_run_file_is_the_candidate_pool(coll_dir, tmp_path, tiny):
    run = tmp_path / "first.run"
    run.write_text("q1 Q0 d3 1 9.0 fs\nq1 Q0 d1 2 8.0 fs\nq1 Q0 d2 3 7.0 fs\nq2 Q0 d4 1 5.0 fs\nq2 Q0 d1 2 4.0 fs\n")
    out = tmp_path / "o"
    rc = main(["explain", "--collection", str(coll_dir), "--model", "bm25", "--run", str(run), "--pool", "2",
               "--granularities", "sentence", "--k", "3", "--sweep-m", "none", "--out", str(out)])
    assert rc == 0
    rats = Result.load(out / "explain-consistency").tables["rationales"]
    got = set(zip(rats["query_id"], rats["doc_id"]))
    assert got == {("q1", "d3"), ("q1", "d1"), ("q2", "d4"), ("q2", "d1")}  # the run's top 2 per query
