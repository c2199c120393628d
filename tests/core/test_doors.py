"""One check over the registry: every analysis gives IDENTICAL tables through Python
(``drive.run_analysis``), the derived CLI and an experiment file, with its ``demo`` parameters
(``ranklens.testing.check_doors``, the check a plug-in author runs on theirs)."""

from __future__ import annotations

import pytest

from ranklens.registry import ANALYSES
from ranklens.testing import check_doors

# the demo parameters keep every analysis small; these still load a neural model or train one
SLOW = {"probes", "regimes", "explain"}
# the demo's MiniLM comparison left out where the analysis has it, to keep the check at BM25 and TF-IDF
PARAMS = {"asl": {"compare": ()}}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in ANALYSES])
def test_every_door_gives_identical_numbers(name, tmp_path, monkeypatch):
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "cache"))
    assert check_doors(name, work_dir=tmp_path, params=PARAMS.get(name)) == ["doors_identical"]

