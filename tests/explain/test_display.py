from __future__ import annotations

from ranklens.explain import Rationale, highlight_html, highlight_terminal, rationales_html

TEXT = "Safe text. <script>alert(1)</script> & more."


def test_html_escapes_everything():
    r = Rationale(1, 11, 36, TEXT[11:36], 0.4)
    out = highlight_html(TEXT, [r])
    assert "<script>" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "&amp; more." in out
    page = rationales_html([("<b>q</b>", "<d>", TEXT, [r])])
    assert "<script>" not in page and "&lt;b&gt;q&lt;/b&gt;" in page


def test_shades_follow_weights():
    rs = [Rationale(0, 0, 4, "Safe", 1.0), Rationale(1, 5, 9, "text", 0.1)]
    out = highlight_html(TEXT, rs)
    assert out.index("#ec7014") < out.index("#fff7bc")  # darkest first (weight 1), lightest second


def test_terminal_color_and_plain():
    rs = [Rationale(0, 0, 4, "Safe", 0.2), Rationale(1, 5, 9, "text", 0.9)]
    plain = highlight_terminal(TEXT, rs, color=False)
    assert plain.startswith("[[Safe]]{2} [[text]]{1}.")
    colored = highlight_terminal(TEXT, rs)
    assert "\x1b[" in colored and colored.replace("\x1b[30;48;5;", "").count("\x1b[0m") == 2
    # stripping the escape codes gives back the text
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == TEXT


def test_overlapping_and_out_of_range_rationales():
    rs = [Rationale(0, 0, 9, "Safe text", 0.5), Rationale(1, 5, 10, "text.", 0.9), Rationale(2, 0, 999, "x", 1.0)]
    plain = highlight_terminal(TEXT, rs, color=False)
    assert plain.startswith("[[Safe text]]{3}[[.]]{2}")
