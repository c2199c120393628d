"""Running probes: collect the samples of every probe, score each distinct (query, text) once
per model through :mod:`ranklens.engine`, apply each model's δ, test significance.

Kernel functions (:func:`probe_effects`, :func:`summarize_diffs`, :func:`adjust_pvalues`) work
on arrays; :func:`run_probes` is the driver returning a ``probe-table`` :class:`Result`.

Result store (``out_dir``): scores are kept per (probe, samples hash, model fingerprint) in
``out_dir/store/scores/<probe>/<hash16>/<fingerprint>.tsv.gz`` and each model's δ in
``out_dir/store/models/<fingerprint>.json``; a later run with another model scores only that
model, and the table it writes (``out_dir/probe-table``) contains every stored model whose
scores match the current samples. A stored calibrated δ records the collection it was
calibrated on (name and content hash, :func:`~ranklens.probes.delta.collection_fingerprint`)
and is reused only for the same δ spec on the same collection; otherwise δ is calibrated again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..errors import ValidationError
from ..results import Result, make_provenance
from .base import Probe, ProbeSamples, get_probe, probe_rng, samples_hash
from .delta import DeltaInfo, DeltaSpec, calibrate_delta, collection_fingerprint, parse_delta

__all__ = [
    "PROBE_TABLE_COLUMNS",
    "SAMPLE_COLUMNS",
    "adjust_pvalues",
    "generate_samples",
    "probe_effects",
    "run_probes",
    "summarize_diffs",
]

PROBE_TABLE_COLUMNS = [
    "probe", "family", "dataset", "symmetric", "model", "n", "score", "p_value", "p_adjusted",
    "significant", "ci_low", "ci_high", "pos", "neg", "tie", "mean_diff", "delta",
    "samples_hash", "skipped",
]
SAMPLE_COLUMNS = ["probe", "model", "sample_id", "query_id", "doc_1_id", "doc_2_id", "score_1",
                  "score_2", "diff", "effect"]


# ---------------------------------------------------------------------------------- kernels
def probe_effects(diff: npt.ArrayLike, delta: float, symmetric: bool) -> npt.NDArray[np.int64]:
    """Per-sample effects: directional ``+1`` if ``diff > delta``, ``-1`` if ``diff < -delta``,
    else ``0``; symmetric ``1`` if ``|diff| > delta`` else ``0``."""
    d = np.asarray(diff, dtype=np.float64)
    if symmetric:
        return (np.abs(d) > delta).astype(np.int64)
    return (d > delta).astype(np.int64) - (d < -delta).astype(np.int64)


def summarize_diffs(score_1: npt.ArrayLike, score_2: npt.ArrayLike, *, delta: float,
                    symmetric: bool, seed: int = 0, n_boot: int = 1000) -> dict[str, Any]:
    """Probe score and statistics of one (probe, model) cell.

    Returns:
        ``n, score (mean effect), pos, neg, tie, mean_diff, p_value`` (two-sided paired t-test
        on ``(score_1, score_2)``, :func:`ranklens.stats.paired_ttest`; 1.0 when every
        difference is 0) and ``ci_low, ci_high`` (percentile bootstrap 95 % CI of the score,
        :func:`ranklens.stats.bootstrap_ci`, seeded).
    """
    from ..stats import bootstrap_ci, paired_ttest

    s1 = np.asarray(score_1, dtype=np.float64)
    s2 = np.asarray(score_2, dtype=np.float64)
    eff = probe_effects(s1 - s2, delta, symmetric)
    n = len(eff)
    ci = bootstrap_ci(eff.astype(np.float64), n_resamples=n_boot, seed=seed)
    return {
        "n": n,
        "score": float(eff.mean()) if n else float("nan"),
        "pos": int((eff > 0).sum()), "neg": int((eff < 0).sum()), "tie": int((eff == 0).sum()),
        "mean_diff": float((s1 - s2).mean()) if n else float("nan"),
        "p_value": paired_ttest(s1, s2).pvalue if n else float("nan"),
        "ci_low": ci.low, "ci_high": ci.high,
    }


def adjust_pvalues(p: npt.ArrayLike, method: str = "bonferroni") -> npt.NDArray[np.float64]:
    """Adjusted p-values over a table (:func:`ranklens.stats.correct_pvalues`: ``bonferroni``,
    ``holm``, ``bh`` or ``none``; NaN entries do not count towards the family)."""
    from ..stats import correct_pvalues

    return correct_pvalues(np.asarray(p, dtype=np.float64), method)


# ---------------------------------------------------------------------------------- samples
def generate_samples(probes: Sequence[Probe], collection: Any = None, *,
                     seed: int = 0) -> dict[str, ProbeSamples]:
    """Samples of each probe (generator seeded by ``seed`` and the probe name)."""
    out: dict[str, ProbeSamples] = {}
    for p in probes:
        if p.name in out:
            raise ValidationError(f"probe {p.name!r} selected twice")
        out[p.name] = p.generate(collection, rng=probe_rng(seed, p.name))
    return out


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", name)


class _Store:
    def __init__(self, root: Path | None) -> None:
        self.root = root

    def _scores(self, probe: str, h: str, fp: str) -> Path:
        assert self.root is not None
        return self.root / "store" / "scores" / _safe(probe) / h[:16] / f"{_safe(fp)}.tsv.gz"

    def get(self, probe: str, h: str, fp: str, n: int) -> tuple[np.ndarray, np.ndarray] | None:
        if self.root is None:
            return None
        p = self._scores(probe, h, fp)
        if not p.is_file():
            return None
        f = pd.read_csv(p, sep="\t", compression="gzip")
        if len(f) != n:
            return None
        return f["score_1"].to_numpy(np.float64), f["score_2"].to_numpy(np.float64)

    def put(self, probe: str, h: str, fp: str, s1: np.ndarray, s2: np.ndarray) -> None:
        if self.root is None:
            return
        p = self._scores(probe, h, fp)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        pd.DataFrame({"score_1": s1, "score_2": s2}).to_csv(tmp, sep="\t", index=False,
                                                           compression="gzip", float_format="%.17g")
        tmp.replace(p)

    def models(self) -> dict[str, dict[str, Any]]:
        if self.root is None:
            return {}
        d = self.root / "store" / "models"
        out = {}
        for f in sorted(d.glob("*.json")) if d.is_dir() else []:
            rec = json.loads(f.read_text())
            out[rec["fingerprint"]] = rec
        return out

    def put_model(self, rec: dict[str, Any], diffs: np.ndarray) -> None:
        if self.root is None:
            return
        d = self.root / "store" / "models"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{_safe(rec['fingerprint'])}.json").write_text(json.dumps(rec, indent=2, sort_keys=True))
        np.save(d / f"{_safe(rec['fingerprint'])}.diffs.npy", diffs)

    def diffs(self, fp: str) -> np.ndarray:
        if self.root is None:
            return np.zeros(0)
        f = self.root / "store" / "models" / f"{_safe(fp)}.diffs.npy"
        return np.load(f) if f.is_file() else np.zeros(0)


def _labels(rankers: Any) -> dict[str, Any]:
    if isinstance(rankers, Mapping):
        return {str(k): v for k, v in rankers.items()}
    if not isinstance(rankers, Sequence):
        rankers = [rankers]
    out: dict[str, Any] = {}
    for r in rankers:
        label = str(getattr(r, "name", type(r).__name__))
        if label in out:
            label = f"{label}-{len(out)}"
        out[label] = r
    return out


def run_probes(
    probes: Sequence[Probe | str],
    rankers: Any,
    collection: Any = None,
    *,
    delta: DeltaSpec | str | float | Mapping[str, DeltaSpec | str | float] | None = None,
    calibration_collection: Any = None,
    engine: Any = None,
    seed: int = 0,
    alpha: float = 0.01,
    correction: str = "bonferroni",
    n_boot: int = 1000,
    out_dir: str | Path | None = None,
    include_stored: bool = True,
    probe_options: Mapping[str, Any] | None = None,
    samples: Mapping[str, ProbeSamples] | None = None,
) -> Result:
    """Run probes for rankers and return a ``probe-table`` result.

    Args:
        probes: probe objects or registered names.
        rankers: a ranker, a sequence (labelled by ``name``) or ``{label: ranker}``.
        collection: collection for measure-and-match/manipulation probes (and δ calibration).
        delta: δ spec for all models or ``{label: spec}`` (``"calibrate"`` default, ``"p25"``,
            a number). δ is always applied and stored with each model's results.
        calibration_collection: where δ is calibrated (default ``collection``).
        engine: scoring engine (default: the process-wide one).
        seed: sample generation and bootstrap seed.
        alpha: significance level after correction (``p_adjusted < alpha``).
        correction: ``bonferroni`` (default), ``holm``, ``bh`` or ``none``, over all cells of the
            table.
        n_boot: bootstrap resamples for the CI of each score.
        out_dir: result store (see module docstring); ``None`` keeps nothing on disk.
        include_stored: also tabulate other models found in ``out_dir`` for the same samples.
        probe_options: options passed to probe factories when ``probes`` holds names.
        samples: precomputed samples by probe name (skips generation for those).

    Returns:
        ``Result(kind="probe-table")``: ``table`` has one row per (probe, model) with
        :data:`PROBE_TABLE_COLUMNS`; ``tables["samples"]`` the per-sample scores
        (:data:`SAMPLE_COLUMNS`); ``tables["deltas"]`` each model's δ; ``tables["calibration"]``
        the calibration differences (for δ sweeps).
    """
    from ..engine import default_engine, score_pairs

    engine = engine or default_engine()
    objs = [p if isinstance(p, Probe) else get_probe(p, **dict(probe_options or {})) for p in probes]
    labelled = _labels(rankers)
    if not labelled:
        raise ValidationError("run_probes needs at least one ranker")
    seen: dict[str, str] = {}
    for label, ranker in labelled.items():
        other = seen.setdefault(ranker.fingerprint, label)
        if other != label:
            raise ValidationError(
                f"rankers {other!r} and {label!r} are the same model (fingerprint "
                f"{ranker.fingerprint}); results and δ are stored per model, so give each model "
                "once")
    store = _Store(Path(out_dir) if out_dir is not None else None)

    gen = dict(samples or {})
    todo = [p for p in objs if p.name not in gen]
    gen.update(generate_samples(todo, collection, seed=seed))
    hashes = {name: samples_hash(ps.samples) for name, ps in gen.items()}

    # δ per model (always applied)
    models: dict[str, dict[str, Any]] = {}
    diffs_by_fp: dict[str, np.ndarray] = {}
    stored_models = store.models()
    calib_coll = calibration_collection if calibration_collection is not None else collection
    calib_id: dict[str, str] | None = None
    for label, ranker in labelled.items():
        spec = parse_delta(delta.get(label) if isinstance(delta, Mapping) else delta)
        fp = ranker.fingerprint
        prev = stored_models.get(fp)
        where = None
        if spec.mode != "explicit":
            if calib_id is None:
                calib_id = collection_fingerprint(calib_coll)
            where = calib_id
        if (prev is not None and prev.get("spec") == spec.__dict__
                and prev.get("calibration_collection") == where):
            info = DeltaInfo(float(prev["delta"]), spec, store.diffs(fp))
        else:
            info = calibrate_delta(ranker, calib_coll, spec=spec, engine=engine)
        rec = {"label": label, "fingerprint": fp, "component": repr(ranker), "spec": spec.__dict__,
               **info.as_dict(), "calibration_collection": where}
        store.put_model(rec, info.diffs)
        models[fp] = rec
        diffs_by_fp[fp] = info.diffs

    # scores: all pairs of all probes at once per model; each distinct pair scored once
    scores: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
    for label, ranker in labelled.items():
        fp = ranker.fingerprint
        missing = []
        for p in objs:
            ps = gen[p.name]
            got = store.get(p.name, hashes[p.name], fp, len(ps.samples))
            if got is not None:
                scores[(p.name, fp)] = got
            else:
                missing.append(p)
        qs: list[str] = []
        ts: list[str] = []
        spans = {}
        for p in missing:
            start = len(qs)
            for s in gen[p.name].samples:
                qs.extend((s.query, s.query))
                ts.extend((s.text_1, s.text_2))
            spans[p.name] = (start, len(qs))
        if qs:
            all_scores = score_pairs(ranker, qs, ts, engine=engine, desc=f"probes {label}")
            for p in missing:
                a, b = spans[p.name]
                block = all_scores[a:b]
                s1, s2 = block[0::2].copy(), block[1::2].copy()
                scores[(p.name, fp)] = (s1, s2)
                store.put(p.name, hashes[p.name], fp, s1, s2)

    if include_stored:
        for fp, rec in stored_models.items():
            if fp in models:
                continue
            found = {}
            for p in objs:
                got = store.get(p.name, hashes[p.name], fp, len(gen[p.name].samples))
                if got is None:
                    break
                found[p.name] = got
            else:
                models[fp] = rec
                diffs_by_fp[fp] = store.diffs(fp)
                for name, got in found.items():
                    scores[(name, fp)] = got

    rows, sample_rows = [], []
    for p in objs:
        ps = gen[p.name]
        h = hashes[p.name]
        for fp, rec in models.items():
            s1, s2 = scores.get((p.name, fp), (np.zeros(0), np.zeros(0)))
            st = summarize_diffs(s1, s2, delta=rec["delta"], symmetric=p.symmetric, seed=seed,
                                 n_boot=n_boot)
            rows.append({"probe": p.name, "family": p.family, "dataset": p.dataset or (
                getattr(collection, "name", "") if p.family != "transfer" else ""),
                "symmetric": bool(p.symmetric), "model": rec["label"], **st, "delta": rec["delta"],
                "samples_hash": h, "skipped": ps.skipped or ""})
            eff = probe_effects(s1 - s2, rec["delta"], p.symmetric)
            for s, a, b, e in zip(ps.samples, s1, s2, eff):
                sample_rows.append((p.name, rec["label"], s.sample_id, s.query_id, s.doc_1_id,
                                    s.doc_2_id, float(a), float(b), float(a - b), int(e)))
    base_cols = [c for c in PROBE_TABLE_COLUMNS if c not in ("p_adjusted", "significant")]
    table = pd.DataFrame(rows, columns=base_cols)
    table["p_adjusted"] = adjust_pvalues(table["p_value"].to_numpy(np.float64), correction)
    table["significant"] = (table["p_adjusted"] < alpha).astype(bool)
    table = table[PROBE_TABLE_COLUMNS]
    sample_table = pd.DataFrame(sample_rows, columns=SAMPLE_COLUMNS)
    deltas = pd.DataFrame([{"model": r["label"], "fingerprint": fp, "delta": r["delta"], "mode": r["mode"],
                            "percentile": r["percentile"], "k": r["k"], "depth": r["depth"],
                            "n_diffs": r["n_diffs"],
                            "calibration_collection": (r.get("calibration_collection") or {}).get("name", ""),
                            "calibration_sha256": (r.get("calibration_collection") or {}).get("sha256", "")}
                           for fp, r in models.items()])
    calib = pd.DataFrame([(models[fp]["label"], float(d)) for fp, ds in diffs_by_fp.items() for d in ds],
                         columns=["model", "diff"])
    summary = {
        "n_probes": len(objs), "models": [r["label"] for r in models.values()],
        "alpha": alpha, "correction": correction,
        "deltas": {r["label"]: r["delta"] for r in models.values()},
        "sign_convention": ("diff = R(q,d1) - R(q,d2); manipulation: d1 = manipulated, d2 = original; "
                            "measure-and-match: d1 = more of the variable; transfer: d1 = attributed text"),
        "skipped": {name: ps.skipped for name, ps in gen.items() if ps.skipped},
    }
    prov = make_provenance(
        params={"alpha": alpha, "correction": correction, "n_boot": n_boot, "test": "paired t-test (two-sided)",
                "ci": "percentile bootstrap 95% of the score",
                "probes": {p.name: {"version": p.version, "params": p.params(), "info": dict(gen[p.name].info),
                                    "available": gen[p.name].available, "n": len(gen[p.name].samples)}
                           for p in objs},
                "deltas": {r["label"]: {k: v for k, v in r.items() if k not in ("label", "component")}
                           for r in models.values()},
                "collection": getattr(collection, "name", None)},
        components={r["label"]: r.get("component", r["fingerprint"]) for r in models.values()}
        | {f"{r['label']}.fingerprint": fp for fp, r in models.items()},
        inputs={f"samples:{name}": f"sha256:{h}" for name, h in hashes.items()},
        seed=seed,
    )
    result = Result(kind="probe-table", summary=summary, table=table, provenance=prov,
                    tables={"samples": sample_table, "deltas": deltas, "calibration": calib})
    if out_dir is not None:
        result.save(Path(out_dir) / "probe-table")
    return result
