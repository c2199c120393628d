"""docs/notebooks/quickstart.ipynb executes from a fresh kernel and its results display inline."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NB = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "quickstart.ipynb"


def test_quickstart_notebook_executes_and_displays(tmp_path):
    nb = nbformat.read(NB, as_version=4)
    for cell in nb.cells:  # start from nothing: the stored outputs must not be what is checked
        if cell.cell_type == "code":
            cell.outputs = []
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
                            ).execute()  # raises CellExecutionError on any failing cell
    html = [o["data"]["text/html"] for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if o.get("output_type") == "execute_result" and "text/html" in o.get("data", {})]
    shown = html[0]
    assert "probes-table" in shown and "<table" in shown and "data:image/png;base64," in shown
    assert "overlap" in shown and "bm25" in shown
