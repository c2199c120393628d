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
