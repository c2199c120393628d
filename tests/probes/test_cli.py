from __future__ import annotations

from ranklens.cli import main
from ranklens.results import Result


def test_ls_probes(capsys):
    assert main(["ls", "probes", "--format", "tsv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "name\tfamily\tsymmetric\tdescription"
    names = {l.split("\t")[0] for l in out[1:]}
    assert {"mm-rel-ctrl-len", "tr-shuffle-words", "ds-paraphrase-mrpc", "pairs"} <= names


def test_ls_unknown_kind(capsys):
    assert main(["ls", "gizmos"]) == 1
    assert "unknown kind 'gizmos'" in capsys.readouterr().err


def test_probe_cli_toy_and_accumulate(tmp_path, capsys):
    coll = tmp_path / "c"
    coll.mkdir()
    (coll / "docs.jsonl").write_text(
        '{"doc_id": "d1", "text": "Cats purr. Cats sleep a lot in the sun."}\n'
        '{"doc_id": "d2", "text": "Dogs bark at night. Dogs guard the house."}\n'
        '{"doc_id": "d3", "text": "Cats and dogs can live together in one house."}\n')
    (coll / "queries.tsv").write_text("query_id\ttext\nq1\tcats\nq2\tdogs house\n")
    (coll / "qrels.trec").write_text("q1 0 d1 2\nq1 0 d3 1\nq1 0 d2 0\nq2 0 d2 2\nq2 0 d3 1\n")
    out = tmp_path / "out"
    args = ["probe", "--collection", str(coll), "--probe", "tr-shuffle-*,mm-rel-ctrl-len",
            "--delta", "0", "--out", str(out)]
    assert main([*args, "--ranker", "toy"]) == 0
    text = capsys.readouterr().out
    assert "tr-shuffle-words" in text and "toy" in text.splitlines()[0]
    res = Result.load(out / "probe-table")
    assert "toy" in set(res.table.model)


def test_probe_cli_errors(capsys):
    assert main(["probe", "--ranker", "toy", "--probe", "nosuch*", "--out", "/tmp/x"]) == 1
    assert "no probe matches 'nosuch*'" in capsys.readouterr().err
    assert main(["probe", "--ranker", "toy", "--probe", "mm-*", "--out", "/tmp/x"]) == 1
    assert "need --collection" in capsys.readouterr().err
