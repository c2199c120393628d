"""``ranklens evaluate`` as a drop-in for the ir_measures CLI and trec_eval (issues 30, 31):
byte-equal single-run output, ``-`` as a run read from stdin, trec_eval's count measures (summed;
``--rel`` as ``-l``), the float32 rule, warnings only about what was asked, and ``ranklens asl``'s
baseline rule."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest

from ranklens.cli import main

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d5 1\nq3 0 d7 0\n"
RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\nq2 Q0 d9 1 1.0 r\nq2 Q0 d5 2 0.5 r\n"


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], input=stdin, capture_output=True, timeout=300)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path


@pytest.mark.realdata
def test_single_run_output_is_byte_equal_to_the_ir_measures_cli(shared_data):
    qrels = shared_data / "trec_dl_msmarco_passage" / "qrels.dl19-passage.txt"
    run = shared_data / "trec_dl_runs" / "official" / "dl19" / "TUA1-1.top100.run.gz"  # ragged: 5 docs for a query
    measures = ["AP nDCG@10", "P@10", "RR", "R@100", "NumRet", "NumQ", "NumRel", "NumRelRet", "Bpref", "Rprec"]
    for extra in ([], ["-p", "6"]):
        ours = _cli("ranklens", "evaluate", str(qrels), str(run), *measures, *extra)
        peer = _cli("ir_measures", str(qrels), str(run), *measures, *extra)
        assert ours.returncode == 0 and peer.returncode == 0, ours.stderr
        assert ours.stdout == peer.stdout
        assert len(ours.stdout.splitlines()) == 11
    assert b"ASL" not in ours.stderr and b"eq. 3" not in ours.stderr  # no ASL warning: ASL was not asked


@pytest.mark.realdata
def test_per_query_rows_come_in_the_run_order_as_the_ir_measures_cli_prints_them(shared_data, tmp_path):
    """--per-query lists the queries in the order the run first lists them (ir_measures prints
    pytrec_eval's dict order, which is the run's): a DL19 run with its query blocks reversed gives
    the same query order and the same values as the ir_measures CLI, one measure at a time."""
    qrels = shared_data / "trec_dl_msmarco_passage" / "qrels.dl19-passage.txt"
    lines = gzip.decompress((shared_data / "trec_dl_runs" / "official" / "dl19" / "TUA1-1.top100.run.gz")
                            .read_bytes()).decode().splitlines(keepends=True)
    blocks: dict[str, list[str]] = {}
    for ln in lines:
        blocks.setdefault(ln.split()[0], []).append(ln)
    run = tmp_path / "reversed.run"
    run.write_text("".join(ln for q in reversed(list(blocks)) for ln in blocks[q]))
    for measure in ("AP", "nDCG@10"):
        ours = _cli("ranklens", "evaluate", str(qrels), str(run), measure, "--per-query")
        peer = _cli("ir_measures", str(qrels), str(run), measure, "-q")
        assert ours.returncode == 0 and peer.returncode == 0, ours.stderr
        assert ours.stdout == peer.stdout
        order = [ln.split(b"\t")[0].decode() for ln in ours.stdout.splitlines()[:-1]]
        assert order == [q for q in reversed(list(blocks)) if q in order]  # not sorted: the run's order
        assert order != sorted(order)


@pytest.mark.realdata
def test_per_query_measures_within_a_query_come_as_the_ir_measures_cli_prints_them(shared_data):
    """Within a query ir_measures prints its pytrec_eval measures in trec_eval's order (cut-offs
    ascending), whatever order they were given in: byte-equal on a DL19 run, measures shuffled."""
    qrels = shared_data / "trec_dl_msmarco_passage" / "qrels.dl19-passage.txt"
    run = shared_data / "trec_dl_runs" / "official" / "dl19" / "TUA1-1.top100.run.gz"
    measures = ["nDCG@10 P@10 RR", "Rprec", "P@5", "AP", "R@100", "nDCG", "NumRet", "Bpref", "nDCG@5", "AP@10"]
    ours = _cli("ranklens", "evaluate", str(qrels), str(run), *measures, "--per-query")
    peer = _cli("ir_measures", str(qrels), str(run), *measures, "-q")
    assert ours.returncode == 0 and peer.returncode == 0, ours.stderr
    assert ours.stdout == peer.stdout
    first = [ln.split(b"\t")[1].decode() for ln in ours.stdout.splitlines()[:12]]
    assert first[:4] == ["NumRet", "AP", "Rprec", "Bpref"] and first.index("P@5") < first.index("P@10")


def test_per_query_order_puts_trec_eval_measures_first_and_the_rest_as_given(files, capsys):
    """The rule by hand: trec_eval's table order for its measures (AP before RR before P@k, P@1
    before P@2, nDCG before nDCG@k), then ASL and other measures in the order given."""
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "ASL", "P@2", "nDCG@2", "RR",
                 "P@1", "ASL@g1-1", "AP", "--per-query", "-n"]) == 0
    rows = [ln.split("\t") for ln in capsys.readouterr().out.strip().splitlines()]
    assert [r[0] for r in rows[:7]] == ["q1"] * 7
    assert [r[1] for r in rows[:7]] == ["AP", "RR", "P@1", "P@2", "nDCG@2", "ASL", "ASL@g1-1"]


def test_dash_reads_the_run_from_stdin(files):
    want = _cli("ranklens", "evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "AP", "P@2")
    got = _cli("ranklens", "evaluate", str(files / "qrels.txt"), "-", "AP", "P@2", stdin=gzip.compress(RUN.encode()))
    assert want.returncode == got.returncode == 0, got.stderr
    assert got.stdout == want.stdout
    # q1: d1, d3 relevant at ranks 1 and 3 -> (1 + 2/3) / 2; q2: d5 at rank 2 -> 1/2; q3 not in the run: left out
    name, value = got.stdout.decode().splitlines()[0].split("\t")
    assert name == "AP" and float(value) == pytest.approx(((1 + 2 / 3) / 2 + 0.5) / 2, abs=5e-5)


def _rows(out: str) -> dict[str, float]:
    return {m: float(v) for m, v in (ln.split("\t") for ln in out.strip().splitlines())}


def test_count_measures_are_summed_and_rel_is_trec_eval_l(files, capsys):
    q, r = str(files / "qrels.txt"), str(files / "run.txt")
    assert main(["evaluate", q, r, "NumQ", "NumRet", "NumRel", "NumRelRet", "AP"]) == 0
    got = _rows(capsys.readouterr().out)
    # skip (the default): q3 is judged but not in the run -> 2 queries evaluated
    assert got == pytest.approx({"NumQ": 2, "NumRet": 5, "NumRel": 3, "NumRet(rel=1)": 3,
                                 "AP": ((1 + 2 / 3) / 2 + 0.5) / 2}, abs=5e-5)
    assert main(["evaluate", q, r, "NumQ", "NumRet", "NumRel", "NumRelRet", "--rel", "2"]) == 0
    # -l 2: only d3 counts as relevant; NumRet is still every retrieved document
    assert _rows(capsys.readouterr().out) == {"NumQ": 2, "NumRet": 5, "NumRel(rel=2)": 1, "NumRet(rel=2)": 1}
    assert main(["evaluate", q, r, "NumQ", "NumRet", "NumRel", "--missing", "zero"]) == 0
    # trec_eval -c: q3 counts as a query, with its judgments (none relevant) and nothing retrieved
    assert _rows(capsys.readouterr().out) == {"NumQ": 3, "NumRet": 5, "NumRel": 3}


@pytest.mark.realdata
@pytest.mark.parametrize("expected,qrels,run,extra", [
    ("out.test", "qrels.test", "results.test", []),
    ("out.test.aql", "qrels.rel_level", "results.test", ["--rel", "2"]),
    ("out.test.aqc", "qrels.test", "results.trunc", ["--missing", "zero"]),
])
def test_trec_eval_count_rows(shared_data, tmp_path, capsys, expected, qrels, run, extra):
    base = shared_data / "trec_eval_tests"
    want = {}
    for line in (base / "v9.0.8_expected" / expected).read_text().splitlines():
        name, qid, value = line.split()
        if qid == "all" and name in ("num_q", "num_ret", "num_rel", "num_rel_ret"):
            want[name] = float(value)
    run_path = base / "test" / run
    if run == "results.trunc":  # trailing junk words trec_eval ignores; ranklens's reader refuses them
        run_path = tmp_path / run
        run_path.write_text("".join(" ".join(ln.split()[:6]) + "\n"
                                    for ln in (base / "test" / run).read_text().splitlines() if ln.strip()))
    assert main(["evaluate", str(base / "test" / qrels), str(run_path), "NumQ", "NumRet", "NumRel", "NumRelRet",
                 *extra]) == 0
    got = list(_rows(capsys.readouterr().out).values())
    assert len(want) == 4 and got == [want["num_q"], want["num_ret"], want["num_rel"], want["num_rel_ret"]]


def test_float32_rule_is_a_warning_not_a_numpy_overflow(tmp_path):
    (tmp_path / "q").write_text("q1 0 d2 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 1e39 r\nq1 Q0 d2 2 5e38 r\nq1 Q0 d3 3 1 r\n")
    # trec_eval reads both huge scores into a C float: +inf, a tie broken by doc id descending -> d2 first
    out = subprocess.run([sys.executable, "-W", "error", "-m", "ranklens", "evaluate", str(tmp_path / "q"),
                          str(tmp_path / "r"), "RR"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "RR\t1.0000\n"
    assert "2 score(s) beyond float32's range" in out.stderr and "--ties float64" in out.stderr
    assert "RuntimeWarning" not in out.stderr and "overflow" not in out.stderr
    exact = _cli("ranklens", "evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "RR", "--ties", "float64")
    assert exact.stdout == b"RR\t0.5000\n" and b"float32" not in exact.stderr


def test_asl_warnings_only_when_asl_is_asked(tmp_path, capsys):
    # q1's relevant d9 is unretrieved behind 0 non-relevant documents: eq. 3 gives SL 0 (an ASL matter)
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d9 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\n")
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "AP"]) == 0
    assert "eq. 3" not in capsys.readouterr().err
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "AP", "ASL"]) == 0
    assert "eq. 3" in capsys.readouterr().err


def test_help_documents_the_missing_query_policy(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "zero-fills" in out and "--missing zero" in out and "--per-query" in out and "float32" in out


@pytest.mark.filterwarnings("ignore:Precision loss occurred")  # scipy's t-test on 2 queries with equal values
def test_asl_baseline_is_the_deepest_run_not_the_first_name(tmp_path, capsys):
    import json

    # "a_shallow" lists 1 document per query, "b_deep" 3: alphabetically first would be the shallow one
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d3 1\nq2 0 d5 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a_shallow.run").write_text("q1 Q0 d1 1 3 a\nq2 Q0 d4 1 3 a\n")
    deep = "q1 Q0 d2 1 3 b\nq1 Q0 d1 2 2 b\nq1 Q0 d3 3 1 b\nq2 Q0 d5 1 3 b\nq2 Q0 d4 2 2 b\nq2 Q0 d6 3 1 b\n"
    (runs / "b_deep.run").write_text(deep)
    (runs / "c_deep.run").write_text("q1 Q0 d1 1 3 c\nq1 Q0 d3 2 2 c\nq1 Q0 d2 3 1 c\nq2 Q0 d4 1 3 c\n"
                                     "q2 Q0 d6 2 2 c\nq2 Q0 d5 3 1 c\n")
    out = tmp_path / "out"
    assert main(["-q", "asl", "--qrels", str(tmp_path / "qrels.txt"), "--runs", str(runs), "--out", str(out),
                 "--no-plots", "--n-resamples", "50"]) == 0
    err = capsys.readouterr().err
    summary = json.loads((out / "asl-evaluate" / "result.json").read_text())["summary"]
    assert summary["baseline"] == "b_deep"  # the deepest, first given among the equally deep
    lines = [ln for ln in err.splitlines() if ln.startswith("ranklens: warning: asl-evaluate")]
    assert "runs of different depths" in lines[0] and "baseline 'b_deep'" in lines[1]  # the first lines
    assert main(["-q", "asl", "--qrels", str(tmp_path / "qrels.txt"), "--runs", str(runs), "--out",
                 str(tmp_path / "o2"), "--no-plots", "--n-resamples", "50", "--baseline", "a_shallow"]) == 0
    summary = json.loads((tmp_path / "o2" / "asl-evaluate" / "result.json").read_text())["summary"]
    assert summary["baseline"] == "a_shallow"  # named explicitly: as named


def test_peer_format_refuses_columns_it_has_no_place_for(files, capsys):
    q, r = str(files / "qrels.txt"), str(files / "run.txt")
    assert main(["evaluate", q, r, "AP", "-o", "tsv", "--ci"]) == 1
    assert "--ci add columns" in capsys.readouterr().err
    assert main(["evaluate", q, r, "AP", "--ci", "--n-resamples", "50"]) == 0  # tsv by default then
    assert capsys.readouterr().out.startswith("model\tmeasure\tvalue\tci_low\tci_high\n")


def test_inputs_are_hashed_when_the_result_is_kept(files, tmp_path, capsys):
    import json

    from ranklens.asl import evaluate

    q, r = files / "qrels.txt", files / "run.txt"
    assert main(["evaluate", str(q), str(r), "AP", "--out", str(tmp_path / "res")]) == 0
    meta = json.loads(next((tmp_path / "res").rglob("result.json")).read_text())
    assert all(v.startswith("sha256:") for v in meta["provenance"]["inputs"].values())
    # printed only (no --out): the CLI skips hashing; the library records the paths it did not hash
    res = evaluate(q, {"run": r}, ["AP"], hash_inputs=False)
    assert res.provenance.inputs == {"run:run": f"unhashed:{r}", "qrels": f"unhashed:{q}"}


def test_no_summary_without_per_query_is_an_error(files, capsys):
    """ir_measures crashes on -n without -q; ranklens refused nothing and printed the summary
    anyway: now a one-line error naming the fix, exit 2 (an ignored option)."""
    from ranklens.cli import main

    assert main(["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "AP", "-n"]) == 2
    err = capsys.readouterr().err
    assert "-n/--no_summary" in err and "add --per-query" in err and "Traceback" not in err
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "AP", "-n", "--per-query"]) == 0
    assert "all\t" not in capsys.readouterr().out


@pytest.mark.parametrize("extra,needle", [
    (["--confidence", "0.9"], "--confidence: ignored unless --ci is given"),
    (["--correction", "bonferroni"], "--correction: ignored unless --baseline is given"),
    (["--n-resamples", "50"], "--n-resamples: ignored unless --ci or --baseline is given"),
    (["--seed", "3"], "--seed: ignored unless --ci or --baseline is given"),
    (["--show-depth", "--per-query"], "--show-depth: ignored with --per-query"),
    (["-n"], "-n/--no_summary"),
])
def test_an_option_evaluate_would_not_read_exits_2_naming_it(files, capsys, extra, needle):
    """Options that only --ci, --baseline or the depth table read were accepted and did nothing."""
    assert main(["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "AP", *extra]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_the_same_options_are_read_where_they_apply(tmp_path, capsys):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(8)))
    run.write_text("".join(f"q{i} Q0 x 1 2.0 r\nq{i} Q0 d{i} {1 + i % 4} 1.0 r\n" if i % 4 else
                           f"q{i} Q0 d{i} 1 2.0 r\n" for i in range(8)))
    args = ["evaluate", str(qrels), str(run), "AP", "--ci"]
    assert main([*args, "--confidence", "0.5", "--seed", "3", "--n-resamples", "200"]) == 0
    narrow = capsys.readouterr().out
    assert main([*args, "--confidence", "0.99", "--seed", "3", "--n-resamples", "200"]) == 0
    assert capsys.readouterr().out != narrow  # the level was read: the interval changed
