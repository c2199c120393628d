"""LaTeX output escapes every text it prints: captions (directory names, kinds), column names,
cells and warnings. Checked against a reference written here: after the commands the renderer
itself emits are removed, no backslash, brace, ``$``, ``&``, ``#``, ``^``, ``~``, ``%`` outside a
comment, or blank line is left."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.report import Report
from ranklens.results import Result, make_provenance

# what the renderer itself may write (pandas' table environment, booktabs rules, our escapes)
_OURS = re.compile(r"\\(begin|end)\{(table|tabular)\}(\{l+\})?|\\caption\{|\\(top|mid|bottom)rule|\\\\$"
                   r"|\\text(backslash|asciitilde|asciicircum)\{\}|\\[&%$#_{}]|\$\^\{\*\}\$")
EVIL = [r"\input{/etc/passwd}", r"\write18{rm -rf x}", "a$b&c#d^e~f%g_h{i}j", "line\n\nbreak", "\\"]


def _unescaped(tex: str) -> list[str]:
    """Lines that still hold a LaTeX special character once the renderer's own markup is removed."""
    bad = []
    lines = tex.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("% warning: "):
            line = line[len("% warning: "):]
        rest = _OURS.sub("", line).replace(" & ", " ")  # column separators
        if line.startswith("\\caption{"):
            rest = rest.removesuffix("}")
        if re.search(r"[\\{}$&#^~%]", rest):
            bad.append(line)
        if not line.strip() and 0 < i < len(lines) - 1 and lines[i - 1].strip() and not lines[i + 1].startswith(
                ("\\begin", "%")):
            bad.append("<blank line inside a table>")
    return bad


def _evil_result(kind: str, text: str) -> Result:
    table = pd.DataFrame({"model": [text, "b"], text: [0.5, 0.25], "note": [text, "plain"]})
    return Result(kind=kind, summary={}, table=table, provenance=make_provenance(), warnings=(text,))


def test_the_reference_catches_what_it_should():
    assert _unescaped(r"\begin{table}" + "\n" + r"\caption{x \input{y}}") != []
    assert _unescaped("a & b \\\\\n" + "x % y") != []
    assert _unescaped(r"\begin{table}" + "\n" + r"\caption{x \textbackslash{}input\{y\}}" + "\n"
                      + r"a & b \\") == []


@pytest.mark.parametrize("text", EVIL, ids=["input", "write18", "specials", "blank-line", "backslash"])
def test_every_text_of_a_result_is_escaped(tmp_path, text):
    res = _evil_result(f"asl-{text}", text)
    d = tmp_path / "res"
    res.save(d)
    tex = Report.from_dirs([d]).render_latex()
    assert _unescaped(tex) == [], tex
    assert "\\input" not in tex and "\\write18" not in tex


@pytest.mark.parametrize("name", [r"\input{x}", "50%_{done}", "a~b^c"])
def test_directory_names_in_captions_are_escaped(tmp_path, capsys, name):
    d = tmp_path / name
    Result(kind="asl-evaluate", summary={}, table=pd.DataFrame({"a": [1]}), provenance=make_provenance()).save(d)
    out = tmp_path / "r.tex"
    assert main(["report", str(d), "-o", str(out)]) == 0
    tex = out.read_text()
    caption = next(line for line in tex.splitlines() if line.startswith("\\caption{"))
    assert _unescaped(tex) == [], tex
    assert caption.count("{") == caption.count("}") and not re.search(r"\\input|(?<!\\)[%~^]", caption), caption
