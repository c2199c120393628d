"""End-to-end: open reports in headless Chromium (Debian's ``chromium`` + ``chromium-driver``,
driven by selenium; skipped with the reason when either is missing) at 1400x900 and check what a
reader sees: the headline table on the first screen, findings before any table or figure in
every section, no horizontal overflow, paginated tables and rationales, the section model filter,
sorting, escaping, no console error. Screenshots (first screen and full page) go to
``build/test-artifacts/`` (``RANKLENS_ARTIFACTS`` overrides)."""

from __future__ import annotations

import base64
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
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1400,900")


def _driver():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install selenium)")
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_bin = shutil.which("chromedriver")
    if not chrome or not driver_bin:
        pytest.skip("headless Chromium not installed (apt-get install -y chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chrome
    for a in FLAGS:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_bin), options=opts)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    return driver


def _screenshots(driver, stem: str) -> int:
    """First screen and full page (capped at 16,000 px); returns the page height."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0)")
    assert driver.save_screenshot(str(ARTIFACTS / f"{stem}-first.png"))
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    png = driver.execute_cdp_cmd("Page.captureScreenshot", {"captureBeyondViewport": True, "clip": {
        "x": 0, "y": 0, "width": 1400, "height": min(height, 16000), "scale": 0.5}})
    (ARTIFACTS / f"{stem}-full.png").write_bytes(base64.b64decode(png["data"]))
    return height


def _console_errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


# what every report must satisfy (run in the page; returns a list of problems)
LAYOUT_JS = """
const problems = [];
const head = document.querySelector('#headline table.headline');
if (!head) { if (arguments[0]) problems.push('no headline table'); }
else {
  const r = head.getBoundingClientRect();
  if (r.top < 0 || r.top > 900 || r.height === 0) problems.push('headline table not on the first screen: top ' + r.top);
}
if (document.documentElement.scrollWidth > 1400) problems.push('page overflows: ' + document.documentElement.scrollWidth);
document.querySelectorAll('section.analysis:not(#headline)').forEach(sec => {
  const f = sec.querySelector('.findings');
  if (!f) { problems.push('no findings in ' + sec.dataset.section); return; }
  sec.querySelectorAll('table, figure, svg').forEach(el => {
    if (f.contains(el)) return;
    if (!(f.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING))
      problems.push('a ' + el.tagName + ' comes before the findings in ' + sec.dataset.section);
  });
});
return problems;
"""


def _bar(result):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(result.table["model"].astype(str), result.table["value"], label="value")
    ax.set_xlabel("model")
    ax.set_ylabel("value")
    return fig


def test_report_in_headless_chromium(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    kinds = ["asl-evaluate", "probes-table", "neighbors-matrix", "regimes-table", "explain-consistency"]
    for i, kind in enumerate(kinds):
        table = pd.DataFrame({
            "model": ["bm25", "minilm", "tfidf"] * 12,
            "item": [f"<script>alert({i})</script>" if j == 0 else f"q{j}" for j in range(36)],
            "value": rng.random(36).round(4),
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

        titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "section.analysis h2")]
        assert titles[0] == "Headline"
        for expected in ("Atomized search length", "Behavioural probes (ABNIRML)", "Nearest-neighbour overlap",
                         "Interpolation vs extrapolation", "Explanation consistency"):
            assert expected in titles
        assert len(driver.find_elements(By.CSS_SELECTOR, "figure svg")) == len(kinds)
        assert driver.execute_script("return window.__alerted === undefined")
        # the per-item tables are folded; open the first one: 36 rows, 15 a page
        more = driver.find_elements(By.CSS_SELECTOR, "details.more")[0]
        more.find_element(By.TAG_NAME, "summary").click()
        inner = more.find_elements(By.CSS_SELECTOR, "details.tbl")[0]
        inner.find_element(By.TAG_NAME, "summary").click()
        table = inner.find_element(By.CSS_SELECTOR, "table.sortable")
        visible = "return Array.from(arguments[0].tBodies[0].rows).filter(r => r.style.display !== 'none')" \
                  ".map(r => r.cells[arguments[1]].getAttribute('data-v'))"
        assert len(driver.execute_script(visible, table, 2)) == 15
        pager = inner.find_element(By.CSS_SELECTOR, ".pager")
        assert "page 1 of 3 (36 rows)" in pager.text
        # sort by value: ascending, then descending; the first page holds the 15 smallest / largest
        header = table.find_elements(By.TAG_NAME, "th")[2]
        values = sorted(float(td.get_attribute("data-v"))
                        for td in table.find_elements(By.CSS_SELECTOR, "tbody td:nth-child(3)"))
        header.click()
        assert [float(v) for v in driver.execute_script(visible, table, 2)] == values[:15]
        header.click()
        assert [float(v) for v in driver.execute_script(visible, table, 2)] == values[::-1][:15]
        pager.find_element(By.CSS_SELECTOR, ".next").click()
        assert [float(v) for v in driver.execute_script(visible, table, 2)] == values[::-1][15:30]
        # the section's model filter: every visible row of the section's tables is that model's
        section = table.find_element(By.XPATH, "./ancestor::section")
        Select(section.find_element(By.CSS_SELECTOR, "select.section-filter")).select_by_value("minilm")
        shown = driver.execute_script(
            "return Array.from(arguments[0].querySelectorAll('table.sortable[data-model-col]')).flatMap(t => "
            "Array.from(t.tBodies[0].rows).filter(r => r.style.display !== 'none')"
            ".map(r => r.cells[+t.dataset.modelCol].textContent))", section)
        assert shown and set(shown) == {"minilm"}
        assert "(12 rows)" in inner.find_element(By.CSS_SELECTOR, ".pager").text
        # escaped text shows as text
        assert driver.execute_script(
            "return Array.from(document.querySelectorAll('td')).some(td => td.textContent === '<script>alert(0)</script>')")
        assert driver.execute_script(LAYOUT_JS, False) == []
        assert _console_errors(driver) == []
        _screenshots(driver, "report")
    finally:
        driver.quit()


def test_real_report_of_a_small_experiment_in_headless_chromium(small_experiment):
    """Real results (BM25 and TF-IDF on the demo collection, every analysis): the headline table
    is on the first screen with both models, every section starts with findings, the page does not
    overflow and stays under 15,000 px, rationales are paginated by query, no console error."""
    from ranklens.experiment import load_experiment, run_experiment

    driver = _driver()
    info = run_experiment(load_experiment(small_experiment), show_progress=False)
    try:
        from selenium.webdriver.common.by import By

        driver.get(Path(info["report"]).as_uri())
        titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "section.analysis h2")]
        for expected in ("Headline", "Atomized search length", "Behavioural probes (ABNIRML)",
                         "Nearest-neighbour overlap", "Interpolation vs extrapolation", "Explanation consistency"):
            assert expected in titles
        for section in driver.find_elements(By.CSS_SELECTOR, "section.analysis")[1:]:
            title = section.find_element(By.TAG_NAME, "h2").text
            assert section.find_elements(By.CSS_SELECTOR, ".findings li"), f"no findings in {title}"
            if title != "Other results":
                assert section.find_elements(By.CSS_SELECTOR, "figure svg"), f"no chart in {title}"
        headline = driver.find_element(By.ID, "headline")
        assert "bm25" in headline.text and "tfidf" in headline.text
        assert driver.execute_script(LAYOUT_JS, True) == []
        # rationales: one query a page, a query list, next / previous
        box = driver.find_element(By.CSS_SELECTOR, ".rl-explain-docs[data-paginated]")
        n = int(box.get_attribute("data-paginated"))
        shown = "return Array.from(arguments[0].querySelectorAll('.rl-explain-query'))" \
                ".filter(q => q.style.display !== 'none').map(q => q.id)"
        first = driver.execute_script(shown, box)
        assert len(first) == 1 and n >= 2
        assert len(box.find_elements(By.CSS_SELECTOR, "select.rl-query-list option")) == n
        box.find_element(By.CSS_SELECTOR, ".rl-pager .next").click()
        second = driver.execute_script(shown, box)
        assert len(second) == 1 and second != first
        box.find_element(By.CSS_SELECTOR, ".rl-pager .prev").click()
        assert driver.execute_script(shown, box) == first
        assert box.find_elements(By.CSS_SELECTOR, "mark"), "no highlighted rationale"
        # the probes section's model filter also hides the other model's column of the paper table
        from selenium.webdriver.support.ui import Select

        probes = driver.find_element(By.CSS_SELECTOR, "section[data-section='Behavioural probes (ABNIRML)']")
        Select(probes.find_element(By.CSS_SELECTOR, "select.section-filter")).select_by_value("tfidf")
        heads = driver.execute_script(
            "return Array.from(arguments[0].querySelectorAll('table.main th'))"
            ".filter(h => h.style.display !== 'none').map(h => h.textContent)", probes)
        assert "tfidf" in heads and "bm25" not in heads
        assert _console_errors(driver) == []
        height = _screenshots(driver, "report-experiment")
        assert height < 15000, f"the report is {height} px tall at 1400 px"
    finally:
        driver.quit()
