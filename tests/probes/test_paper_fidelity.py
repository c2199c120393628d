"""Fidelity to the ABNIRML paper's text, each against a small reference computed here:
prepositions shuffled within each sentence, the Bonferroni correction over each joined table,
the '+ non-relevant sentence' source (never the document itself; the grade counted non-relevant),
Wikipedia's misspelling list used whole, and the typo probe's stopword wording."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ranklens.engine import ScoringEngine
from ranklens.io.collection import Collection, DocStore
from ranklens.probes import get_probe, run_probes
from ranklens.probes.base import Probe, ProbeSample, ProbeSamples, probe_rng
from ranklens.probes.manipulation import shuffle_prepositions
from ranklens.rankers.base import FunctionRanker
from ranklens.text import split_sentences


def _coll(docs, queries, qrels, name="hand"):
    return Collection(name=name, docs=DocStore(docs, name=name),
                      queries=pd.DataFrame({"query_id": list(queries), "text": list(queries.values())}),
                      qrels=pd.DataFrame({"query_id": [q for q, _d, _r in qrels], "doc_id": [d for _q, d, _r in qrels],
                                          "relevance": pd.Series([r for _q, _d, r in qrels], dtype="int64")}))


# ------------------------------------------------------------------ 1. shuffle prepositions
ONE_EACH = "The cat sat on the mat. The dog ran to the park."
TWO_ONE = "The cat sat on the mat in the hall. The dog ran to the park."


def test_prepositions_shuffled_within_each_sentence_only():
    """Paper §4: "shuffling only the prepositions in the sentence". The reference: every
    permutation of each sentence's own prepositions, other sentences untouched."""
    def reference(sentence_preps):  # [(sentence template, its prepositions)]
        outs = set()
        for perms in itertools.product(*(set(itertools.permutations(p)) for _t, p in sentence_preps)):
            outs.add(" ".join(t.format(*perm) for (t, _p), perm in zip(sentence_preps, perms)))
        return outs

    want = reference([("The cat sat {} the mat {} the hall.", ("on", "in")), ("The dog ran {} the park.", ("to",))])
    assert want == {TWO_ONE, "The cat sat in the mat on the hall. The dog ran to the park."}
    got = {shuffle_prepositions(TWO_ONE, np.random.default_rng(s)) for s in range(30)}
    assert got == want
    assert {shuffle_prepositions(ONE_EACH, np.random.default_rng(s)) for s in range(10)} == {ONE_EACH}
    # the reference code's document-wide shuffle stays available by name
    doc_wide = {shuffle_prepositions(ONE_EACH, np.random.default_rng(s), scope="document") for s in range(10)}
    assert doc_wide == {ONE_EACH, "The cat sat to the mat. The dog ran on the park."}


def test_shuffle_preps_probe_yields_no_sample_when_nothing_changes():
    """The audit's case: one preposition per sentence -> no document changes -> no sample."""
    docs = {f"d{i}": ONE_EACH for i in range(5)}
    coll = _coll(docs, {"q1": "cat dog"}, [("q1", d, 1) for d in docs])
    p = get_probe("tr-shuffle-preps")
    out = p.generate(coll, rng=probe_rng(0, p.name))
    assert out.samples == () and out.available == 5
    assert p.params()["shuffle_preps_scope"] == "sentence" and out.info["preposition_scope"] == "sentence"
    wide = get_probe("tr-shuffle-preps", shuffle_preps_scope="document")
    got = wide.generate(coll, rng=probe_rng(0, wide.name))
    assert wide.params()["shuffle_preps_scope"] == "document"
    assert got.samples and {s.text_1 for s in got.samples} == {"The cat sat to the mat. The dog ran on the park."}


def test_probe_options_carry_the_new_parameters():
    from ranklens.probes.declaration import Params
    from ranklens.probes.driver import probe_options

    opts = probe_options(Params(shuffle_preps_scope="document", nonrel_max_grade=1, typo_max_edit=2,
                                misspellings="char"))
    assert get_probe("tr-shuffle-preps", **opts).params()["shuffle_preps_scope"] == "document"
    assert get_probe("tr-add-nonrel-sent", **opts).params()["nonrel_max_grade"] == 1
    assert get_probe("tr-typo", **opts).params()["typo_max_edit"] == 2
    assert get_probe("tr-typo", **probe_options(Params(misspellings="char"))).params()["typo_max_edit"] == -1  # -1: the per-format default


# ------------------------------------------------------------------ 2. Bonferroni over each joined table
@dataclasses.dataclass(frozen=True, repr=False)
class _Fixed(Probe):
    probe_name: str
    fam: str

    @property
    def name(self):  # type: ignore[override]
        return self.probe_name

    @property
    def family(self):  # type: ignore[override]
        return self.fam

    def generate(self, collection, *, rng):  # samples are given to run_probes
        raise AssertionError("not generated")


