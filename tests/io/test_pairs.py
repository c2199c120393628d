"""The sentence-pair and transfer dataset readers of :mod:`ranklens.io.pairs`: each one on a small
file written here, and a malformed line reported with its file and line."""

from __future__ import annotations

import gzip
import json

import pytest

from ranklens.errors import DataFormatError
from ranklens.io import pairs as P


def _located(exc: pytest.ExceptionInfo, path, line: int | None) -> None:
    text = str(exc.value)
    assert str(path) in text or path.name in text
    if line is not None:
        assert f":{line}" in text


def test_mrpc(tmp_path):
    f = tmp_path / "msr_paraphrase_test.txt"
    f.write_text("\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA \"b\" c.\tA b c.\n0\t3\t4\tx\ty\n",
                 encoding="utf-8")
    df = P.load_mrpc(f)
    assert df.to_dict("records") == [{"pair_id": "1-2", "text_a": 'A "b" c.', "text_b": "A b c.", "query": "",
                                      "label": "1"}]
    assert len(P.load_mrpc(f, positives_only=False)) == 2
    f.write_text("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tonly four\n")
    with pytest.raises(DataFormatError, match="expected 5 tab-separated fields") as exc:
        P.load_mrpc(f)
    _located(exc, f, 2)


def test_jfleg(tmp_path):
    d = tmp_path / "dev"
    d.mkdir()
    (d / "dev.src").write_text("he go .\nsame .\n")
    for k in range(4):
        (d / f"dev.ref{k}").write_text(f"He goes {k} .\nsame .\n")
    df = P.load_jfleg(tmp_path, split="dev")
    assert df["pair_id"].tolist() == [f"dev-0-ref{k}" for k in range(4)]  # identical pairs dropped
    assert P.load_jfleg(tmp_path, split="dev", reference=2)["text_a"].tolist() == ["He goes 2 ."]
    (d / "dev.ref1").write_text("one line only\n")
    with pytest.raises(DataFormatError, match="line-aligned") as exc:
        P.load_jfleg(tmp_path, split="dev", reference=1)
    _located(exc, d / "dev.ref1", None)


def test_gyafc(tmp_path):
    d = tmp_path / "Family_Relationships" / "train"
    d.mkdir(parents=True)
    (d / "formal").write_text("I am well.\n")
    (d / "informal").write_text("im good\n")
    df = P.load_gyafc(tmp_path / "Family_Relationships")
    assert df[["text_a", "text_b"]].values.tolist() == [["I am well.", "im good"]]
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataFormatError, match="no 'informal' file") as exc:
        P.load_gyafc(tmp_path / "empty")
    _located(exc, tmp_path / "empty", None)


def test_turkcorpus(tmp_path):
    (tmp_path / "test.8turkers.tok.norm").write_text("a -lrb- b -rrb- c\n")
    for k in range(8):
        (tmp_path / f"test.8turkers.tok.turk.{k}").write_text("a (b)\n" if k else "a ( b ) c\n")
    df = P.load_turkcorpus(tmp_path, split="test")
    assert df["pair_id"].tolist() == [f"test-0-turk{k}" for k in range(1, 8)]  # brackets restored: turk0 == norm
    with pytest.raises(Exception, match="reference must be 'all' or 0..7"):
        P.load_turkcorpus(tmp_path, split="test", reference=9)


def test_wnc(tmp_path):
    (tmp_path / "pre.test").write_text("the great leader\nsame\n")
    (tmp_path / "post.test").write_text("the leader\nsame\n")
    df = P.load_wnc(tmp_path)
    assert df[["text_a", "text_b"]].values.tolist() == [["the leader", "the great leader"]]
    with pytest.raises(DataFormatError, match="not found") as exc:
        P.load_wnc(tmp_path, split="train")
    assert "post.train" in str(exc.value)


