"""Running probes: collect the samples of every probe, score each distinct (query, text) once
per model through :mod:`ranklens.engine` (which caches every score: a re-run makes no model
call), apply each model's δ, test significance.

Kernel functions (:func:`probe_effects`, :func:`summarize_diffs`, :func:`adjust_pvalues`) work
on arrays; :func:`run_probes` returns a ``probes-table`` :class:`Result`, :func:`delta_sweep` the
``probes-delta-sweep`` result of its scores (the paper's Fig. 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..errors import ValidationError
from ..results import Result, make_provenance
from .base import Probe, ProbeSamples, probe_rng, samples_hash
from .declaration import Params
from .delta import DeltaInfo, DeltaSpec, calibrate_delta, delta_specs, parse_delta

__all__ = [
    "PROBE_TABLE_COLUMNS",
    "SAMPLE_COLUMNS",
    "SYMMETRIC_TESTS",
    "TEXT_COLUMNS",
    "adjust_pvalues",
    "check_kind",
    "delta_sweep",
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
TEXT_COLUMNS = ["probe", "sample_id", "query_id", "query", "doc_1_id", "text_1", "doc_2_id", "text_2"]
SYMMETRIC_TESTS = ("abs", "signed")
CORRECTION_SCOPES = ("table", "all")
DEFAULTS = Params()
SIGN_CONVENTION = ("diff = R(q,d1) - R(q,d2); manipulation: d1 = manipulated, d2 = original; "
                   "measure-and-match: d1 = more of the variable; transfer: d1 = attributed text")


def check_kind(result: Result, kind: str) -> None:
    """Raise unless ``result`` is of ``kind``."""
    if result.kind != kind:
        raise ValidationError(f"expected a {kind!r} result, got {result.kind!r}")



# ---------------------------------------------------------------------------------- kernels
def probe_effects(diff: npt.ArrayLike, delta: float, symmetric: bool) -> npt.NDArray[np.int64]:
    """Per-sample effects (paper Eq. 1): directional ``+1`` if ``diff > delta``, ``-1`` if
    ``diff < -delta``, else ``0``; symmetric ``1`` if ``|diff| > delta`` else ``0``."""
    d = np.asarray(diff, dtype=np.float64)
    if symmetric:
        return (np.abs(d) > delta).astype(np.int64)
    return (d > delta).astype(np.int64) - (d < -delta).astype(np.int64)


def summarize_diffs(score_1: npt.ArrayLike, score_2: npt.ArrayLike, *, delta: float,
                    symmetric: bool, seed: int = 0, n_boot: int = DEFAULTS.n_boot,
                    symmetric_test: str = DEFAULTS.symmetric_test) -> dict[str, Any]:
    """Probe score and statistics of one (probe, model) cell.

    The p-value is the paper's two-sided paired t-test of ``(score_1, score_2)``
    (:func:`ranklens.stats.paired_ttest`; 1.0 when every difference is 0). For symmetric probes
    the order of d1 and d2 is arbitrary, so by default (``symmetric_test="abs"``, the reference
    code) the test is the one-sample t-test of ``|diff|`` against 0, which does not depend on that
    order; ``"signed"`` keeps the signed paired test. ``ci_low, ci_high``: percentile bootstrap
    95 % CI of the score (:func:`ranklens.stats.bootstrap_ci`, seeded).
    """
    from ..stats import bootstrap_ci, paired_ttest

    if symmetric_test not in SYMMETRIC_TESTS:
        raise ValidationError(f"symmetric_test must be one of {SYMMETRIC_TESTS}, got {symmetric_test!r}")
    s1 = np.asarray(score_1, dtype=np.float64)
    s2 = np.asarray(score_2, dtype=np.float64)
    eff = probe_effects(s1 - s2, delta, symmetric)
    n = len(eff)
    ci = bootstrap_ci(eff.astype(np.float64), n_resamples=n_boot, seed=seed)
    if symmetric and symmetric_test == "abs":
        test = paired_ttest(np.abs(s1 - s2), np.zeros(n))
    else:
        test = paired_ttest(s1, s2)
    return {
        "n": n,
        "score": float(eff.mean()) if n else float("nan"),
        "pos": int((eff > 0).sum()), "neg": int((eff < 0).sum()), "tie": int((eff == 0).sum()),
        "mean_diff": float((s1 - s2).mean()) if n else float("nan"),
        "p_value": test.pvalue if n else float("nan"),
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


def _labels(rankers: Any) -> dict[str, Any]:
    if isinstance(rankers, Mapping):
        out = {str(k): v for k, v in rankers.items()}
    else:
        out = {}
        for r in (rankers if isinstance(rankers, Sequence) else [rankers]):
            label = str(getattr(r, "name", type(r).__name__))
            out[label if label not in out else f"{label}-{len(out)}"] = r
    if not out:
        raise ValidationError("run_probes needs at least one ranker")
    seen: dict[str, str] = {}
    for label, ranker in out.items():
        other = seen.setdefault(ranker.fingerprint, label)
        if other != label:
            raise ValidationError(f"rankers {other!r} and {label!r} are the same model (fingerprint "
                                  f"{ranker.fingerprint}); give each model once")
    return out


def _deltas(labelled: Mapping[str, Any], delta: Any, calib_coll: Any, engine: Any) -> dict[str, DeltaInfo]:
    """Each model's δ (always applied); ``delta`` as :func:`run_probes` takes it."""
    if isinstance(delta, (list, tuple)):  # the Params form: VALUE and LABEL=VALUE items
        delta = delta_specs(delta, list(labelled))
    out = {}
    for label, ranker in labelled.items():
        spec = parse_delta(delta.get(label) if isinstance(delta, Mapping) else delta)
        out[label] = calibrate_delta(ranker, calib_coll, spec=spec, engine=engine)
    return out


