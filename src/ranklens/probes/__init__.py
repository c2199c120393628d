"""ABNIRML behavioural probes (MacAvaney et al., TACL 2022) for any ranker.

Quick use::

    from ranklens.probes import run_probes, format_table
    res = run_probes(["mm-*"...], {"bm25": bm25, "minilm": minilm}, collection, delta="calibrate")
    print(format_table(res))

* :mod:`.declaration` - ``Params`` and ``ANALYSIS``; :mod:`.driver` - the analysis's ``run``.
* :mod:`.base` - samples and the :class:`Probe` base class.
* :mod:`.catalog` - the probes by name (``list_probes``, ``select_probes``, ``get_probe``,
  ``register_probe``) and the built-in probes registered there.
* :mod:`.measure_match`, :mod:`.manipulation`, :mod:`.transfer` - the three probe families (the
  transfer datasets are read by :mod:`ranklens.io.pairs`); :mod:`.nlp`, :mod:`.typos`,
  :mod:`.expansion` - what their constructions use.
* :mod:`.delta` - per-model δ (calibration, percentile, explicit).
* :mod:`.run` - scoring through the engine, effects, significance, δ sweep.
* :mod:`.paper` - one result's table and the paper's Tables 1-3 over one or several results.
* :mod:`.seeds` - variance across checkpoints (the paper's Table 4).
* :mod:`.plots` - δ sweep and score-difference plots; :mod:`.show` - samples with their texts.
* :mod:`.findings` - the report's sentences; :mod:`.tools` - ``ranklens probes show|table|seed-variance``.
"""

from __future__ import annotations

from .._lazy import lazy_exports

# the public names load from their modules on first use: importing the package (and its
# declaration, for `ranklens --help`) costs nothing
_WHERE = {
    "Probe": ".base",
    "ProbeSample": ".base",
    "ProbeSamples": ".base",
    "samples_frame": ".base",
    "samples_hash": ".base",
    "get_probe": ".catalog",
    "list_probes": ".catalog",
    "register_probe": ".catalog",
    "select_probes": ".catalog",
    "DeltaSpec": ".delta",
    "calibrate_delta": ".delta",
    "calibration_diffs": ".delta",
    "delta_specs": ".delta",
    "parse_delta": ".delta",
    "format_table": ".paper",
    "paper_tables": ".paper",
    "plot_delta_sweep": ".plots",
    "plot_diff_distributions": ".plots",
    "adjust_pvalues": ".run",
    "delta_sweep": ".run",
    "generate_samples": ".run",
    "probe_effects": ".run",
    "run_probes": ".run",
    "summarize_diffs": ".run",
    "seed_variance": ".seeds",
    "seed_variance_table": ".seeds",
    "show_samples": ".show",
}
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = [
    "DeltaSpec",
    "Probe",
    "ProbeSample",
    "ProbeSamples",
    "adjust_pvalues",
    "calibrate_delta",
    "calibration_diffs",
    "delta_specs",
    "delta_sweep",
    "format_table",
    "generate_samples",
    "get_probe",
    "list_probes",
    "paper_tables",
    "parse_delta",
    "plot_delta_sweep",
    "plot_diff_distributions",
    "probe_effects",
    "register_probe",
    "run_probes",
    "samples_frame",
    "samples_hash",
    "seed_variance",
    "seed_variance_table",
    "select_probes",
    "show_samples",
    "summarize_diffs",
]