def test_xsum(tmp_path):
    f = tmp_path / "xsum.jsonl"
    f.write_text(json.dumps({"id": "x1", "document": "Long\narticle.", "summary": "Short.", "title": "T"}) + "\n")
    assert P.load_xsum(tmp_path).to_dict("records") == [{"pair_id": "x1", "text_a": "Short.",
                                                          "text_b": "Long article.", "query": "T"}]
    f.write_text(json.dumps({"id": "x1", "document": "a", "summary": "b"}) + "\n{not json\n")
    with pytest.raises(DataFormatError, match="invalid JSON") as exc:
        P.load_xsum(f)
    _located(exc, f, 2)
    f.write_text(json.dumps({"id": "x1", "document": "a"}) + "\n")
    with pytest.raises(DataFormatError, match="needs 'document' and 'summary'") as exc:
        P.load_xsum(f)
    _located(exc, f, 1)


def test_cnndm(tmp_path):
    d = tmp_path / "stories"
    d.mkdir()
    (d / "s1.story").write_text("Body one.\n\nBody two.\n\n@highlight\n\nHigh one\n\n@highlight\n\nHigh two\n")
    assert P.load_cnndm(d).to_dict("records") == [{"pair_id": "s1", "text_a": "High one . High two .",
                                                    "text_b": "Body one. Body two.", "query": ""}]
    csv = tmp_path / "cnndm.csv"
    csv.write_text("id,article,highlights\nc1,An  article.,A highlight.\n")
    assert P.load_cnndm(csv)[["pair_id", "text_a"]].values.tolist() == [["c1", "A highlight."]]
    csv.write_text("id,article\nc1,An article.\n")
    with pytest.raises(DataFormatError, match=r"lacks column\(s\) \['highlights'\]") as exc:
        P.load_cnndm(csv)
    _located(exc, csv, 1)


def test_nq_oracle(tmp_path):
    f = tmp_path / "nq-open-oracle.jsonl.gz"
    recs = [{"question": "who wrote it", "answers": ["Jane Austen"],
             "ctxs": [{"text": "x", "isgold": False}, {"text": "It was  written by Jane Austen.", "isgold": True}]},
            {"question": "no answer in passage", "answers": ["Paris"], "ctxs": [{"text": "Lyon.", "isgold": True}]},
            {"question": "substring only", "answers": ["US"], "ctxs": [{"text": "USA.", "isgold": True}]}]
    with gzip.open(f, "wt", encoding="utf-8") as out:
        out.write("\n".join(json.dumps(r) for r in recs) + "\n")
    assert P.read_nq_oracle(tmp_path) == [(1, "who wrote it", "It was written by Jane Austen.", "Jane Austen",
                                          ["jane austen"])]
    assert P.answer_pattern("U.S.").search("in the U.S. today")
    with gzip.open(f, "wt", encoding="utf-8") as out:
        out.write(json.dumps(recs[0]) + "\n[\n")
    with pytest.raises(DataFormatError, match="invalid JSON") as exc:
        P.read_nq_oracle(f)
    _located(exc, f, 2)


def test_pairs_file(tmp_path):
    f = tmp_path / "p.tsv"
    f.write_text("good\tbad\tq\nA fine text.\tA poor text.\ttext\n")
    df = P.load_pairs_file(f, text_a="good", text_b="bad", query="q")
    assert df.to_dict("records") == [{"pair_id": "0", "text_a": "A fine text.", "text_b": "A poor text.",
                                      "query": "text"}]
    j = tmp_path / "p.jsonl"
    j.write_text(json.dumps({"text_a": "a", "text_b": "b", "pair_id": 7}) + "\n")
    assert P.load_pairs_file(j).to_dict("records") == [{"pair_id": "7", "text_a": "a", "text_b": "b", "query": ""}]
    f.write_text("text_a\ttext_b\na\tb\textra\n")
    with pytest.raises(DataFormatError, match="3 tab-separated fields where the header has 2") as exc:
        P.load_pairs_file(f)
    _located(exc, f, 2)
    f.write_text("x\ty\na\tb\n")
    with pytest.raises(DataFormatError, match="missing column") as exc:
        P.load_pairs_file(f)
    _located(exc, f, 1)


