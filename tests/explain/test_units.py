from __future__ import annotations

import pytest

from ranklens.errors import ValidationError
from ranklens.explain import Granularity, parse_granularity, pseudo_document, remove_spans, split_units
from ranklens.explain.units import Explanation, Rationale


def test_parse_granularity():
    assert parse_granularity("sentence") == Granularity("sentence")
    assert parse_granularity("window:5") == Granularity("window", 5)
    assert str(parse_granularity("WINDOW:3")) == "window:3"
    for bad in ("window", "window:0", "word", "window:x"):
        with pytest.raises(ValidationError, match="window:W"):
            parse_granularity(bad)


def test_window_units_offsets():
    text = "Alpha beta, gamma delta epsilon. Zeta"
    units = split_units(text, "window:2")
    assert [u.text for u in units] == ["Alpha beta", "gamma delta", "epsilon. Zeta"]
    for u in units:
        assert text[u.start : u.end] == u.text
    assert [u.index for u in units] == [0, 1, 2]


def test_sentence_units_offsets():
    text = "Dr. Smith came. He left!  Then rain"
    units = split_units(text, "sentence")
    assert [u.text for u in units] == ["Dr. Smith came.", "He left!", "Then rain"]
    assert all(text[u.start : u.end] == u.text for u in units)


def test_remove_spans_keeps_rest_and_normalises_cut_points():
    text = "A b. C d. E f."
    assert remove_spans(text, [(5, 9)]) == "A b. E f."
    assert remove_spans(text, [(0, 4), (10, 14)]) == "C d."
    assert remove_spans(text, []) == text
    assert remove_spans(text, [(0, len(text))]) == ""


def test_pseudo_document_orders():
    rs = [Rationale(2, 10, 14, "E f.", 0.9), Rationale(0, 0, 4, "A b.", 0.1)]
    assert pseudo_document(rs) == "E f. A b."  # eq. 1: d_1 ... d_m, most important first
    assert pseudo_document(rs, "document") == "A b. E f."
    with pytest.raises(ValidationError):
        pseudo_document(rs, "random")


def test_explanation_top_prefix():
    text = "Cats purr softly. Dogs bark loudly. Birds sing at dawn."
    units = split_units(text, "sentence")
    e = Explanation("q", text, 1.0, units, (0.1, 0.5, 0.3), (1, 2, 0))
    assert [r.text for r in e.top(2)] == ["Dogs bark loudly.", "Birds sing at dawn."]
    assert e.top(0) == ()
    assert [r.weight for r in e.top(5)] == [0.5, 0.3, 0.1]
    with pytest.raises(ValidationError):
        e.top(-1)


def test_line_units_for_presegmented_documents():
    text = "first sentence .\n  second one\n\nthird"
    units = split_units(text, "line")
    assert [u.text for u in units] == ["first sentence .", "second one", "third"]
    assert all(text[u.start : u.end] == u.text for u in units)
    assert str(parse_granularity("line")) == "line"
