"""Stored δ only reused on the same collection; typo lists from the data folder (read once);
per-model ``--delta`` and ``--plot-diffs`` on the CLI; probe plots take only the Result."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from matplotlib.figure import Figure

from ranklens.cli import main
from ranklens.engine import ScoringEngine
from ranklens.io.collection import Collection, DocStore
from ranklens.probes import delta_sweep, get_probe, plot_delta_sweep, plot_diff_distributions
from ranklens.probes import run as probe_run
from ranklens.probes import run_probes
from ranklens.probes.base import probe_rng
from ranklens.probes.delta import collection_fingerprint
from ranklens.rankers.base import FunctionRanker
from ranklens.results import Result


def _len_ranker(qs, ts):
    return np.array([len(t.split()) for t in ts], dtype=np.float64)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _other(tiny, name="tiny"):
    """The same collection with longer documents (same name, other content)."""
    docs = {d: t + " " + " ".join(["extra words here"] * (i + 1))
            for i, (d, t) in enumerate(sorted(tiny.docs.items()))}
    return Collection(name=name, docs=DocStore(docs, name=name), queries=tiny.queries,
                      qrels=tiny.qrels)


def test_collection_fingerprint_is_content_based(tiny):
    from ranklens.testing import tiny_collection

    a = collection_fingerprint(tiny)
    assert a == collection_fingerprint(tiny_collection())  # same content, loaded again
    assert a["name"] == "tiny" and len(a["sha256"]) == 64
    assert collection_fingerprint(_other(tiny))["sha256"] != a["sha256"]
    assert collection_fingerprint(None) is None


def test_stored_delta_is_reused_only_on_the_same_collection(tiny, tmp_path, monkeypatch):
    lr = FunctionRanker(fn=_len_ranker, name_="len")
    calls = []
    real = probe_run.calibrate_delta

    def counting(ranker, collection, **kw):
        if kw["spec"].mode != "explicit":  # explicit δ: returned as given, nothing calibrated
            calls.append(collection_fingerprint(collection)["sha256"])
        return real(ranker, collection, **kw)

    monkeypatch.setattr(probe_run, "calibrate_delta", counting)
    kw = {"delta": "calibrate", "engine": ScoringEngine(cache=False), "out_dir": tmp_path}
    first = run_probes(["tr-shuffle-words"], {"len": lr}, tiny, **kw)
    assert len(calls) == 1
    again = run_probes(["tr-shuffle-words"], {"len": lr}, tiny, **kw)
    assert len(calls) == 1  # same spec, same collection: the stored δ
    assert again.summary["deltas"] == first.summary["deltas"]
    other = _other(tiny)  # same name, different documents
    moved = run_probes(["tr-shuffle-words"], {"len": lr}, other, **kw)
    assert len(calls) == 2 and calls[1] == collection_fingerprint(other)["sha256"]
    assert moved.summary["deltas"]["len"] != first.summary["deltas"]["len"]
    d = moved.tables["deltas"].set_index("model")
    assert d.loc["len", "calibration_collection"] == "tiny"
    assert d.loc["len", "calibration_sha256"] == collection_fingerprint(other)["sha256"]
    prov = moved.provenance.params["deltas"]["len"]["calibration_collection"]
    assert prov == collection_fingerprint(other)
    # explicit δ: no collection involved, nothing to recalibrate
    run_probes(["tr-shuffle-words"], {"len": lr}, tiny, delta=0.5,
               engine=ScoringEngine(cache=False), out_dir=tmp_path)
    assert len(calls) == 2


def test_typo_probe_uses_the_data_dir_list_and_records_it(tiny, tmp_path):
    mis = tmp_path / "data" / "misspellings" / "aspell_bench"
    mis.mkdir(parents=True)
    (mis / "common-all.batch0.tab").write_text("kats\tcats\nfelins\tfelines\n")
    p = get_probe("tr-typo", data_dir=str(tmp_path / "data"), cap=None)
    assert p.misspellings == str(mis / "common-all.batch0.tab")
    out = p.generate(tiny, rng=probe_rng(0, p.name))
    d1 = [s for s in out.samples if s.doc_2_id == "d1"][0]
    assert d1.text_1 == "Kats are small domesticated felins. Kats purr when content."
    assert out.info["typo_list"] == str(mis / "common-all.batch0.tab")
    assert out.info["typo_list_words"] == 2 and len(out.info["typo_list_sha256"]) == 64
    # without misspellings/ in the data dir: the character-level fallback, recorded as such
    fb = get_probe("tr-typo", data_dir=str(tmp_path), cap=None)
    assert fb.misspellings is None
    assert fb.generate(tiny, rng=probe_rng(0, fb.name)).info["typo_source"].startswith("char")
    # an explicit choice wins over the data dir
    forced = get_probe("tr-typo", data_dir=str(tmp_path / "data"), misspellings="char")
    assert forced.misspellings is None
    with pytest.raises(Exception, match="misspellings='nope.tab': no such file"):
        get_probe("tr-typo", misspellings="nope.tab")


def test_typo_list_is_read_once_per_probe(tiny, tmp_path, monkeypatch):
    from ranklens.probes import typos

    f = tmp_path / "m.tab"
    f.write_text("kats\tcats\nfelins\tfelines\ndawg\tdog\n")
    calls = []
    real = typos.load_misspellings
    monkeypatch.setattr(typos, "load_misspellings", lambda *a, **k: calls.append(a) or real(*a, **k))
    p = get_probe("tr-typo", misspellings=str(f), cap=None)
    out = p.generate(tiny, rng=probe_rng(0, p.name))
    assert len({s.doc_2_id for s in out.samples}) >= 2  # several documents rewritten ...
    assert len(calls) == 1  # ... from one read of the list


@pytest.mark.realdata
def test_typo_probe_default_list_from_shared_data(tiny, shared_data):
    p = get_probe("tr-typo", data_dir=str(shared_data), cap=None)
    assert p.misspellings.endswith("misspellings/aspell_bench/common-all.batch0.tab")


def _coll(tmp_path):
    coll = tmp_path / "c"
    coll.mkdir()
    texts = ["Cats purr. Cats sleep a lot in the sun.",
             "Dogs bark at night. Dogs guard the house.",
             "Cats and dogs can live together in one house.",
             "A house with a garden suits dogs. Dogs need long walks every day.",
             "Old cats sleep more. Young cats play with string and chase dogs.",
             "The house of my aunt has three cats, two dogs and a parrot.",
             "Stray dogs roam the streets of the old town near the house."]
    # documents without the query words, so that BM25's idf of "cats"/"dogs" stays positive
    texts += [f"Filler text number {i} about weather, trains and tea." for i in range(10)]
    (coll / "docs.jsonl").write_text("".join(
        f'{{"doc_id": "d{i}", "text": "{t}"}}\n' for i, t in enumerate(texts, 1)))
    (coll / "queries.tsv").write_text("query_id\ttext\nq1\tcats\nq2\tdogs house\n")
    (coll / "qrels.trec").write_text("q1 0 d1 2\nq1 0 d3 1\nq1 0 d2 0\nq2 0 d2 2\nq2 0 d3 1\n")
    return coll


def test_cli_per_model_delta_and_diff_plot(tmp_path, capsys):
    coll, out = _coll(tmp_path), tmp_path / "out"
    args = ["probe", "--collection", str(coll), "--probe", "tr-shuffle-*",
            "--ranker", "a=toy", "--ranker", "b=bm25", "--out", str(out)]
    assert main([*args, "--delta", "0.25", "--delta", "b=2", "--plot-diffs"]) == 0
    res = Result.load(out / "probe-table")
    assert res.summary["deltas"] == {"a": 0.25, "b": 2.0}
    assert set(res.table[res.table.model == "b"]["delta"]) == {2.0}
    png = out / "probe-table" / "diff_distributions.png"
    assert png.is_file() and png.read_bytes()[:4] == b"\x89PNG"
    capsys.readouterr()
    # only per-model values: the others are calibrated on --collection
    assert main([*args, "--delta", "a=0.1", "--plot-diffs", str(tmp_path / "d.png")]) == 0
    res = Result.load(out / "probe-table")
    d = res.tables["deltas"].set_index("model")
    assert d.loc["a", "delta"] == 0.1 and d.loc["a", "mode"] == "explicit"
    assert d.loc["b", "mode"] == "calibrate" and d.loc["b", "calibration_collection"] == "c"
    assert (tmp_path / "d.png").is_file()


def test_cli_delta_errors(tmp_path, capsys):
    coll = _coll(tmp_path)
    base = ["probe", "--collection", str(coll), "--probe", "tr-shuffle-words", "--ranker",
            "a=toy", "--out", str(tmp_path / "o")]
    assert main([*base, "--delta", "zz=0.1"]) == 1
    assert "no ranker is labelled 'zz' (rankers: a)" in capsys.readouterr().err
    assert main([*base, "--delta", "0.1", "--delta", "0.2"]) == 1
    assert "--delta given twice for every model" in capsys.readouterr().err
    assert main(["probe", "--probe", "demo-paraphrase", "--ranker", "a=toy", "--ranker",
                 "b=callable:ranklens.testing:OverlapRanker", "--delta", "a=0.1", "--out",
                 str(tmp_path / "o2")]) == 1
    assert "a calibrated delta (b) needs --collection" in capsys.readouterr().err
    assert main([*base, "--ranker", "b=toy", "--delta", "0"]) == 1
    assert "rankers 'a' and 'b' are the same model" in capsys.readouterr().err


def test_probe_plots_take_only_the_result(tiny):
    lr = FunctionRanker(fn=_len_ranker, name_="len")
    res = run_probes(["tr-shuffle-words", "tr-del-stops-punct"], {"len": lr}, tiny,
                     delta="calibrate", engine=ScoringEngine(cache=False))
    fig = plot_diff_distributions(res)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert isinstance(plot_delta_sweep(delta_sweep(res)), Figure)
    empty = dataclasses.replace(res, tables={**res.tables,
                                             "samples": res.tables["samples"].iloc[:0]})
    assert isinstance(plot_diff_distributions(empty), Figure)
    sweep = delta_sweep(res)
    assert isinstance(plot_delta_sweep(dataclasses.replace(sweep, table=sweep.table.iloc[:0])),
                      Figure)
    with pytest.raises(Exception, match="expected a 'probe-delta-sweep' result"):
        plot_delta_sweep(res)
