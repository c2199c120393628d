"""The paper's Table 4 from the CLI end to end: several checkpoints of one model (tiny
cross-encoders written here, one per seed) are probed with ``ranklens probes``, then
``ranklens probes seed-variance`` gives the square root of the mean variance per probe type. The
numbers are checked against a brute-force recomputation from the saved per-sample effects, and
one run per checkpoint gives the same table as one run with all of them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ranklens.cli import main
from ranklens.errors import ValidationError
from ranklens.probes import seed_variance, seed_variance_table
from ranklens.results import Result

PROBES = "mm-rel-ctrl-len,mm-tf-ctrl-rel,tr-shuffle-words,tr-del-stops-punct,demo-fluency,demo-paraphrase"
SEEDS = {"vb-s1": 1, "vb-s2": 2, "vb-s3": 3, "ep-s1": 11, "ep-s2": 12}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory, tiny_ce_dir):
    """Five checkpoints of the tiny cross-encoder: its weights moved by seeded noise (stand-ins for
    fine-tuning runs with different random seeds)."""
    import torch
    from transformers import BertForSequenceClassification, BertTokenizer

    out = {}
    for name, seed in SEEDS.items():
        d = tmp_path_factory.mktemp(name)
        m = BertForSequenceClassification.from_pretrained(tiny_ce_dir)
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for p in m.parameters():
                p.add_(0.5 * torch.randn(p.shape, generator=g))
        m.save_pretrained(d)
        BertTokenizer.from_pretrained(tiny_ce_dir).save_pretrained(d)
        out[name] = d
    return out


def _probe(out, ckpts, names, seed=0):
    args = ["-q", "probes", "--collection", "demo", "--probes", PROBES, "--cap", "12", "--sweep", "none",
            "--no-plots", "--delta", "0.001", "--seed", str(seed), "--out", str(out)]
    for n in names:
        args += ["--model", f"{n}=cross-encoder:{ckpts[n]}", "--model-param", f"{n}.max_length=128"]
    assert main(args) == 0
    return out / "probes-table"


def _brute(result_dirs, group):
    """sqrt(mean over probes of the ddof=1 variance across checkpoints of mean(effect)), x 100,
    per family, from the saved per-sample effects."""
    import pandas as pd

    rs = [Result.load(d) for d in result_dirs]
    s = pd.concat([r.tables["samples"] for r in rs])
    fam = pd.concat([r.table for r in rs]).drop_duplicates("probe").set_index("probe")["family"]
    out = {}
    for f in fam.unique():
        var = []
        for p in fam.index[fam == f]:
            scores = [s[(s.probe == p) & (s.model == m)]["effect"].mean() for m in group]
            var.append(np.var(scores, ddof=1))
        out[f] = 100 * float(np.sqrt(np.mean(var)))
    return out


def _table4(text):
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(MMP|TMP|DTP)\s+(\S+)\s+(\S+)$", line)
        if m:
            rows[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return rows


def test_table4_from_checkpoints_cli(tmp_path, checkpoints, capsys):
    one = _probe(tmp_path / "all", checkpoints, list(SEEDS))
    capsys.readouterr()
    assert main(["probes", "seed-variance", str(one.parent), "--models", "VBERT=vb-s*",
                 "--models", "EPIC=ep-s1,ep-s2", "--per-probe"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split() == ["Probes", "VBERT", "Stdev.", "EPIC", "Stdev."]
    got = _table4(text)
    assert set(got) == {"MMP", "TMP", "DTP"}
    vb = _brute([one], ["vb-s1", "vb-s2", "vb-s3"])
    ep = _brute([one], ["ep-s1", "ep-s2"])
    names = {"measure-match": "MMP", "manipulation": "TMP", "transfer": "DTP"}
    for fam, typ in names.items():
        assert got[typ][0] == pytest.approx(round(vb[fam], 1), abs=0.051)
        assert got[typ][1] == pytest.approx(round(ep[fam], 1), abs=0.051)
    assert any(v > 0 for v in vb.values())  # the checkpoints do differ
    assert "VBERT = vb-s1, vb-s2, vb-s3; EPIC = ep-s1, ep-s2" in text
    assert "tr-shuffle-words" in text  # the per-probe table
    # one run per checkpoint (same seed): the same VBERT column
    per = [_probe(tmp_path / n, checkpoints, [n]) for n in ("vb-s1", "vb-s2", "vb-s3")]
    capsys.readouterr()
    assert main(["probes", "seed-variance", *map(str, per), "--models", "vb-s1,vb-s2,vb-s3",
                 "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("| Probes | model Stdev. |")
    for typ in names.values():
        assert f"| {typ} | {got[typ][0]:.1f} |" in md
    # the Python function gives the unrounded numbers
    _pp, pf = seed_variance([Result.load(d) for d in per], ["vb-s1", "vb-s2", "vb-s3"])
    for r in pf.itertuples():
        assert 100 * r.std == pytest.approx(vb[r.family])
    assert "\\begin{tabular}" in seed_variance_table(Result.load(one), {"VBERT": ["vb-s*"]}, fmt="latex")


def test_seed_variance_errors(tmp_path, checkpoints, capsys):
    a = _probe(tmp_path / "a", checkpoints, ["vb-s1", "vb-s2"])
    b = _probe(tmp_path / "b", checkpoints, ["vb-s3"], seed=1)  # other samples
    ra, rb = Result.load(a), Result.load(b)
    with pytest.raises(ValidationError, match="scored on different samples"):
        seed_variance([ra, rb], ["vb-s1", "vb-s2", "vb-s3"])
    with pytest.raises(ValidationError, match="is in results 1 and 2"):
        seed_variance([ra, ra], ["vb-s1", "vb-s2"])
    with pytest.raises(ValidationError, match="at least two checkpoints"):
        seed_variance(ra, ["vb-s1"])
    with pytest.raises(ValidationError, match="'nope' of 'model' is not a model"):
        seed_variance(ra, ["vb-s1", "nope"])
    capsys.readouterr()
    assert main(["probes", "seed-variance", str(a), "--models", "vb-s1,vb-s2", "--models", "vb-s3,vb-s1"]) == 1
    assert "give each a name: NAME=A,B,C" in capsys.readouterr().err
