from __future__ import annotations

import numpy as np
import pandas as pd

from ranklens.io.collection import Collection, DocStore
from ranklens.probes.base import probe_rng
from ranklens.probes.measure_match import MeasureMatchProbe, doc_features


def test_doc_features_hand_computed():
    f = doc_features("cats felines", "Cats are small domesticated felines. Cats purr when content.", 3)
    # non-stopword tokens: cats small domesticated felines cats purr content -> 7
    assert f["len"] == 7
    assert f["tf"] == (2, 1)  # sorted stems: 'cat', 'felin'
    assert f["overlap"] == 3 / 7
    assert f["rel"] == 3


def _coll():
    docs = {
        "a": "apple pie recipe with apple",      # tf apple=2
        "b": "apple pie dessert here now",       # tf apple=1
        "c": "banana bread recipe and more",     # tf apple=0
        "d": "apple apple apple tart",           # tf=3
    }
    qrels = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": list("abcd"), "relevance": [2, 1, 1, 0]})
    qrels["relevance"] = qrels["relevance"].astype("int64")
    q = pd.DataFrame({"query_id": ["q"], "text": ["apple"]})
    return Collection(name="t", docs=DocStore(docs), queries=q, qrels=qrels)


def _reference(coll, variable, control, probe):
    """Slow reference: enumerate ordered pairs and apply the definitions directly."""
    out = set()
    q = coll.queries_dict()["q"]
    feats = {d: doc_features(q, coll.docs[d], r) for d, r in zip(coll.qrels["doc_id"], coll.qrels["relevance"])}
    for x in feats:
        for y in feats:
            if x == y:
                continue
            fx, fy = feats[x], feats[y]
            if not probe._match(control, fx, fy):
                continue
            if variable == "tf":
                more = all(a >= b for a, b in zip(fx["tf"], fy["tf"])) and fx["tf"] != fy["tf"]
            elif variable == "overlap" and 0 in (fx["overlap"], fy["overlap"]):
                more = False  # overlap-0 documents take no part (the reference code)
            elif variable in ("len", "overlap"):
                more = not probe._match(variable, fx, fy) and fx[variable] > fy[variable]
            else:
                more = fx[variable] > fy[variable]
            if more:
                out.add((x, y))
    return out


def test_pairs_match_reference():
    coll = _coll()
    for v in ("rel", "len", "tf", "overlap"):
        for c in ("rel", "len", "tf", "overlap"):
            if v == c:
                continue
            p = MeasureMatchProbe(variable=v, control=c, cap=None)
            got = {(s.doc_1_id, s.doc_2_id) for s in p.generate(coll, rng=probe_rng(0, p.name)).samples}
            assert got == _reference(coll, v, c, p), (v, c)


def test_rel_ctrl_len_example():
    coll = _coll()
    p = MeasureMatchProbe(variable="rel", control="len", cap=None)
    got = {(s.doc_1_id, s.doc_2_id) for s in p.generate(coll, rng=np.random.default_rng(0)).samples}
    # lengths (non-stop tokens): a 4 (apple pie recipe apple), b 3 (apple pie dessert), c 3, d 4
    # same length: (a,d) rel 2>0 ; (b,c) both rel 1 -> no sample
    assert got == {("a", "d")}


def test_cap_is_reproducible(tiny):
    p = MeasureMatchProbe(variable="rel", control="len", cap=1)
    a = p.generate(tiny, rng=probe_rng(3, p.name))
    b = p.generate(tiny, rng=probe_rng(3, p.name))
    assert a.hash == b.hash and len(a.samples) <= 1
