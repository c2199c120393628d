"""One vocabulary: the probe factories take the ``Params`` names (the options are the ``Params``
fields themselves), the old option names still work for one release with a FutureWarning, and every
kernel default of a ``Params``-named parameter is the declared one."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import ranklens.probes as probes
from ranklens.probes import get_probe
from ranklens.probes.catalog import RENAMED_OPTIONS
from ranklens.probes.declaration import Params
from ranklens.probes.driver import probe_options


def test_options_are_the_params_fields():
    p = Params(mm_len_tolerance=0.25, typo_rate=0.1, misspellings="char", nonrel_source="other-query", cap=7)
    opts = probe_options(p)
    assert set(opts) == {f.name for f in dataclasses.fields(Params)}
    assert get_probe("mm-rel-ctrl-len", **opts).params()["mm_len_tolerance"] == 0.25
    assert get_probe("tr-typo", **opts).params()["typo_rate"] == 0.1
    assert get_probe("tr-add-nonrel-sent", **opts).params()["nonrel_source"] == "other-query"
    assert get_probe("tr-shuffle-words", **opts).cap == 7


@pytest.mark.parametrize(("old", "new"), sorted(RENAMED_OPTIONS.items()))
def test_old_option_names_warn_and_map(old, new):
    assert new in {f.name for f in dataclasses.fields(Params)}
    value = {"rate": 0.2, "len_tolerance": 0.3, "overlap_tolerance": 0.1, "overlap_zeros": True,
             "split": "test", "reference": "1", "question_filter": "any-token", "pairs_path": "x.tsv"}[old]
    probe = {"rate": "tr-typo", "len_tolerance": "mm-rel-ctrl-len", "overlap_tolerance": "mm-rel-ctrl-overlap",
             "overlap_zeros": "mm-rel-ctrl-overlap", "split": "ds-paraphrase-mrpc", "reference": "ds-fluency-jfleg",
             "question_filter": "ds-factuality-nq", "pairs_path": "pairs"}[old]
    with pytest.warns(FutureWarning, match=new):
        got = get_probe(probe, misspellings="char", missing_data="skip", **{old: value})
    assert repr(got) == repr(get_probe(probe, misspellings="char", missing_data="skip", **{new: value}))


def test_kernel_defaults_are_the_declared_ones():
    defaults = Params()
    fields = {f.name for f in dataclasses.fields(Params)}
    bad = []
    for m in pkgutil.walk_packages(probes.__path__, "ranklens.probes."):
        mod = importlib.import_module(m.name)
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
                continue
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            for p in sig.parameters.values():
                if p.name in fields and p.default is not p.empty and p.default != getattr(defaults, p.name):
                    bad.append(f"{mod.__name__}.{name}({p.name}={p.default!r})")
    assert not bad