def test_read_pairs_stsb_mrpc_generic(tmp_path):
    sts = tmp_path / "sts-dev.csv"
    sts.write_text('main-news\tfile\t2012\t1\t4.5\tA "man" runs.\tA man is running.\n')
    assert P.read_pairs(sts).to_dict("records") == [{"pair_id": "sts-dev.csv:1", "genre": "main-news", "score": 4.5,
                                                      "text_a": 'A "man" runs.', "text_b": "A man is running."}]
    mrpc = tmp_path / "msr.txt"
    mrpc.write_text("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n0\t1\t2\ta\tb\n")
    assert P.read_pairs(mrpc).to_dict("records") == [{"pair_id": "1-2", "score": 0.0, "text_a": "a", "text_b": "b"}]
    gen = tmp_path / "gen.tsv"
    gen.write_text("text_a\ttext_b\tscore\npair a\tpair b\t3\n")
    assert P.read_pairs(gen)["score"].tolist() == [3.0]
    gen.write_text("text_a\ttext_b\tscore\npair a\tpair b\thigh\n")
    with pytest.raises(DataFormatError, match="score 'high' is not a number") as exc:
        P.read_pairs(gen)
    _located(exc, gen, 2)
    gen.write_text("text_a\ttext_b\tscore\npair a\tpair b\n")
    with pytest.raises(DataFormatError, match="3 columns expected, got 2") as exc:
        P.read_pairs(gen)
    _located(exc, gen, 2)
    sts.write_text("main-news\tfile\t2012\t1\t4.5\ta\tb\nshort\t1\n")
    with pytest.raises(DataFormatError, match="at least 7 tab-separated columns") as exc:
        P.read_pairs(sts)
    _located(exc, sts, 2)


def test_read_sentences(tmp_path):
    txt = tmp_path / "s.txt"
    txt.write_text("First sentence.\n\nSecond one.\n")
    assert P.read_sentences(txt) == [("s.txt:1", "First sentence."), ("s.txt:2", "Second one.")]
    tsv = tmp_path / "t.tsv"
    tsv.write_text("id\ttext\nx\tHello.\n")
    assert P.read_sentences(tsv) == [("x", "Hello.")]
    gen = tmp_path / "gen.tsv"
    gen.write_text("pair_id\ttext_a\ttext_b\tscore\np1\ta\tb\t1\n")
    assert P.read_sentences(gen) == [("p1:a", "a"), ("p1:b", "b")]
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    with pytest.raises(DataFormatError, match="empty sentences file") as exc:
        P.read_sentences(empty)
    _located(exc, empty, 1)


def test_wikiqa(tmp_path):
    d = tmp_path / "derived"
    d.mkdir()
    (d / "corpus.tsv").write_text("sentence_id\tsentence\ns1\tThe sky is blue.\n")
    for s in ("train", "dev", "test"):
        (d / f"queries.{s}.tsv").write_text(f"query_id\tquestion\nq-{s}\tWhat colour is the sky?\n")
        (d / f"qrels.{s}.trec").write_text(f"q-{s} 0 s1 1\n")
    w = P.load_wikiqa(tmp_path)
    assert w.name == "wikiqa" and w.corpus == {"s1": "The sky is blue."}
    assert w.train_queries.to_dict("records") == [{"query_id": "q-train", "text": "What colour is the sky?"}]
    assert w.dev_queries["query_id"].tolist() == ["q-dev"] and len(w.qrels) == 3
    (d / "queries.dev.tsv").write_text("id\tquestion\nq\tx\n")
    with pytest.raises(DataFormatError, match=r"missing column\(s\) \['query_id'\]") as exc:
        P.load_wikiqa(tmp_path)
    _located(exc, d / "queries.dev.tsv", 1)


def test_the_readers_module_imports_no_analysis():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(P))
    names = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    analyses = ("asl", "probes", "neighbors", "regimes", "explain", "cli", "drive", "experiment", "demo")
    assert not [m for m in names if m.lstrip(".").split(".")[0] in analyses], names