def _score(labelled: Mapping[str, Any], objs: Sequence[Probe], gen: Mapping[str, ProbeSamples], engine: Any,
           ) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    """``{(probe, label): (score_1, score_2)}``: all pairs of all probes at once per model (the
    engine scores each distinct pair once and caches it)."""
    from ..engine import score_pairs

    qs: list[str] = []
    ts: list[str] = []
    spans = {}
    for p in objs:
        start = len(qs)
        for s in gen[p.name].samples:
            qs.extend((s.query, s.query))
            ts.extend((s.text_1, s.text_2))
        spans[p.name] = (start, len(qs))
    out = {}
    for label, ranker in labelled.items():
        scores = score_pairs(ranker, qs, ts, engine=engine, desc=f"probes {label}") if qs else np.zeros(0)
        for name, (a, b) in spans.items():
            block = np.asarray(scores[a:b], dtype=np.float64)
            out[(name, label)] = (block[0::2].copy(), block[1::2].copy())
    return out


def _rows(objs: Sequence[Probe], gen: Mapping[str, ProbeSamples], hashes: Mapping[str, str],
          infos: Mapping[str, DeltaInfo], scores: Mapping[tuple[str, str], tuple[np.ndarray, np.ndarray]],
          collection: Any, *, seed: int, n_boot: int, symmetric_test: str) -> tuple[list[dict], list[tuple]]:
    rows, sample_rows = [], []
    for p in objs:
        ps = gen[p.name]
        for label, info in infos.items():
            s1, s2 = scores[(p.name, label)]
            st = summarize_diffs(s1, s2, delta=info.delta, symmetric=p.symmetric, seed=seed, n_boot=n_boot,
                                 symmetric_test=symmetric_test)
            rows.append({"probe": p.name, "family": p.family, "dataset": p.dataset or (
                getattr(collection, "name", "") if p.family != "transfer" else ""),
                "symmetric": bool(p.symmetric), "model": label, **st, "delta": info.delta,
                "samples_hash": hashes[p.name], "skipped": ps.skipped or ""})
            eff = probe_effects(s1 - s2, info.delta, p.symmetric)
            sample_rows.extend((p.name, label, s.sample_id, s.query_id, s.doc_1_id, s.doc_2_id, float(a), float(b),
                                float(a - b), int(e)) for s, a, b, e in zip(ps.samples, s1, s2, eff))
    return rows, sample_rows


def _texts(objs: Sequence[Probe], gen: Mapping[str, ProbeSamples]) -> pd.DataFrame:
    """The scored texts of every sample (saved compressed with the result)."""
    return pd.DataFrame([(p.name, s.sample_id, s.query_id, s.query, s.doc_1_id, s.text_1, s.doc_2_id, s.text_2)
                         for p in objs for s in gen[p.name].samples], columns=TEXT_COLUMNS)