def _joined_results():
    """Two datasets x (2 measure-and-match probes + 1 transfer probe shared by both), one model;
    every cell has the raw p-value of the paired t-test of ``diffs`` against 0."""
    diffs = np.array([1.0, 0.2, 0.9, -0.3, 1.4, 0.1, 0.8, -0.2, 1.1, 0.3])
    off = next(o for o in np.linspace(-0.5, 0.5, 2001) if 0.0026 < stats.ttest_1samp(diffs + o, 0).pvalue < 0.0049)
    d = diffs + off
    score: dict[str, float] = {}

    def samples(tag):
        out = []
        for i, x in enumerate(d):
            score[f"{tag} a{i}"], score[f"{tag} b{i}"] = float(x), 0.0
            out.append(ProbeSample(sample_id=str(i), query_id="q", query="q", text_1=f"{tag} a{i}",
                                   text_2=f"{tag} b{i}"))
        return ProbeSamples(tuple(out))

    ranker = FunctionRanker(fn=lambda qs, ts: [score[t] for t in ts], name_="m")
    results = []
    for ds in ("DL19", "ANT"):
        probes = [_Fixed("mm-rel-ctrl-len", "measure-match"), _Fixed("mm-tf-ctrl-len", "measure-match"),
                  _Fixed("pairs", "transfer")]
        given = {p.name: samples(ds + p.name) for p in probes[:2]} | {"pairs": samples("shared pairs")}
        coll = _coll({"x": "x"}, {"q": "q"}, [("q", "x", 1)], name=ds)
        results.append(run_probes(probes, {"m": ranker}, coll, delta=0.5, samples=given,
                                  engine=ScoringEngine(cache=False, show_progress=False), n_boot=10))
    return results, float(stats.ttest_rel(d, np.zeros(len(d))).pvalue)


def test_bonferroni_over_every_cell_of_a_joined_table():
    """Paper §3.4: "a Bonferroni correction over each table". Table 1 joining two datasets holds 4
    tests: p_adj = min(1, 4 p), and 0.0026 < p < 0.0049 is significant alone (2 p < 0.01) but not
    in the joined table (4 p > 0.01). Table 3 shows the shared transfer row once: 1 test."""
    from ranklens.probes import paper_tables

    results, p = _joined_results()
    assert 2 * p < 0.01 < 4 * p
    for r in results:  # each result alone: its own 2 measure-and-match cells
        mm = r.table[r.table.family == "measure-match"]
        assert np.allclose(mm.p_adjusted, 2 * p) and mm.significant.all()
    txt = paper_tables(results, tables=[1, 3])
    mm_rows = [ln.split() for ln in txt.splitlines() if "Length" in ln.split()]
    assert len(mm_rows) == 4 and all(not c[-2].endswith("*") for c in mm_rows)  # no cell significant
    pair_row = next(ln.split() for ln in txt.splitlines() if ln.startswith("pairs"))
    assert pair_row[-2].endswith("*")
    assert "every cell of each joined table (2 results" in txt

    from ranklens.probes.paper import joined_correction

    joined = joined_correction(results)
    for r in joined:
        t = r.table.set_index("probe")
        assert t.loc["mm-rel-ctrl-len", "p_adjusted"] == pytest.approx(min(1.0, 4 * p))
        assert t.loc["mm-tf-ctrl-len", "p_adjusted"] == pytest.approx(min(1.0, 4 * p))
        assert not t.loc[["mm-rel-ctrl-len", "mm-tf-ctrl-len"], "significant"].any()
        assert t.loc["pairs", "p_adjusted"] == pytest.approx(p) and t.loc["pairs", "significant"]
    # one result alone keeps its own correction
    alone = paper_tables(results[:1], tables=[1])
    assert "joined" not in alone and all(ln.split()[-2].endswith("*") for ln in alone.splitlines()
                                         if "Length" in ln)


def test_joined_tables_refuse_mixed_corrections():
    from ranklens.errors import ValidationError
    from ranklens.probes.paper import paper_tables

    results, _p = _joined_results()
    other = dataclasses.replace(results[1], summary={**results[1].summary, "alpha": 0.05})
    with pytest.raises(ValidationError, match="differ in alpha"):
        paper_tables([results[0], other])


# ------------------------------------------------------------------ 3./4. the non-relevant sentence
def test_nonrelevant_sentence_never_from_the_document_itself():
    """A non-relevant document never gets its own sentence appended: with one non-relevant
    document for the query, it has no other source, so no sample; the others take its sentence."""
    docs = {"r": "Wind tunnels measure flow. They are large.", "n": "Pasta takes ten minutes."}
    coll = _coll(docs, {"q": "wind flow"}, [("q", "r", 2), ("q", "n", 0)])
    for seed in range(5):
        p = get_probe("tr-add-nonrel-sent")
        got = {s.doc_2_id: s.text_1 for s in p.generate(coll, rng=probe_rng(seed, p.name)).samples}
        assert got == {"r": docs["r"] + " Pasta takes ten minutes."}


