"""Shared fixtures. Real-data tests (``@pytest.mark.realdata``) read ``../shared/data`` and run
only with ``--realdata`` (or ``RANKLENS_REALDATA=1``); slow tests (``@pytest.mark.slow``: real
neural models, training, full demo runs) only with ``--slow`` (or ``RANKLENS_SLOW=1``). CI passes
both flags, so it runs every test; the default local run stays fast."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _shared_data() -> Path:
    """The real data for ``--realdata`` tests: ``$RANKLENS_DATA`` (``$RANKLENS_SHARED_DATA``, its old
    name), else this checkout's sibling ``shared/data`` (located from this file, not the working
    directory). Only real-data tests see it (as ``$RANKLENS_DATA``); every other test runs with no
    data root and an empty user data cache."""
    env = os.environ.get("RANKLENS_DATA") or os.environ.get("RANKLENS_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


_SHARED = _shared_data()  # read once, before the per-test isolation clears the variables


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--realdata", action="store_true", help="run tests that read ../shared/data")
    parser.addoption("--slow", action="store_true", help="run slow tests (real models, training, full demo)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run_real = config.getoption("--realdata") or os.environ.get("RANKLENS_REALDATA") == "1"
    data_ok = _SHARED.is_dir()
    skip_flag = pytest.mark.skip(reason="real-data test: run with --realdata")
    skip_missing = pytest.mark.skip(reason=f"real data not found at {_SHARED}")
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except Exception:  # torch not installed
        has_gpu = False
    skip_gpu = pytest.mark.skip(reason="needs a CUDA device")
    run_slow = config.getoption("--slow") or os.environ.get("RANKLENS_SLOW") == "1"
    skip_slow = pytest.mark.skip(reason="slow test: run with --slow")
    for item in items:
        if "slow" in item.keywords and not run_slow:
            item.add_marker(skip_slow)
        if "realdata" in item.keywords:
            if not run_real:
                item.add_marker(skip_flag)
            elif not data_ok:
                item.add_marker(skip_missing)
        if "gpu" in item.keywords and not has_gpu:
            item.add_marker(skip_gpu)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real data root (:func:`_shared_data`)."""
    return _SHARED


@pytest.fixture(autouse=True)
def _data_roots(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                monkeypatch: pytest.MonkeyPatch) -> None:
    """No test finds external data by accident: the data variables are cleared and the user data
    cache is an empty folder; a ``realdata`` test gets ``$RANKLENS_DATA`` = the real data root."""
    for var in ("RANKLENS_DATA", "RANKLENS_SHARED_DATA", "RANKLENS_PROBE_DATA", "RANKLENS_DATA_MIRROR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RANKLENS_DATA_CACHE", str(tmp_path_factory.mktemp("data-cache")))
    if "realdata" in request.keywords:
        monkeypatch.setenv("RANKLENS_DATA", str(_SHARED))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own cache dir, so tests never read each other's cached scores."""
    from ranklens.engine import set_default_engine

    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("RANKLENS_PROGRESS", "0")
    set_default_engine(None)
    yield
    set_default_engine(None)


@pytest.fixture
def tiny():
    from ranklens.testing import tiny_collection

    return tiny_collection()


SMALL_EXPERIMENT = """
title = "smoke"
results = "res"
[models.bm25]
spec = "bm25"
[models.tfidf]
spec = "tfidf"
[datasets.demo]
spec = "demo"
[[analyses]]
type = "asl"
params = { k = 50, n_resamples = 200 }
[[analyses]]
type = "probes"
params = { cap = 20, probes = ["mm-tf-ctrl-len", "tr-shuffle-words"], sweep = ["tr-shuffle-words"] }
[[analyses]]
type = "neighbors"
params = { n_queries = 10, n_samples = 2, k = 5 }
[[analyses]]
type = "regimes"
params = { buckets = 2 }
[[analyses]]
type = "explain"
params = { max_queries = 2, pool = 5, k = [5], sweep_m = [1, 2], granularities = ["sentence"] }
"""


@pytest.fixture
def small_experiment(tmp_path: Path) -> Path:
    """An experiment file running every analysis with BM25 and TF-IDF on the demo collection
    (cheap: seconds), results under ``tmp_path/res``."""
    f = tmp_path / "exp.toml"
    f.write_text(SMALL_EXPERIMENT)
    return f


# tiny Hugging Face models written by the tests (no download), shared by the rankers, embedders
# and conformance tests
@pytest.fixture(scope="session")
def tiny_ce_dir(tmp_path_factory):
    from tests.rankers._tiny import tiny_bert

    return tiny_bert(tmp_path_factory.mktemp("tiny_ce"), head="cls", num_labels=1)


@pytest.fixture(scope="session")
def tiny_ce2_dir(tmp_path_factory):
    from tests.rankers._tiny import tiny_bert

    return tiny_bert(tmp_path_factory.mktemp("tiny_ce2"), head="cls", num_labels=2)


@pytest.fixture(scope="session")
def tiny_t5_dir(tmp_path_factory):
    from tests.rankers._tiny import tiny_t5

    return tiny_t5(tmp_path_factory.mktemp("tiny_t5"))


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory):
    from tests.rankers._tiny import tiny_bert

    return tiny_bert(tmp_path_factory.mktemp("tiny_bert"))
