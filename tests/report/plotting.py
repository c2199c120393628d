from __future__ import annotations


def good(result):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.bar(result.table["model"], result.table["value"])
    ax.set_xlabel("model")
    return fig


def bad(result):
    raise RuntimeError("boom")


def use_plots(monkeypatch, plots: dict) -> None:
    """Replace the declared plots of the given result kinds (``{kind: [spec, ...]}``) for one test."""
    import dataclasses

    import ranklens.report.views as report_mod
    from ranklens.declare import ResultKind

    original = report_mod.kind_info

    def patched(kind):
        info = original(kind)
        if kind not in plots:
            return info
        info = info if info is not None else ResultKind(name=kind)
        return dataclasses.replace(info, plots=tuple(plots[kind]))

    monkeypatch.setattr(report_mod, "kind_info", patched)
