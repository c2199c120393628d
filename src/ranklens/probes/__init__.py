"""ABNIRML behavioural probes (MacAvaney et al., TACL 2022) for any ranker.

Quick use::

    from ranklens.probes import run_probes, format_table
    res = run_probes(["mm-*"...], {"bm25": bm25, "minilm": minilm}, collection, delta="calibrate")
    print(format_table(res))

* :mod:`.base` - samples, :class:`Probe`, registry (``list_probes``, ``select_probes``,
  ``get_probe``, ``register_probe``).
* :mod:`.builtin` - measure-and-match, textual-manipulation and dataset-transfer probes and
  the dataset loaders.
* :mod:`.delta` - per-model δ (calibration, percentile, explicit).
* :mod:`.run` - scoring through the engine, effects, significance, result store.
* :mod:`.report` - tables, δ sweep, seed variance, plots, samples with texts.
* :mod:`.paper` - the paper's Tables 1-3 over one or several results.
* :mod:`.tools` - ``ranklens probes show|table|seed-variance``.
"""

from __future__ import annotations

from .base import (
    Probe,
    ProbeSample,
    ProbeSamples,
    get_probe,
    list_probes,
    register_probe,
    samples_frame,
    samples_hash,
    select_probes,
)
from .delta import DeltaSpec, calibrate_delta, calibration_diffs, delta_specs, parse_delta
from .paper import paper_tables
from .report import (
    delta_sweep,
    format_table,
    plot_delta_sweep,
    plot_diff_distributions,
    seed_variance,
    seed_variance_table,
    show_samples,
)
from .run import adjust_pvalues, generate_samples, probe_effects, run_probes, summarize_diffs

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
