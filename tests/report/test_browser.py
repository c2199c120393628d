"""End-to-end: open a report in headless Chromium (Debian's chromium + chromium-driver), check that
every section renders, no console error occurs, sorting and the model filter work; save a
screenshot under ``build/test-artifacts/``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranklens.report import Report
from ranklens.results import Result, make_provenance

from .plotting import use_plots

ARTIFACTS = Path(os.environ.get("RANKLENS_ARTIFACTS", Path(__file__).resolve().parents[2] / "build" / "test-artifacts"))


def _driver():
    webdriver = pytest.importorskip("selenium.webdriver")
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_bin = shutil.which("chromedriver")
    if not chrome or not driver_bin:
        pytest.skip("headless Chromium not installed (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chrome
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_bin), options=opts)


def _bar(result):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(result.table["model"].astype(str), result.table["value"], label="value")
    ax.set_xlabel("model")
    ax.set_ylabel("value")
    ax.legend()
    return fig


def test_report_in_headless_chromium(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    kinds = ["asl-evaluate", "probe-table", "n2o-matrix", "regime-table", "explain-consistency"]
    for i, kind in enumerate(kinds):
        table = pd.DataFrame({
            "model": ["bm25", "minilm", "tfidf"] * 4,
            "item": [f"<script>alert({i})</script>" if j == 0 else f"q{j}" for j in range(12)],
            "value": rng.random(12).round(4),
        })
        Result(kind=kind, summary={"mean": float(table["value"].mean())}, table=table,
               provenance=make_provenance(params={"i": i})).save(tmp_path / "res" / kind)
    use_plots(monkeypatch, {kind: ["tests.report.test_browser:_bar"] for kind in kinds})
    out = Report.from_dirs([tmp_path / "res"], title="browser test").save(tmp_path / "report.html")

    driver = _driver()
    try:
        driver.get(out.as_uri())
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import Select

        titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "section.analysis > h2")]
        assert titles[0] == "Summary across models"
        for expected in ("Atomized search length", "Behavioural probes (ABNIRML)", "Nearest-neighbour overlap",
                         "Interpolation vs extrapolation", "Explanation consistency"):
            assert expected in titles
        assert len(driver.find_elements(By.CSS_SELECTOR, "figure svg")) == len(kinds)
        assert driver.execute_script("return window.__alerted === undefined")
        # sort the first per-item table by value (numeric, ascending then descending)
        table = driver.find_elements(By.CSS_SELECTOR, "article.result table.sortable")[1]
        header = table.find_elements(By.TAG_NAME, "th")[2]
        header.click()
        col = [float(td.get_attribute("data-v")) for td in table.find_elements(By.CSS_SELECTOR, "tbody td:nth-child(3)")]
        assert col == sorted(col)
        header.click()
        col = [float(td.get_attribute("data-v")) for td in table.find_elements(By.CSS_SELECTOR, "tbody td:nth-child(3)")]
        assert col == sorted(col, reverse=True)
        # filter to one model
        select = driver.find_elements(By.CSS_SELECTOR, "select.model-filter")[0]
        Select(select).select_by_value("minilm")
        tid = select.get_attribute("data-table")
        visible = driver.execute_script(
            f"return Array.from(document.getElementById('{tid}').tBodies[0].rows)"
            ".filter(r => r.style.display !== 'none').map(r => r.cells[0].textContent)")
        assert visible and set(visible) == {"minilm"}
        # escaped text shows as text
        assert driver.execute_script(
            "return Array.from(document.querySelectorAll('td')).some(td => td.textContent === '<script>alert(0)</script>')")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(ARTIFACTS / "report.png"))
    finally:
        driver.quit()


def test_real_report_of_a_small_experiment_in_headless_chromium(small_experiment):
    """Real results (BM25 and TF-IDF on the demo collection, every analysis): every section has
    real charts, rationales are highlighted, no console error."""
    from ranklens.experiment import load_experiment, run_experiment

    driver = _driver()
    info = run_experiment(load_experiment(small_experiment), show_progress=False)
    try:
        from selenium.webdriver.common.by import By

        driver.get(Path(info["report"]).as_uri())
        titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "section.analysis > h2")]
        for expected in ("Summary across models", "Atomized search length", "Behavioural probes (ABNIRML)",
                         "Nearest-neighbour overlap", "Interpolation vs extrapolation", "Explanation consistency"):
            assert expected in titles
        for section in driver.find_elements(By.CSS_SELECTOR, "section.analysis")[1:]:
            title = section.find_element(By.TAG_NAME, "h2").text
            if title != "Other results":
                assert section.find_elements(By.CSS_SELECTOR, "figure svg"), f"no chart in {title}"
        assert driver.find_elements(By.CSS_SELECTOR, "mark"), "no highlighted rationale"
        overview = driver.find_elements(By.CSS_SELECTOR, "section.analysis")[0].text
        assert "bm25" in overview and "tfidf" in overview
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.set_window_size(1400, 4000)
        assert driver.save_screenshot(str(ARTIFACTS / "report-experiment.png"))
    finally:
        driver.quit()
