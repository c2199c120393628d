"""Inference backends (ranklens.backends): validation, fingerprints, the ONNX cache, ONNX vs
PyTorch scores on a tiny cross-encoder, and the agreement measure against hand-made references."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.backends import BACKENDS, agreement, embedding_agreement, onnx_model_path
from ranklens.errors import RanklensWarning, ValidationError
from ranklens.rankers import BiEncoderRanker, CrossEncoderRanker
from ranklens.specs import make_ranker

QS = ["cats felines", "python programming", "cats felines", "weather sunny"]
TS = ["cats are small felines . cats purr", "python is a programming language", "dogs bark", "the weather is sunny"]


@pytest.mark.parametrize("make", [
    lambda **kw: CrossEncoderRanker(model="x", **kw),
    lambda **kw: BiEncoderRanker(**kw),
    lambda **kw: make_ranker("minilm", **kw),
])
def test_bad_backend_names_the_parameter_and_the_allowed_values(make):
    with pytest.raises(ValidationError) as exc:
        make(backend="onnx8")
    msg = str(exc.value)
    assert "backend" in msg and "'onnx8'" in msg and all(repr(b) in msg for b in BACKENDS)
    with pytest.raises(ValidationError, match="precision='fp32'"):
        make(backend="onnx", precision="bf16")
    with pytest.raises(ValidationError, match="CPU"):
        make(backend="onnx-int8", device="cuda")


def test_fingerprint_differs_per_backend(tiny_ce_dir):
    fps = {b: CrossEncoderRanker(model=str(tiny_ce_dir), backend=b).fingerprint for b in BACKENDS}
    assert len(set(fps.values())) == len(BACKENDS)
    assert fps["torch"] == CrossEncoderRanker(model=str(tiny_ce_dir)).fingerprint  # the default is torch
    bi = {b: BiEncoderRanker(backend=b).fingerprint for b in BACKENDS}
    assert len(set(bi.values())) == len(BACKENDS)


def test_torch_default_keeps_the_fingerprint_from_before_the_backend_field(tiny_ce_dir):
    """The payload built by hand as before the ``backend`` field (29c98de): fp32 PyTorch models
    keep their fingerprint (and their cached scores); the other backends are distinct."""
    from ranklens._hashing import sha256_json
    from ranklens.embedders import SentenceTransformerEmbedder
    from ranklens.neural import model_revision

    def old(name, cls, params, extra):
        return f"{name}@{sha256_json({'class': cls, 'params': params, 'extra': extra})[:16]}"

    rev = model_revision(str(tiny_ce_dir))
    ce = old("CrossEncoderRanker", "ranklens.rankers.cross_encoder.CrossEncoderRanker",
             {"model": str(tiny_ce_dir), "max_length": 512, "positive_label": 1, "precision": "fp32", "device": None,
              "batch_size": 32}, {"revision": rev, "precision": "fp32"})
    assert CrossEncoderRanker(model=str(tiny_ce_dir)).fingerprint == ce
    assert CrossEncoderRanker(model=str(tiny_ce_dir), backend="torch").fingerprint == ce
    assert CrossEncoderRanker(model=str(tiny_ce_dir), backend="onnx").fingerprint != ce
    emb = SentenceTransformerEmbedder(model=str(tiny_ce_dir))
    st = old("SentenceTransformerEmbedder", "ranklens.embedders.sentence_transformers.SentenceTransformerEmbedder",
             {"model": str(tiny_ce_dir), "device": None, "precision": "fp32", "normalize": True, "batch_size": 32,
              "max_seq_length": None}, {"revision": rev, "precision": "fp32"})
    assert emb.fingerprint == st
    bi = old("BiEncoderRanker", "ranklens.rankers.biencoder.BiEncoderRanker",
             {"model": str(tiny_ce_dir), "similarity": "cosine", "device": None, "precision": "fp32",
              "max_seq_length": None, "batch_size": 32}, {"embedder": st, "precision": "fp32"})
    assert BiEncoderRanker(model=str(tiny_ce_dir)).fingerprint == bi
    assert BiEncoderRanker(model=str(tiny_ce_dir), backend="onnx-int8").fingerprint != bi


def test_export_path_is_in_the_user_cache_keyed_by_revision(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "c"))
    a = onnx_model_path("seqcls", "sha256:aa", "onnx")
    assert a.parent.parent == tmp_path / "c" / "onnx"
    assert onnx_model_path("seqcls", "sha256:bb", "onnx").parent != a.parent
    assert onnx_model_path("seqcls", "sha256:aa", "onnx-int8").parent == a.parent
    assert onnx_model_path("seqcls", "sha256:aa", "onnx-int8") != a


def test_onnx_cross_encoder_matches_torch_and_int8_is_measured(tiny_ce_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "cache"))
    ref = CrossEncoderRanker(model=str(tiny_ce_dir)).score(QS, TS)
    r = CrossEncoderRanker(model=str(tiny_ce_dir), backend="onnx")
    with pytest.warns(RanklensWarning, match=r"onnx backend\) agrees with fp32 on a 4-item sample"):
        got = r.score(QS, TS)
    np.testing.assert_allclose(got, ref, atol=1e-5)  # same fp32 graph: only kernel rounding differs
    assert r.backend_agreement.n == 4 and r.backend_agreement.spearman == pytest.approx(1.0)
    files = sorted(p.name for p in (tmp_path / "cache" / "onnx").rglob("*.onnx"))
    assert files == ["model.onnx"]  # in the user cache, not next to the model
    assert not list(tiny_ce_dir.rglob("*.onnx"))
    q = CrossEncoderRanker(model=str(tiny_ce_dir), backend="onnx-int8")
    with pytest.warns(RanklensWarning, match="onnx-int8 backend"):
        got8 = q.score(QS, TS)
    np.testing.assert_allclose(got8, ref, atol=0.05)  # int8 weights: close, not equal
    assert q.backend_agreement.max_abs_diff == pytest.approx(np.abs(got8 - ref).max())
    assert sorted(p.name for p in (tmp_path / "cache" / "onnx").rglob("*.onnx")) == ["model-int8.onnx", "model.onnx"]
    # the figures reach the readable fingerprint payload that provenance shows
    from ranklens._hashing import FINGERPRINT_PARAMS

    assert FINGERPRINT_PARAMS[q.fingerprint]["backend_agreement"]["n"] == 4
    # a value per fingerprint, not state of the object: a fresh equal component reads the same
    # figures and is not checked (nor warned) again; the component has no field for it
    import dataclasses
    import warnings

    q2 = CrossEncoderRanker(model=str(tiny_ce_dir), backend="onnx-int8")
    assert q2.backend_agreement == q.backend_agreement
    with warnings.catch_warnings():
        warnings.simplefilter("error", RanklensWarning)
        np.testing.assert_allclose(q2.score(QS, TS), got8)
    assert not any("agreement" in f.name for f in dataclasses.fields(q2))
    # measured straight as a value: the in-run figures equal agreement() of fp32 vs int8 scores
    direct = q2.agreement_with_fp32(QS, TS, got8)
    assert direct.as_dict() == agreement(ref, got8, groups=QS).as_dict()


def test_agreement_against_hand_computed_references():
    ref = np.arange(24, dtype=float)
    same = agreement(ref, ref * 2 + 1)  # a monotone transform: identical ranking
    assert same.spearman == pytest.approx(1.0) and same.top_overlap == 1.0 and same.groups == 1
    # swap the 10th and 11th best of one group: Spearman 1 - 6*sum(d^2)/(n(n^2-1)), top-10 overlap 9/10
    got = ref.copy()
    got[[13, 14]] = got[[14, 13]]
    a = agreement(ref, got)
    assert a.spearman == pytest.approx(1 - 6 * 2 / (24 * (24 ** 2 - 1)))
    assert a.top_overlap == pytest.approx(0.9) and a.max_abs_diff == 1.0 and not a.ok()
    # two groups of 12; only the second is disturbed in its top 10 -> mean (1 + 0.9) / 2
    g = np.repeat([0, 1], 12)
    got2 = ref.copy()
    got2[[13, 14]] = got2[[14, 13]]  # group 1 holds items 12..23: its 10th/11th best are 14/13
    assert agreement(ref, got2, groups=g).top_overlap == pytest.approx(0.95)
    small = agreement([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])
    assert math.isnan(small.top_overlap) and small.groups == 0 and small.spearman == pytest.approx(0.5)
    assert small.as_dict()["top10_overlap"] is None  # JSON has no NaN
    with pytest.raises(ValidationError, match="aligned"):
        agreement([1.0, 2.0], [1.0])
    with pytest.raises(ValidationError, match="finite"):
        agreement([1.0, 2.0], [1.0, float("nan")])


def test_embedding_agreement_ranks_neighbours():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(15, 8))
    a = embedding_agreement(v, v.copy())
    assert a.spearman == pytest.approx(1.0) and a.top_overlap == 1.0 and a.groups == 15 and a.n == 15
    noisy = embedding_agreement(v, v + rng.normal(scale=1.0, size=v.shape))
    assert noisy.spearman < 0.99 and not noisy.ok()
    with pytest.raises(ValidationError, match="aligned"):
        embedding_agreement(v, v[:, :4])


@pytest.mark.parametrize("has_bf16", [False, True, None])
def test_bf16_on_a_cpu_without_bf16_instructions_is_warned(tiny_ce_dir, monkeypatch, has_bf16):
    """PyTorch emulates bf16 where the CPU has no AVX512-BF16/AMX: slower than fp32, said once per call
    site; a CPU with them (or a PyTorch that cannot say) is not warned."""
    import warnings

    import torch

    from ranklens import neural

    monkeypatch.setattr(neural, "cpu_has_bf16", lambda: has_bf16)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        CrossEncoderRanker(model=str(tiny_ce_dir), precision="bf16", device="cpu").score(QS, TS)
    slow = [w for w in seen if issubclass(w.category, RanklensWarning) and "without bf16 instructions" in
            str(w.message)]
    assert bool(slow) == (has_bf16 is False)
    with warnings.catch_warnings(record=True) as seen:  # fp32 and CUDA autocasts are never warned
        warnings.simplefilter("always")
        neural.autocast("fp32", "cpu")
        if torch.cuda.is_available():
            neural.autocast("bf16", "cuda")
    assert not seen


def test_cpu_has_bf16_reads_pytorchs_capability_checks(monkeypatch):
    import torch

    from ranklens.neural import cpu_has_bf16

    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False, raising=False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True, raising=False)
    assert cpu_has_bf16() is True
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False, raising=False)
    assert cpu_has_bf16() is False
    monkeypatch.delattr(torch.cpu, "_is_amx_tile_supported", raising=False)
    assert cpu_has_bf16() is None