def test_nonrelevant_sentence_sources_exclude_self_among_several():
    docs = {"r": "Wind flow is fast. Tunnels help.", "n1": "Cats purr. Dogs bark.", "n2": "Rain falls. Sun shines."}
    coll = _coll(docs, {"q": "wind flow"}, [("q", "r", 2), ("q", "n1", 0), ("q", "n2", 0)])
    ref = {"r": {"n1", "n2"}, "n1": {"n2"}, "n2": {"n1"}}  # every other non-relevant document
    for seed in range(8):
        p = get_probe("tr-add-nonrel-sent")
        out = p.generate(coll, rng=probe_rng(seed, p.name)).samples
        assert {s.doc_2_id for s in out} == set(ref)
        for s in out:
            src = dict(s.meta)["sentence_from"]
            assert src in ref[s.doc_2_id]
            assert s.text_1[len(docs[s.doc_2_id]) + 1:] in split_sentences(docs[src])


ANTIQUE_DOCS = {"a": "Boil the pasta for ten minutes. Drain it well.", "b": "Pasta cooks in boiling water.",
                "c": "The stock market closed higher today. Oil prices rose."}
ANTIQUE_QRELS = [("q", "a", 4), ("q", "b", 3), ("q", "c", 1)]  # ANTIQUE: 1 = off-topic (non-relevant)


def test_nonrel_max_grade_runs_on_antique_grades():
    coll = _coll(ANTIQUE_DOCS, {"q": "how long to boil pasta"}, ANTIQUE_QRELS)
    p0 = get_probe("tr-add-nonrel-sent")  # default 0: DL19's irrelevant grade; none on ANTIQUE
    assert p0.generate(coll, rng=probe_rng(0, p0.name)).samples == ()
    p = get_probe("tr-add-nonrel-sent", nonrel_max_grade=1)
    out = p.generate(coll, rng=probe_rng(0, p.name))
    c_sents = split_sentences(ANTIQUE_DOCS["c"])
    # the reference: a and b get a sentence of c; c (the only non-relevant document) none
    assert {s.doc_2_id for s in out.samples} == {"a", "b"}
    for s in out.samples:
        assert dict(s.meta)["sentence_from"] == "c"
        assert s.text_1[len(ANTIQUE_DOCS[s.doc_2_id]) + 1:] in c_sents
    assert out.info["nonrel_max_grade"] == 1 and p.params()["nonrel_max_grade"] == 1


def test_nonrel_max_grade_sets_the_rel_and_nonrel_subsets():
    coll = _coll(ANTIQUE_DOCS, {"q": "pasta"}, ANTIQUE_QRELS)
    grades = {d: g for _q, d, g in ANTIQUE_QRELS}
    for cut in (1, 0, 3):
        for subset in ("rel", "nonrel"):
            p = get_probe(f"tr-shuffle-sents-{subset}", nonrel_max_grade=cut)
            out = p.generate(coll, rng=probe_rng(0, p.name))
            want = {d for d, g in grades.items() if (g > cut) == (subset == "rel")}
            assert out.available == len(want)
            assert {s.doc_2_id for s in out.samples} <= want
            assert p.params()["nonrel_max_grade"] == cut


# ------------------------------------------------------------------ 5./6. typos
def test_wikipedia_list_used_whole(tmp_path):
    """Wikipedia's list of common misspellings (the paper's source) keeps variants far from the
    word ("copywrite", 4 edits from "copyright"); the edit filter is for the noisy
    correct -> [misspellings] JSON lists only, or asked for by name."""
    from ranklens.probes.typos import edit_distance, load_misspellings

    f = tmp_path / "wiki.tab"
    lines = [("copywrite", "copyright"), ("broacasted", "broadcast"), ("recieve", "receive")]
    f.write_text("".join(f"{w}\t{r}\n" for w, r in lines))
    assert edit_distance("copyright", "copywrite") > 2 and edit_distance("broadcast", "broacasted") > 2
    assert load_misspellings(f) == {r: (w,) for w, r in lines}  # the reference: every line of the list
    assert load_misspellings(f, max_edit=2) == {"receive": ("recieve",)}
    coll = _coll({"d": "Copyright of the broadcast."}, {"q": "broadcast"}, [("q", "d", 1)])
    p = get_probe("tr-typo", misspellings=str(f))
    (s,) = p.generate(coll, rng=probe_rng(0, p.name)).samples
    assert s.text_1 == "Copywrite of the broacasted."
    assert p.params()["typo_max_edit"] == -1  # -1: the per-format default
    filt = get_probe("tr-typo", misspellings=str(f), typo_max_edit=2)
    assert filt.generate(coll, rng=probe_rng(0, filt.name)).samples == ()
    assert filt.params()["typo_max_edit"] == 2


def test_typo_stopword_default_is_called_the_reference_configuration():
    """The paper's text does not say stopwords are left intact: that is the reference code's
    Typo-nostops probe, and the docs say so."""
    from ranklens.probes.manipulation import TypoProbe
    from ranklens.probes.declaration import Params

    doc = Params.__dataclass_fields__["typo_stopwords"].metadata["doc"]
    assert "the paper leaves them intact" not in doc and "Typo-nostops" in doc
    assert "Typo-nostops" in (TypoProbe.__doc__ or "") and "as the paper's Table 2" not in (TypoProbe.__doc__ or "")