def bm25_models(labelled: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The BM25 rankers among the models: ``{label: describe_bm25(ranker)}``."""
    from ..rankers.bm25 import BM25Ranker, describe_bm25

    return {label: describe_bm25(r) for label, r in labelled.items() if isinstance(r, BM25Ranker)}


def model_warnings(labelled: Mapping[str, Any],
                   scores: Mapping[tuple[str, str], tuple[np.ndarray, np.ndarray]]) -> tuple[str, ...]:
    """Per model: a BM25 that is not the ABNIRML paper's (Terrier's), and constant probe scores."""
    out = []
    for label, d in bm25_models(labelled).items():
        if d["preset"] != "terrier":
            out.append(f"model {label}: BM25 is {d['preset']} (k1 {d['k1']:g}, b {d['b']:g}, {d['method']} idf), "
                       "not the ABNIRML paper's (Terrier's BM25, k1 1.2, b 0.75): its cells are not the paper's "
                       "BM25 cells; give --model bm25:terrier to compare with the paper's tables")
    for label in labelled:
        blocks = [np.concatenate(v) for (_, lab), v in scores.items() if lab == label]
        allv = np.concatenate(blocks) if blocks else np.zeros(0)
        if allv.size > 1 and np.ptp(allv) == 0:
            out.append(f"model {label}: every probe text got the same score ({allv[0]:g}): the scores are constant "
                       "(e.g. a constant ranker, or BM25 where no query term has idf > 0), so its probe scores of "
                       "0.00 say nothing about the model")
    return tuple(out)


def probe_warnings(objs: Sequence[Probe], gen: Mapping[str, ProbeSamples], infos: Mapping[str, DeltaInfo],
                   ) -> tuple[str, ...]:
    """Degenerate input and fallbacks, said once each: skipped or empty probes, NLP fallbacks,
    typo lists missing, δ of 0, partial calibration coverage."""
    out = []
    for p in objs:
        ps = gen[p.name]
        if ps.skipped:
            out.append(f"probe {p.name} skipped: {ps.skipped}")
        elif not ps.samples:
            out.append(f"probe {p.name}: no samples (of {ps.available} candidates)")
        for key in ("fallback", "lemmatizer", "prepositions", "typo_source"):
            v = str(ps.info.get(key, ""))
            if v.startswith("fallback"):
                out.append(f"probe {p.name}: {key} {v}")
        if ps.info.get("deviation"):
            out.append(f"probe {p.name}: {ps.info['deviation']}")
    for label, info in infos.items():
        if info.delta == 0 and info.spec.mode != "explicit":
            out.append(f"model {label}: calibrated delta is 0 (ties in the calibration ranking)")
        out.extend(f"model {label}: {w}" for w in info.warnings)
    return tuple(out)


def run_probes(
    probes: Sequence[Probe | str],
    rankers: Any,
    collection: Any = None,
    *,
    delta: DeltaSpec | str | float | Sequence[str] | Mapping[str, DeltaSpec | str | float] | None = DEFAULTS.delta,
    calibration_collection: Any = None,
    engine: Any = None,
    seed: int = 0,
    alpha: float = DEFAULTS.alpha,
    correction: str = DEFAULTS.correction,
    n_boot: int = DEFAULTS.n_boot,
    probe_options: Mapping[str, Any] | None = None,
    samples: Mapping[str, ProbeSamples] | None = None,
    symmetric_test: str = DEFAULTS.symmetric_test,
    params: Mapping[str, Any] | None = None,
    correction_scope: str = DEFAULTS.correction_scope,
) -> Result:
    """Run probes for rankers and return a ``probes-table`` result.

    Args:
        probes: probe objects or registered names.
        rankers: a ranker, a sequence (labelled by ``name``) or ``{label: ranker}``.
        collection: collection for measure-and-match/manipulation probes (and δ calibration).
        delta: δ spec for all models or ``{label: spec}`` (``"calibrate"`` default, ``"p25"``,
            a number, or a :class:`DeltaSpec`, e.g. with a TREC ``run`` to re-rank), or the
            ``Params.delta`` items (``VALUE`` and ``LABEL=VALUE`` strings, :func:`delta_specs`).
        calibration_collection: where δ is calibrated (default ``collection``).
        engine: scoring engine (default: the process-wide one).
        seed: sample generation and bootstrap seed.
        alpha: significance level after correction (``p_adjusted < alpha``; the paper: 0.01).
        correction: ``bonferroni`` (default, the paper), ``holm``, ``bh`` or ``none``.
        correction_scope: the family the correction runs over: ``table`` (default, the paper's
            "Bonferroni correction over each table": the cells of each probe family, i.e. Table
            1 measure-and-match, Table 2 manipulation, Table 3 transfer, all models) or ``all``
            (every cell of the result).
        n_boot: bootstrap resamples for the CI of each score.
        probe_options: options passed to probe factories when ``probes`` holds names.
        samples: precomputed samples by probe name (skips generation for those).
        symmetric_test: ``abs`` (default) or ``signed``, see :func:`summarize_diffs`.
        params: the full parameters of the run, recorded in the provenance.

    Returns:
        ``Result(kind="probes-table")``: ``table`` has one row per (probe, model) with
        :data:`PROBE_TABLE_COLUMNS`; ``tables["samples"]`` the per-sample scores
        (:data:`SAMPLE_COLUMNS`); ``tables["texts"]`` the scored texts (:data:`TEXT_COLUMNS`);
        ``tables["deltas"]`` each model's δ; ``tables["calibration"]`` the calibration differences.
    """
    from ..engine import default_engine

    from .catalog import get_probe

    if correction_scope not in CORRECTION_SCOPES:
        raise ValidationError(f"correction_scope must be one of {CORRECTION_SCOPES}, got {correction_scope!r}")
    engine = engine or default_engine()
    objs = [p if isinstance(p, Probe) else get_probe(p, **dict(probe_options or {})) for p in probes]
    labelled = _labels(rankers)
    gen = dict(samples or {})
    gen.update(generate_samples([p for p in objs if p.name not in gen], collection, seed=seed))
    hashes = {name: samples_hash(ps.samples) for name, ps in gen.items()}
    calls_before = dict(engine.stats.by_fingerprint)
    infos = _deltas(labelled, delta, calibration_collection if calibration_collection is not None else collection,
                    engine)
    calls_after_delta = dict(engine.stats.by_fingerprint)
    scores = _score(labelled, objs, gen, engine)
    rows, sample_rows = _rows(objs, gen, hashes, infos, scores, collection, seed=seed, n_boot=n_boot,
                              symmetric_test=symmetric_test)
    table = pd.DataFrame(rows, columns=[c for c in PROBE_TABLE_COLUMNS if c not in ("p_adjusted", "significant")])
    table["p_adjusted"] = np.nan
    groups = table.groupby("family", sort=False).groups if correction_scope == "table" else {"all": table.index}
    for idx in groups.values():
        table.loc[idx, "p_adjusted"] = adjust_pvalues(table.loc[idx, "p_value"].to_numpy(np.float64), correction)
    table["significant"] = (table["p_adjusted"] < alpha).astype(bool)
    def _calls(after: Mapping[str, int], before: Mapping[str, int]) -> dict[str, int]:
        return {label: after.get(r.fingerprint, 0) - before.get(r.fingerprint, 0) for label, r in labelled.items()}

    calls = _calls(engine.stats.by_fingerprint, calls_before)
    probe_calls = _calls(engine.stats.by_fingerprint, calls_after_delta)
    distinct = len({(s.query, t) for ps in gen.values() for s in ps.samples for t in (s.text_1, s.text_2)})
    summary = {
        "n_probes": len(objs), "models": list(labelled), "alpha": alpha, "correction": correction,
        "correction_scope": correction_scope,
        "symmetric_test": symmetric_test, "deltas": {k: v.delta for k, v in infos.items()},
        "calibration": {k: v.describe for k, v in infos.items()},
        "sign_convention": SIGN_CONVENTION,
        "skipped": {name: ps.skipped for name, ps in gen.items() if ps.skipped},
        "probe_pairs_distinct": distinct, "model_calls": calls, "model_calls_probes": probe_calls,
        "bm25": bm25_models(labelled),
    }
    return Result(kind="probes-table", summary=summary, table=table[PROBE_TABLE_COLUMNS],
                  provenance=_provenance(objs, gen, hashes, labelled, infos, collection, seed=seed, params={
                      **dict(params or {}), "alpha": alpha, "correction": correction, "correction_scope": correction_scope, "n_boot": n_boot,
                      "symmetric_test": symmetric_test}),
                  tables={"samples": pd.DataFrame(sample_rows, columns=SAMPLE_COLUMNS), "texts": _texts(objs, gen),
                          "deltas": _delta_frame(infos, labelled), "calibration": _calibration_frame(infos)},
                  warnings=probe_warnings(objs, gen, infos) + model_warnings(labelled, scores))


def _delta_frame(infos: Mapping[str, DeltaInfo], labelled: Mapping[str, Any]) -> pd.DataFrame:
    return pd.DataFrame([{"model": k, "fingerprint": labelled[k].fingerprint, **v.as_dict()} for k, v in infos.items()])


def _calibration_frame(infos: Mapping[str, DeltaInfo]) -> pd.DataFrame:
    return pd.DataFrame([(k, float(d)) for k, v in infos.items() for d in v.diffs], columns=["model", "diff"])


def _provenance(objs: Sequence[Probe], gen: Mapping[str, ProbeSamples], hashes: Mapping[str, str],
                labelled: Mapping[str, Any], infos: Mapping[str, DeltaInfo], collection: Any, *, seed: int,
                params: Mapping[str, Any]) -> Any:
    return make_provenance(
        params={**params, "test": "paired t-test (two-sided)", "ci": "percentile bootstrap 95% of the score",
                "probe_details": {p.name: {"version": p.version, "params": p.params(), "info": dict(gen[p.name].info),
                                    "available": gen[p.name].available, "n": len(gen[p.name].samples)}
                           for p in objs},
                "deltas": {k: v.as_dict() for k, v in infos.items()},
                "collection": getattr(collection, "name", None)},
        components={k: repr(r) for k, r in labelled.items()} | {f"{k}.fingerprint": r.fingerprint
                                                                for k, r in labelled.items()},
        inputs={f"samples:{name}": f"sha256:{h}" for name, h in hashes.items()},
        seed=seed,
    )


# ---------------------------------------------------------------------------------- δ sweep
def delta_sweep(result: Result, *, names: Sequence[str] | None = None,
                percentiles: Sequence[float] = tuple(range(0, 101, 5))) -> Result:
    """Probe score as δ moves through the percentiles (0-100) of each model's calibration
    differences (paper Fig. 2). Needs a ``probes-table`` result whose models were calibrated
    (``tables["calibration"]``); ``names``: the probes swept (default: every one).

    Returns:
        ``Result(kind="probes-delta-sweep")`` with table ``probe, model, percentile, delta, score``.
    """
    check_kind(result, "probes-table")
    cal = result.tables.get("calibration")
    samples = result.tables["samples"]
    if cal is None or cal.empty:
        raise ValidationError("delta sweep needs calibration differences: run the probes with a "
                              "calibrated delta (not an explicit number)")
    sym = dict(zip(result.table["probe"], result.table["symmetric"].astype(bool)))
    names = list(names) if names is not None else list(dict.fromkeys(result.table["probe"]))
    rows = []
    for model, cg in cal.groupby("model", sort=False):
        diffs = cg["diff"].to_numpy(np.float64)
        for p in names:
            d = samples[(samples["probe"] == p) & (samples["model"] == model)]["diff"].to_numpy(np.float64)
            if len(d) == 0:
                continue
            for pc in percentiles:
                delta = float(np.percentile(diffs, pc))
                rows.append({"probe": p, "model": model, "percentile": float(pc), "delta": delta,
                             "score": float(probe_effects(d, delta, sym.get(p, False)).mean())})
    table = pd.DataFrame(rows, columns=["probe", "model", "percentile", "delta", "score"])
    prov = make_provenance(params={"percentiles": list(percentiles), "source": "probes-table"},
                           inputs=dict(result.provenance.inputs))
    return Result(kind="probes-delta-sweep", summary={"probes": names, "models": list(cal["model"].unique())},
                  table=table, provenance=prov)
