"""Every file regimes writes outside ``Result.save`` (split folders, annotation sheets, training
markers, the BM25 grid, checkpoints, fine-tuned model folders, the file tools' figures and tables)
goes through ``ranklens.files.atomic_output``: a disk error injected half-way through the write is
an ``OutputError`` naming the file and the fix, and no partial file is left (issue 31)."""

from __future__ import annotations

import errno
import os
import pathlib
from pathlib import Path

import pandas as pd
import pytest

from ranklens.errors import OutputError
from ranklens.regimes import INTERPOLATION, Split

from ._synth import synthetic


def _leftovers(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob(".*") if ".tmp" in p.name or ".old." in p.name)


def _full(kind: int = errno.ENOSPC) -> OSError:
    return OSError(kind, os.strerror(kind))


def _fail_text_write(monkeypatch, name: str, kind: int = errno.ENOSPC) -> None:
    """``Path.write_text`` of the temp file of ``name`` writes half its text, then fails with ``kind``."""
    real = pathlib.Path.write_text

    def write_text(self, data, *a, **k):
        if self.name.startswith(f".{name}."):
            real(self, data[: len(data) // 2], *a, **k)
            raise _full(kind)
        return real(self, data, *a, **k)

    monkeypatch.setattr(pathlib.Path, "write_text", write_text)


def _fail_to_csv(monkeypatch, name: str, kind: int = errno.EFBIG) -> None:
    """``DataFrame.to_csv`` into the temp file of ``name`` writes one row, then fails with ``kind``."""
    real = pd.DataFrame.to_csv

    def to_csv(self, path_or_buf=None, *a, **k):
        if not Path(str(path_or_buf)).name.startswith(f".{name}."):
            return real(self, path_or_buf, *a, **k)
        real(self.head(1), path_or_buf, *a, **k)  # part of the table went out
        raise _full(kind)

    monkeypatch.setattr(pd.DataFrame, "to_csv", to_csv)


def _split() -> Split:
    return Split(name="s", method="restrain", regimes={INTERPOLATION: (("a", "b"), ("c",)),
                                                       "extrapolation": (("d",), ("c",))})


def test_split_folder_disk_full_names_the_file_and_leaves_no_partial_file(tmp_path, monkeypatch):
    qrels = pd.DataFrame({"query_id": ["a", "c"], "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    d = tmp_path / "split"
    _fail_text_write(monkeypatch, "split.json")
    with pytest.raises(OutputError) as exc:
        _split().save(d, qrels=qrels)
    assert str(exc.value).startswith(f"{d / 'split.json'}: cannot write the split description: the disk is full")
    assert not (d / "split.json").exists() and _leftovers(tmp_path) == []
    monkeypatch.undo()
    # the qrels of a regime: half-written, then the file-size limit
    _fail_text_write(monkeypatch, "train_qrels.trec", errno.EFBIG)
    d2 = tmp_path / "split2"
    with pytest.raises(OutputError, match=r"train_qrels\.trec: cannot write the split qrels: the file-size limit"):
        _split().save(d2, qrels=qrels)
    assert not (d2 / INTERPOLATION / "train_qrels.trec").exists() and _leftovers(tmp_path) == []
    monkeypatch.undo()
    _fail_to_csv(monkeypatch, "similarity_stats.tsv")
    with pytest.raises(OutputError, match=r"similarity_stats\.tsv: cannot write the split similarity table"):
        _split().save(d, stats=pd.DataFrame({"regime": ["x", "y"], "v": [1.0, 2.0]}))
    assert not (d / "similarity_stats.tsv").exists() and _leftovers(tmp_path) == []
    monkeypatch.undo()
    # written whole, it reads back the same
    _split().save(d, qrels=qrels)
    back = Split.load(d)
    assert back.train_ids(INTERPOLATION) == ("a", "b") and back.test_ids("extrapolation") == ("c",)
    assert (d / INTERPOLATION / "train_qrels.trec").read_text() == "a 0 d1 1\n"


def test_annotation_sheet_and_near_duplicates_disk_errors_are_located(tmp_path, monkeypatch, capsys):
    from ranklens.regimes import export_annotation_sheet, query_similarity

    tq, eq, _, _ = synthetic(n_topics=2, docs_per_topic=2, per_doc=2)
    sim = query_similarity(eq, tq, method="bm25", k=3)
    sheet = tmp_path / "sheet.csv"
    _fail_to_csv(monkeypatch, "sheet.csv")
    with pytest.raises(OutputError) as exc:
        export_annotation_sheet(sim, eq, tq, sheet)
    assert str(exc.value).startswith(f"{sheet}: cannot write the annotation sheet: the file-size limit was reached")
    assert not sheet.exists() and _leftovers(tmp_path) == []
    # the file tool: one line naming the table, exit 1, no half file
    tr, te = tmp_path / "tr.tsv", tmp_path / "te.tsv"
    tr.write_text("".join(f"{q}\t{t}\n" for q, t in zip(tq["query_id"], tq["text"])), encoding="utf-8")
    te.write_text("".join(f"{q}\t{t}\n" for q, t in zip(eq["query_id"], eq["text"])), encoding="utf-8")
    from ranklens.cli import main

    _fail_to_csv(monkeypatch, "near_duplicates.tsv")
    out = tmp_path / "diag"
    rc = main(["regimes", "--out", str(out), "diagnose", "--train-queries", str(tr), "--test-queries", str(te),
               "--similarity", "bm25", "--no-plots", "--near-dup-threshold", "0"])
    err = capsys.readouterr().err
    assert rc == 1 and f"{out / 'near_duplicates.tsv'}: cannot write the near-duplicates table" in err
    assert "Traceback" not in err and not (out / "near_duplicates.tsv").exists() and _leftovers(tmp_path) == []


def test_a_figure_of_the_file_tools_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ranklens.regimes.tools import _save_figure

    fig = plt.figure()
    real = fig.savefig

    def savefig(fname, *a, **k):
        Path(fname).write_bytes(b"\x89PNG half")
        raise _full()

    monkeypatch.setattr(fig, "savefig", savefig)
    path = tmp_path / "pca.png"
    with pytest.raises(OutputError, match=r"pca\.png: cannot write the figure: the disk is full"):
        _save_figure(fig, path)
    assert not path.exists() and _leftovers(tmp_path) == [] and not plt.fignum_exists(fig.number)
    fig2 = plt.figure()
    _save_figure(fig2, path)
    assert path.read_bytes()[:4] == b"\x89PNG" and real is not None


def test_training_marker_and_grid_disk_errors_leave_no_partial_file(tmp_path, monkeypatch):
    from ranklens.regimes.trainers import BM25Trainer, _write_done

    _fail_text_write(monkeypatch, "done.json")
    with pytest.raises(OutputError, match=r"done\.json: cannot write the training marker: the disk is full"):
        _write_done(tmp_path / "v", {"trainer": "x", "k1": 0.9})
    assert not (tmp_path / "v" / "done.json").exists() and _leftovers(tmp_path) == []
    monkeypatch.undo()
    tq, _, qrels, corpus = synthetic(n_topics=2, docs_per_topic=2, per_doc=1)
    _fail_to_csv(monkeypatch, "grid.tsv")
    with pytest.raises(OutputError, match=r"grid\.tsv: cannot write the BM25 grid table"):
        BM25Trainer(k1_grid=(0.9,), b_grid=(0.4,), grid_depth=5).train(tq, qrels, corpus, output_dir=tmp_path / "g")
    assert not (tmp_path / "g" / "grid.tsv").exists() and not (tmp_path / "g" / "done.json").exists()
    assert _leftovers(tmp_path) == []


def test_checkpoint_disk_full_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    from ranklens.regimes import optimise

    model = torch.nn.Linear(2, 2)
    opt = torch.optim.AdamW(model.parameters())
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
    ckpt = tmp_path / optimise.CHECKPOINT_DIR / "state.pt"
    optimise._save_checkpoint(ckpt, model, opt, sched, 1, [0.5], 4)
    real = torch.save

    def save(obj, f, *a, **k):
        Path(f).write_bytes(b"PK\x03\x04half")
        raise _full()

    monkeypatch.setattr(torch, "save", save)
    with pytest.raises(OutputError) as exc:
        optimise._save_checkpoint(ckpt, model, opt, sched, 2, [0.5, 0.4], 4)
    assert str(exc.value).startswith(f"{ckpt}: cannot write the training checkpoint: the disk is full")
    assert _leftovers(tmp_path) == []
    monkeypatch.setattr(torch, "save", real)
    tensors, meta = optimise._load_checkpoint(ckpt, 4)
    assert meta["step"] == 1 and int(tensors["step"]) == 1  # the step-1 checkpoint, whole


def test_a_fine_tuned_model_folder_is_renamed_into_place_whole(tmp_path):
    from ranklens.regimes.finetune import _save_model

    class Model:  # writes its folder as sentence-transformers does: several files
        def __init__(self, fail: bool) -> None:
            self.fail = fail

        def save(self, path: str) -> None:
            Path(path, "config.json").write_text("{}")
            if self.fail:
                Path(path, "model.safetensors").write_bytes(b"half")
                raise _full()
            Path(path, "model.safetensors").write_bytes(b"weights")

    target = tmp_path / "v" / "model"
    with pytest.raises(OutputError) as exc:
        _save_model(Model(fail=True), target)
    assert str(exc.value).startswith(f"{target}: cannot write the fine-tuned model directory: the disk is full")
    assert not target.exists() and _leftovers(tmp_path) == []
    _save_model(Model(fail=False), target)
    assert sorted(p.name for p in target.iterdir()) == ["config.json", "model.safetensors"]
    assert _leftovers(tmp_path) == []
