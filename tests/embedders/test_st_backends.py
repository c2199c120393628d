"""MiniLM under the ONNX backends (ranklens.backends) against the PyTorch fp32 embeddings."""

from __future__ import annotations

import numpy as np
import pytest

from ranklens.embedders import SentenceTransformerEmbedder
from ranklens.errors import RanklensWarning, ValidationError
from ranklens.specs import make_embedder

TEXTS = ["cats are small felines", "python is a programming language", "the weather is sunny and dry",
         "dogs bark at the postman", "a short text", "wind tunnel tests of a supersonic wing"]


def test_backend_is_a_validated_parameter_of_the_spec():
    assert make_embedder("minilm", backend="onnx-int8").backend == "onnx-int8"
    with pytest.raises(ValidationError, match="backend must be one of 'torch', 'onnx', 'onnx-int8'"):
        make_embedder("minilm", backend="int8")
    fps = {b: SentenceTransformerEmbedder(backend=b).fingerprint for b in ("torch", "onnx", "onnx-int8")}
    assert len(set(fps.values())) == 3


@pytest.mark.slow
def test_minilm_onnx_matches_torch_and_int8_agrees(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path))
    ref = SentenceTransformerEmbedder().encode(TEXTS)
    onnx = SentenceTransformerEmbedder(backend="onnx", batch_size=4)  # two batches, sorted by length
    with pytest.warns(RanklensWarning, match="onnx backend"):
        v = onnx.encode(TEXTS)
    assert v.shape == (6, 384) and v.dtype == np.float32
    np.testing.assert_allclose(v, ref, atol=1e-5)  # the same fp32 graph (pooling + normalize exported)
    assert onnx.dimension() == 384
    q = SentenceTransformerEmbedder(backend="onnx-int8")
    with pytest.warns(RanklensWarning, match="onnx-int8 backend"):
        v8 = q.encode(TEXTS)
    assert np.min(np.sum(v8 * ref, axis=1)) > 0.98  # cosine to fp32 per text
    a = q.backend_agreement
    assert a.n == 6 and a.max_abs_diff == pytest.approx(float(np.abs(v8 - ref).max()), rel=1e-4)
    assert {p.name for p in tmp_path.joinpath("onnx").rglob("*.onnx")} == {"model.onnx", "model-int8.onnx"}
