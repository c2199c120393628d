"""Inference backends of the neural components on CPU, and their measured agreement with fp32.

One rule, one name: a sentence-transformers embedder/bi-encoder and a cross-encoder take
``backend=`` (:data:`BACKENDS`):

- ``"torch"`` (default): PyTorch, at ``precision`` (``"fp32"``, or ``"bf16"`` through
  ``torch.autocast``: :func:`ranklens.neural.autocast`);
- ``"onnx"``: the same model exported to ONNX (fp32) and run by ONNX Runtime's CPU provider;
- ``"onnx-int8"``: that export with int8 dynamic quantisation of its weights
  (``onnxruntime.quantization.quantize_dynamic``; activations quantised per batch at run time).

The ONNX backends need ``precision="fp32"`` (the precision is the backend's) and a CPU device.
The export is done here with ``torch.onnx.export`` (the TorchScript exporter, ``dynamo=False``,
eager attention), fused by ``onnxruntime.transformers.optimizer`` (BERT family) and run with
``onnxruntime`` directly, not through ``optimum``: sentence-transformers' own
``backend="onnx"`` requires ``optimum``, which pins ``transformers`` versions (it did not
support the installed transformers 5.x), whereas the whole module pipeline of a
sentence-transformers model (transformer, pooling, dense, normalise) exports as one graph, so
the pooling is always the one the model's modules say. Exports are written once to the user cache
(:func:`onnx_cache_dir`: ``$RANKLENS_CACHE_DIR/onnx``, else ``~/.cache/ranklens/onnx``), keyed by
the model's revision (sha256 of its weights and configuration files), never next to the model.

Every component not at fp32 PyTorch (an ONNX backend or ``precision="bf16"``) measures its
agreement with fp32 PyTorch once per fingerprint, on the first batch it computes (up to
:data:`AGREEMENT_SAMPLE` texts or pairs: cheap), with :func:`agreement` / :func:`embedding_agreement`
(Spearman of the scores and the mean top-10 overlap). The component holds no state for it:
:func:`agreement_once` computes the figures as a value the first time a fingerprint is seen (later
calls return that value), adds them to the component's readable fingerprint payload (so
``provenance.component_params`` shows them) and warns (:class:`~ranklens.errors.RanklensWarning`,
printed by the CLI with the result); :func:`measured_agreement` reads the value back.

The default ``backend="torch"`` is left out of the fingerprint payload
(:func:`backend_fingerprint`), so an fp32 PyTorch model keeps the fingerprint (and the cached
scores and vectors) it had before backends existed; any other backend is part of it.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from .errors import RanklensWarning, ValidationError

__all__ = ["AGREEMENT_SAMPLE", "BACKENDS", "Agreement", "agreement", "agreement_once", "backend_fingerprint",
           "check_backend", "embedding_agreement", "measured_agreement", "onnx_cache_dir", "onnx_model_path",
           "onnx_session"]

BACKENDS = ("torch", "onnx", "onnx-int8")
AGREEMENT_SAMPLE = 64           # texts (embedders) or pairs (rankers) of the in-run agreement check
SPEARMAN_GOAL, OVERLAP_GOAL = 0.99, 0.95  # below these the agreement note says so
_EXPORT_FORMAT = 3              # bump when the export changes what a file computes
_OPSET = 17


def check_backend(owner: str, backend: str, precision: str, device: str | None) -> None:
    """Raise a :class:`ValidationError` naming ``backend`` and the allowed values unless the
    backend is known and compatible with ``precision`` and ``device``."""
    if backend not in BACKENDS:
        raise ValidationError(f"{owner}: backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
    if backend == "torch":
        return
    if precision != "fp32":
        raise ValidationError(f"{owner}: backend={backend!r} runs at its own precision; give precision='fp32' "
                              f"(got {precision!r}), or backend='torch' for precision={precision!r}")
    if device not in (None, "cpu"):
        raise ValidationError(f"{owner}: backend={backend!r} runs on the CPU (ONNX Runtime's CPU provider); "
                              f"give device=None or 'cpu' (got {device!r}), or backend='torch' for {device!r}")


def backend_fingerprint(obj: Any, extra: dict[str, Any]) -> str:
    """:func:`ranklens.rankers.base.component_fingerprint` of ``obj`` with ``backend`` left out of
    the parameters when it is the default ``"torch"``: an fp32 PyTorch model keeps the fingerprint
    it had before the ``backend`` field existed; the other backends are distinct."""
    from .rankers.base import _params, named_fingerprint

    cls = type(obj)
    params = _params(obj)
    if params.get("backend") == "torch":
        del params["backend"]
    return named_fingerprint(cls.__name__, {"class": f"{cls.__module__}.{cls.__qualname__}", "params": params,
                                            "extra": extra})


# --------------------------------------------------------------------------- export and sessions

def onnx_cache_dir() -> Path:
    """Where ONNX exports live: ``<ranklens cache dir>/onnx`` (``$RANKLENS_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/ranklens``, else ``~/.cache/ranklens``)."""
    from .engine.cache import default_cache_dir

    return default_cache_dir() / "onnx"


def onnx_model_path(kind: str, revision: str | None, backend: str) -> Path:
    """The cache file of ``kind`` (``"st"``: sentence embedding, ``"seqcls"``: classifier logits)
    for a model ``revision`` under ``backend``."""
    from ._hashing import sha256_json

    key = sha256_json({"kind": kind, "revision": revision, "format": _EXPORT_FORMAT, "opset": _OPSET})[:24]
    name = "model-int8.onnx" if backend == "onnx-int8" else "model.onnx"
    return onnx_cache_dir() / f"{kind}-{key}" / name


def _attention_impls(module: Any) -> list[tuple[Any, Any]]:
    """The Hugging Face models inside ``module`` and their attention implementations."""
    return [(m, getattr(m.config, "_attn_implementation", None)) for m in module.modules()
            if hasattr(m, "set_attn_implementation") and hasattr(m, "config")]


def _export(module: Any, example: dict[str, Any], output: str, path: Path) -> None:
    """``torch.onnx.export`` of ``module(**inputs)`` with batch and sequence axes dynamic, with
    eager attention (SDPA traces into a pattern ONNX Runtime's fusion does not recognise), then
    ONNX Runtime's transformer fusion (:func:`_fuse`)."""
    import torch

    from .files import atomic_output

    names = list(example)
    dyn = {n: {0: "batch", 1: "seq"} for n in names} | {output: {0: "batch"}}
    impls = _attention_impls(module)
    with atomic_output(path, what="ONNX export") as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and tracer notes
        try:
            for m, _ in impls:
                m.set_attn_implementation("eager")
            with torch.inference_mode(False), torch.no_grad():
                torch.onnx.export(module, tuple(example[n] for n in names), str(tmp), dynamo=False,
                                  input_names=names, output_names=[output], dynamic_axes=dyn, opset_version=_OPSET)
        finally:
            for m, impl in impls:
                if impl:
                    m.set_attn_implementation(impl)
        _fuse(tmp, impls[0][0].config if impls else None)


def _fuse(path: Path, config: Any) -> None:
    """Fuse attention, GELU and layer norms in place (``onnxruntime.transformers.optimizer``, BERT
    family: the difference between slower and faster than PyTorch on CPU); other architectures
    keep the plain export (ONNX Runtime's session-level optimisations only)."""
    if config is None or getattr(config, "model_type", None) not in ("bert", "roberta", "xlm-roberta", "distilbert",
                                                                     "electra", "mpnet"):
        return
    from onnxruntime.transformers import optimizer

    kind = "bert" if config.model_type != "distilbert" else "distilbert"
    fused = optimizer.optimize_model(str(path), model_type=kind, num_heads=int(config.num_attention_heads),
                                     hidden_size=int(config.hidden_size))
    fused.save_model_to_file(str(path))


def _quantize(src: Path, dst: Path) -> None:
    from ._lazy import require
    from .files import atomic_output

    onnx = require("onnx", feature="backend='onnx-int8' (pip install 'ranklens[onnx]')")
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with atomic_output(dst, what="int8 ONNX model") as tmp:
        # int8 weights per output channel (per tensor lost ~0.03 of Spearman on MiniLM over Cranfield);
        # activations quantised per batch (uint8). The fused ops carry no inferred output type:
        # DefaultTensorType says float.
        import logging

        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)  # its "consider pre-processing" advice goes to the root logger, on stderr
        try:
            quantize_dynamic(str(src), str(tmp), weight_type=QuantType.QInt8, per_channel=True,
                             extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        finally:
            root.setLevel(level)


def ensure_onnx(kind: str, revision: str | None, backend: str, module: Any, example: dict[str, Any],
                output: str) -> Path:
    """The cached ONNX file for ``backend``, exported (and quantised) first when missing."""
    fp32 = onnx_model_path(kind, revision, "onnx")
    if not fp32.is_file():
        _export(module, example, output, fp32)
    if backend == "onnx":
        return fp32
    int8 = onnx_model_path(kind, revision, backend)
    if not int8.is_file():
        _quantize(fp32, int8)
    return int8


def onnx_session(path: Path) -> Any:
    """An ONNX Runtime CPU session over ``path`` (all graph optimisations, default threads)."""
    from ._lazy import require

    ort = require("onnxruntime", feature="backend='onnx' (pip install 'ranklens[onnx]')")
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy-waiting on shared CPUs
    # as many threads as PyTorch's fp32 path uses (the peer it is measured against); ORT's own
    # default counts physical cores, which on a shared machine may differ
    import torch

    opts.intra_op_num_threads = int(torch.get_num_threads())
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def run_session(session: Any, features: dict[str, Any]) -> npt.NDArray[np.float32]:
    """Run ``session`` on tokenizer ``features`` (torch tensors or arrays; the graph's inputs only)."""
    feed = {}
    for i in session.get_inputs():
        v = features[i.name]
        feed[i.name] = np.asarray(v.cpu().numpy() if hasattr(v, "cpu") else v, dtype=np.int64)
    return np.asarray(session.run(None, feed)[0], dtype=np.float32)


# --------------------------------------------------------------------------- agreement with fp32

@dataclass(frozen=True)
class Agreement:
    """Agreement of scores with fp32 reference scores.

    ``spearman``: rank correlation of all the scores; ``top_overlap``: mean over the groups
    (queries) holding more than ``k`` items of |top-k(reference) & top-k(scores)| / k (NaN when no
    group is that large); ``n`` scores in ``groups`` groups; ``max_abs_diff`` of the raw scores."""

    spearman: float
    top_overlap: float
    k: int
    n: int
    groups: int
    max_abs_diff: float

    def ok(self) -> bool:
        """Whether it meets the goals (Spearman >= 0.99, top-k overlap >= 0.95 where measured)."""
        return self.spearman >= SPEARMAN_GOAL and (math.isnan(self.top_overlap) or self.top_overlap >= OVERLAP_GOAL)

    def as_dict(self) -> dict[str, float | int]:
        over = None if math.isnan(self.top_overlap) else round(self.top_overlap, 4)  # JSON has no NaN
        return {"spearman": round(self.spearman, 5), f"top{self.k}_overlap": over,
                "n": self.n, "groups": self.groups, "max_abs_diff": float(f"{self.max_abs_diff:.3g}")}

    def note(self, what: str) -> str:
        over = "n/a (no group over k items)" if math.isnan(self.top_overlap) else f"{self.top_overlap:.3f}"
        verdict = "" if self.ok() else (f" -- BELOW the goals (Spearman >= {SPEARMAN_GOAL}, top-{self.k} overlap >= "
                                        f"{OVERLAP_GOAL}): compare its results with backend='torch' before trusting them")
        return (f"{what} agrees with fp32 on a {self.n}-item sample: Spearman {self.spearman:.4f}, top-{self.k} "
                f"overlap {over} over {self.groups} group(s), max |diff| {self.max_abs_diff:.3g}{verdict}")


def _spearman(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    from scipy.stats import rankdata

    ra, rb = rankdata(a), rankdata(b)
    if ra.std() == 0 or rb.std() == 0:
        return 1.0 if np.array_equal(ra, rb) else float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def agreement(reference: npt.ArrayLike, scores: npt.ArrayLike, groups: npt.ArrayLike | None = None,
              k: int = 10) -> Agreement:
    """How far ``scores`` agree with ``reference`` (aligned, one per item); ``groups`` (e.g. query
    ids, one per item; ``None``: one group) for the top-``k`` overlap.

    Raises:
        ValidationError: arrays of different lengths, empty or non-finite.
    """
    ref = np.asarray(reference, dtype=np.float64).ravel()
    got = np.asarray(scores, dtype=np.float64).ravel()
    if ref.shape != got.shape or ref.size == 0:
        raise ValidationError(f"agreement: reference and scores must be non-empty and aligned, got {ref.size} "
                              f"and {got.size} scores")
    if not (np.isfinite(ref).all() and np.isfinite(got).all()):
        raise ValidationError("agreement: scores must be finite (a NaN or inf score came back from a model)")
    g = np.zeros(ref.size, dtype=np.int64) if groups is None else np.unique(np.asarray(groups), return_inverse=True)[1]
    if g.shape != ref.shape:
        raise ValidationError(f"agreement: groups must give one group per score ({ref.size}), got {g.size}")
    overlaps = []
    for gi in np.unique(g):
        idx = np.flatnonzero(g == gi)
        if idx.size <= k:
            continue
        top_r = set(idx[np.argsort(-ref[idx], kind="stable")[:k]].tolist())
        top_s = set(idx[np.argsort(-got[idx], kind="stable")[:k]].tolist())
        overlaps.append(len(top_r & top_s) / k)
    return Agreement(spearman=_spearman(ref, got), top_overlap=float(np.mean(overlaps)) if overlaps else float("nan"),
                     k=k, n=int(ref.size), groups=len(overlaps), max_abs_diff=float(np.abs(ref - got).max()))


def embedding_agreement(reference: npt.ArrayLike, vectors: npt.ArrayLike, k: int = 10) -> Agreement:
    """Agreement of two encodings of the same texts (rows): each text ranks the others by dot
    product (cosine for normalised vectors) under each encoding; :func:`agreement` of those
    scores, one group per text (``max_abs_diff`` is that of the vectors themselves)."""
    ref = np.asarray(reference, dtype=np.float64)
    got = np.asarray(vectors, dtype=np.float64)
    if ref.ndim != 2 or ref.shape != got.shape or ref.shape[0] < 2:
        raise ValidationError(f"embedding_agreement: need two aligned (n >= 2, d) arrays, got {ref.shape} and "
                              f"{got.shape}")
    n = ref.shape[0]
    off = ~np.eye(n, dtype=bool)
    rows = np.broadcast_to(np.arange(n)[:, None], (n, n))[off]
    a = agreement((ref @ ref.T)[off], (got @ got.T)[off], groups=rows, k=k)
    return Agreement(spearman=a.spearman, top_overlap=a.top_overlap, k=k, n=n, groups=a.groups,
                     max_abs_diff=float(np.abs(ref - got).max()))


_MEASURED: dict[str, Agreement] = {}  # fingerprint -> its agreement, measured once per process


def measured_agreement(fingerprint: str) -> Agreement | None:
    """The agreement with fp32 measured for ``fingerprint`` in this process (``None`` before its
    first batch, and for fp32 PyTorch)."""
    return _MEASURED.get(fingerprint)


def agreement_once(fingerprint: str, what: str, measure: Callable[[], Agreement]) -> Agreement:
    """The agreement of the component ``fingerprint`` with fp32: ``measure()`` the first time the
    fingerprint is seen in this process, the same value afterwards. The first time, the figures are
    added to the fingerprint's readable payload (``provenance.component_params`` shows them as
    ``backend_agreement``) and warned with :meth:`Agreement.note`."""
    from ._hashing import FINGERPRINT_PARAMS

    done = _MEASURED.get(fingerprint)
    if done is not None:
        return done
    measured = measure()
    _MEASURED[fingerprint] = measured
    payload = FINGERPRINT_PARAMS.get(fingerprint)
    if isinstance(payload, dict):
        payload["backend_agreement"] = measured.as_dict()
    warnings.warn(measured.note(what), RanklensWarning, stacklevel=4)
    return measured
