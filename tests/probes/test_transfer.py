from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from ranklens.errors import DataFormatError, ValidationError
from ranklens.probes import get_probe
from ranklens.probes.base import probe_rng
from ranklens.io.pairs import (
    load_cnndm,
    load_gyafc,
    load_jfleg,
    load_mrpc,
    load_pairs_file,
    load_turkcorpus,
    load_wnc,
    load_xsum,
)
from ranklens.probes.transfer import PairsProbe, load_nq_factuality
from ranklens.probes.nlp import chunks_and_lemmas, lemma_sets, pick_shared_chunk


def test_mrpc(tmp_path):
    f = tmp_path / "msr_paraphrase_test.txt"
    f.write_text("\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
                 '1\t1\t2\tThe "big" dog barked.\tA big dog was barking.\n0\t3\t4\tx y\tz w\n', encoding="utf-8")
    (tmp_path / "msr_paraphrase_train.txt").write_text("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
                                                       "1\t5\t6\tTrain a.\tTrain b.\n")
    assert load_mrpc(tmp_path).pair_id.tolist() == ["5-6", "1-2"]  # train + test (the paper's MSPC)
    df = load_mrpc(tmp_path, split="test")
    assert df.to_dict("records") == [{"pair_id": "1-2", "text_a": 'The "big" dog barked.',
                                      "text_b": "A big dog was barking.", "query": "", "label": "1"}]
    assert len(load_mrpc(f, positives_only=False)) == 2
    f.write_text("Quality\tonly\n1\t2\n")
    with pytest.raises(DataFormatError, match=r"msr_paraphrase_test.txt:2: expected 5 tab-separated fields"):
        load_mrpc(f)


def test_jfleg_and_spell(tmp_path):
    d = tmp_path / "test"
    d.mkdir()
    (d / "test.src").write_text("He go home .\nSame .\n")
    (d / "test.spellchecked.src").write_text("He goes home .\nSame .\n")
    refs = ["He goes home .\nSame .\n", "He went home .\nSame .\n", "He goes home .\nSame !\n",
            "He go home .\nSame .\n"]
    for k, r in enumerate(refs):
        (d / f"test.ref{k}").write_text(r)
    df = load_jfleg(tmp_path, split="test")
    # brute force: every reference k of every source line, identical pairs dropped
    expect = [(a.strip(), b.strip()) for r in refs for a, b in zip(r.splitlines(), ["He go home .", "Same ."])
              if a.strip() != b.strip()]
    assert list(zip(df.text_a, df.text_b)) == expect
    assert list(zip(load_jfleg(tmp_path, split="test", reference=1).text_a, [0])) == [("He went home .", 0)]
    assert len(load_jfleg(tmp_path, split="test", spellchecked=True)) == 3  # ref1, ref2 (line 2), ref3 differ
    (d / "test.ref0").write_text("only one line\n")
    with pytest.raises(DataFormatError, match="line-aligned"):
        load_jfleg(tmp_path, split="test")


def test_gyafc_train_and_test_layouts(tmp_path):
    tr = tmp_path / "Entertainment_Music" / "train"
    te = tmp_path / "Entertainment_Music" / "test"
    tr.mkdir(parents=True)
    te.mkdir(parents=True)
    (tr / "formal").write_text("I do not like that film.\n")
    (tr / "informal").write_text("i dont like dat film lol\n")
    (te / "informal").write_text("u r gr8\n")
    (te / "formal.ref0").write_text("You are great.\n")
    df = load_gyafc(tmp_path / "Entertainment_Music")
    assert sorted(zip(df.text_a, df.text_b)) == [("I do not like that film.", "i dont like dat film lol"),
                                                 ("You are great.", "u r gr8")]


def test_turk_wnc(tmp_path):
    (tmp_path / "test.8turkers.tok.norm").write_text("the complex sentence here .\nsame\n")
    for k in range(8):
        (tmp_path / f"test.8turkers.tok.turk.{k}").write_text(f"simple sentence {k} .\nsame\n")
    got = load_turkcorpus(tmp_path, split="test")
    assert got.text_a.tolist() == [f"simple sentence {k} ." for k in range(8)]  # all eight Turkers
    assert load_turkcorpus(tmp_path, split="test", reference=3).text_a.tolist() == ["simple sentence 3 ."]
    # PTB bracket tokens are brackets again (the reference code): a pair that differs only there is dropped
    (tmp_path / "tune.8turkers.tok.norm").write_text("a town -lrb- in kent -rrb- .\nx -lrb- y -rrb- z .\n")
    for k in range(8):
        (tmp_path / f"tune.8turkers.tok.turk.{k}").write_text("a town ( in kent ) .\nx y z .\n")
    got = load_turkcorpus(tmp_path, split="tune")
    assert got.text_b.tolist() == ["x ( y ) z ."] * 8 and got.text_a.tolist() == ["x y z ."] * 8
    (tmp_path / "pre.test").write_text("the great leader spoke .\n")
    (tmp_path / "post.test").write_text("the leader spoke .\n")
    w = load_wnc(tmp_path)
    assert (w.text_a[0], w.text_b[0]) == ("the leader spoke .", "the great leader spoke .")


def test_xsum_cnndm(tmp_path):
    x = tmp_path / "x.jsonl"
    x.write_text(json.dumps({"document": "Line one.\nLine two.", "summary": "Sum.", "id": "7"}) + "\n")
    assert load_xsum(x).iloc[0].to_dict() == {"pair_id": "7", "text_a": "Sum.", "text_b": "Line one. Line two.", "query": ""}
    st = tmp_path / "stories"
    st.mkdir()
    (st / "abc.story").write_text("(CNN) -- Body one.\n\nBody two.\n\n@highlight\n\nFirst point\n\n@highlight\n\nSecond point\n")
    df = load_cnndm(st)
    assert df.iloc[0].to_dict() == {"pair_id": "abc", "text_a": "First point . Second point .",
                                    "text_b": "(CNN) -- Body one. Body two.", "query": ""}
    csvf = tmp_path / "cnn.csv"
    csvf.write_text("id,article,highlights\n1,\"Article, text.\",Short.\n")
    assert load_cnndm(csvf).iloc[0][["text_a", "text_b"]].tolist() == ["Short.", "Article, text."]


def _nq(tmp_path, recs):
    f = tmp_path / "nq.jsonl.gz"
    with gzip.open(f, "wt") as g:
        g.write("\n".join(json.dumps(r) for r in recs))
    return f


NQ = [
    {"question": "who wrote the book z", "answers": ["John Smith"],
     "ctxs": [{"text": "The book Z was written by John Smith in London.", "isgold": True}]},
    {"question": "who painted the picture w", "answers": ["Mary Jones"],
     "ctxs": [{"text": "W was painted by Mary Jones, and Mary Jones sold it.", "isgold": True}]},
    {"question": "where is the tower", "answers": ["Paris"], "ctxs": [{"text": "The tower stands in Paris.", "isgold": True}]},
    {"question": "where is the bridge", "answers": ["London"], "ctxs": [{"text": "The bridge is in London.", "isgold": True}]},
    {"question": "is the capital Berlin or Madrid", "answers": ["Berlin"],
     "ctxs": [{"text": "The capital is Berlin.", "isgold": True}]},  # answer in the question: dropped
    {"question": "when was x born", "answers": ["1950"], "ctxs": [{"text": "X was born in 1950.", "isgold": True}]},
]


def _nq_reference(recs, question_filter="answer"):
    """Plain-Python reference of the paper's construction: (type, non-stopword length) groups of
    the typed answers, answer-in-question filter, replacement by another group member."""
    import re

    from ranklens.text import STOPWORDS, load_spacy, tokenize

    nlp = load_spacy()
    types = {"PERSON": "PER", "GPE": "GPE", "LOC": "LOC", "NORP": "NORP", "ORG": "ORG"}
    kept = []
    for i, r in enumerate(recs, 1):
        passage, ans = r["ctxs"][0]["text"], r["answers"][0]
        labels = [types[e.label_] for e in nlp(ans).ents if e.label_ in types]
        words = [ans] if question_filter == "answer" else tokenize(ans)
        if not labels or any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", r["question"], re.I) for w in words):
            continue
        kept.append((f"nq-{i}", passage, ans, labels[0], sum(t not in STOPWORDS for t in tokenize(ans))))
    out = {}
    for pid, passage, ans, t, n in kept:
        pool = sorted({a for _p, _x, a, tt, nn in kept if (tt, nn) == (t, n) and a.lower() != ans.lower()})
        if pool:
            out[pid] = (passage, ans, t, pool)
    return out


def test_nq_factuality_matches_reference(tmp_path):
    df = load_nq_factuality(_nq(tmp_path, NQ))
    ref = _nq_reference(NQ)
    assert set(df.pair_id) == set(ref) == {"nq-1", "nq-2", "nq-3", "nq-4"}
    for r in df.itertuples():
        passage, ans, t, pool = ref[r.pair_id]
        assert (r.text_a, r.entity_type, r.answer) == (passage, t, ans)
        assert r.replacement in pool
        assert r.text_b == passage.replace(ans, r.replacement)  # every occurrence (Mary Jones twice)
    assert dict(zip(df.pair_id, df.entity_type)) == {"nq-1": "PER", "nq-2": "PER", "nq-3": "GPE", "nq-4": "GPE"}
    strict = load_nq_factuality(_nq(tmp_path, [*NQ, {"question": "who is john", "answers": ["John Smith"],
                                                     "ctxs": [{"text": "He is John Smith.", "isgold": True}]}]),
                                question_filter="any-token")
    assert "nq-7" not in set(strict.pair_id)  # 'john' is in the question


def test_chunks_and_lemmas():
    (ca, la), (cb, lb) = chunks_and_lemmas(["The national park service opened today.",
                                            "Visitors love the national park service."])[0]
    assert "the national park service" in ca & cb
    assert pick_shared_chunk(ca, cb, np.random.default_rng(0)) == "the national park service"
    assert pick_shared_chunk({"a"}, {"b"}, np.random.default_rng(0)) is None
    assert {"dog", "run"} <= lemma_sets(["the dogs were running"])[0][0]


def test_pairs_probe_generic_and_query_filter(tmp_path):
    f = tmp_path / "p.tsv"
    f.write_text("id\tgood\tbad\tq\n1\tthe solar panels work\tthe solar panels fail\t\n"
                 "2\tapples\toranges\t\n3\tthe red car\tthe blue car\tcar\n")
    df = load_pairs_file(f, text_a="good", text_b="bad", query="q", pair_id="id")
    assert df.pair_id.tolist() == ["1", "2", "3"]
    p = get_probe("pairs", pairs_file=str(f), text_a="good", text_b="bad", query="q", pair_id="id", cap=None)
    out = p.generate(None, rng=probe_rng(0, "pairs"))
    got = {s.sample_id: s.query for s in out.samples}
    assert got == {"1": "the solar panels", "3": "car"}  # pair 2 shares no noun chunk: dropped
    assert out.info["pairs_dropped_no_query"] == 1
    with pytest.raises(DataFormatError, match="missing column"):
        load_pairs_file(f)


def test_transfer_probe_without_data_errors_unless_asked_to_skip(tmp_path):
    from ranklens.datareg import MissingDataError

    with pytest.raises(MissingDataError, match=r"'gyafc'.*Looked in: explicit path: .*gyafc.*ranklens data fetch gyafc"):
        get_probe("ds-formality-gyafc", data_dir=str(tmp_path))
    out = get_probe("ds-formality-gyafc", data_dir=str(tmp_path), missing_data="skip").generate(None, rng=probe_rng(0, "x"))
    assert out.samples == () and "data not found" in out.skipped and "gyafc" in out.skipped
    with pytest.raises(ValidationError, match="pairs_file"):
        get_probe("pairs")


def test_pairs_probe_cap_reproducible(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text("\n".join(json.dumps({"text_a": f"The red house stood {i} days.", "text_b": f"The red house fell after {i} years."}) for i in range(30)))
    p = PairsProbe(probe_name="t", loader="pairs", path=str(f), cap=5)
    a = p.generate(None, rng=probe_rng(1, "t"))
    b = p.generate(None, rng=probe_rng(1, "t"))
    c = p.generate(None, rng=probe_rng(2, "t"))
    assert len(a.samples) == 5 and a.hash == b.hash and a.hash != c.hash


# ------------------------------------------------------------------ real data
@pytest.mark.realdata
def test_real_loaders_counts(shared_data):
    assert len(load_mrpc(shared_data / "mrpc", split="test", positives_only=False)) == 1725
    assert len(load_mrpc(shared_data / "mrpc", split="train", positives_only=False)) == 4076
    assert len(load_mrpc(shared_data / "mrpc")) == 3900  # positives of train + test (paper: 3,421 samples)
    assert len(load_jfleg(shared_data / "jfleg")) > 5000  # 4 references x (754 + 747) sources
    assert len(load_turkcorpus(shared_data / "turkcorpus")) > 15000  # 8 simplifications x 2,359
    w = load_wnc(shared_data / "wnc_sample", split="all")
    assert len(w) == 1100 - 5  # 4 train + 1 test pairs are identical before/after (checked with plain Python)
    assert len(load_xsum(shared_data / "xsum_sample" / "xsum-1000.jsonl")) == 1000
    nq = load_nq_factuality(shared_data / "nq_oracle_sample")
    assert set(nq.entity_type) <= {"PER", "GPE", "LOC", "NORP", "ORG"}
    assert (nq.text_a != nq.text_b).all()


@pytest.mark.realdata
def test_real_transfer_probes_generate(shared_data):
    for name in ["ds-paraphrase-mrpc", "ds-fluency-jfleg", "ds-simplicity-turk", "ds-neutrality-wnc",
                 "ds-succinct-xsum", "ds-factuality-nq-per"]:
        p = get_probe(name, data_dir=str(shared_data), cap=20)
        out = p.generate(None, rng=probe_rng(0, name))
        assert 0 < len(out.samples) <= 20, name
        sets, _ = lemma_sets([x for s in out.samples for x in (s.query, s.text_1, s.text_2)])
        for i in range(len(out.samples)):
            assert sets[3 * i] & sets[3 * i + 1] and sets[3 * i] & sets[3 * i + 2]


def test_nq_answers_match_whole_words_only(tmp_path):
    recs = [
        # "5" occurs only inside "1950" and "15": not an answer occurrence -> no pair
        {"question": "how many a", "answers": ["5"],
         "ctxs": [{"text": "Founded in 1950 with 15 members.", "isgold": True}]},
        # "5" as a word (twice) and inside "1950": only the words are replaced
        {"question": "how many b", "answers": ["5"],
         "ctxs": [{"text": "In 1950 it had 5 rooms; by 1955 still 5.", "isgold": True}]},
        {"question": "how many c", "answers": ["7"],
         "ctxs": [{"text": "There are 7 hills (77 in legend).", "isgold": True}]},
        # answers with punctuation at an edge are still found
        {"question": "how much d", "answers": ["$5"],
         "ctxs": [{"text": "It cost $5, then $50.", "isgold": True}]},
        {"question": "how much e", "answers": ["$9"],
         "ctxs": [{"text": "A ticket: $9.", "isgold": True}]},
    ]
    f = tmp_path / "nq.jsonl.gz"
    with gzip.open(f, "wt") as g:
        g.write("\n".join(json.dumps(r) for r in recs))
    by = {r.query: r for r in _whole_word_frame(f).itertuples()}
    assert "how many a" not in by
    # the replacement (another answer of the same type and length) is drawn at random: check
    # that exactly the whole-word occurrences changed
    b = by["how many b"]
    assert b.text_b == f"In 1950 it had {b.replacement} rooms; by 1955 still {b.replacement}."
    assert b.replacement in {"7", "$5", "$9"}
    c = by["how many c"]
    assert c.text_b == f"There are {c.replacement} hills (77 in legend)."
    d = by["how much d"]
    assert d.text_b == f"It cost {d.replacement}, then $50." and d.replacement != "$5"


def _whole_word_frame(f):
    """The replacement step alone (typing stubbed: every answer is one type)."""
    import ranklens.probes.nlp as nlp

    real = nlp.answer_entity_types
    nlp.answer_entity_types = lambda answers: (["ORG"] * len(answers), "stub")
    try:
        return load_nq_factuality(f)
    finally:
        nlp.answer_entity_types = real


def test_summaries_without_title_warn(tmp_path):
    """The paper's summarisation queries are article titles; XSum as shipped has none, so the
    probe uses shared noun chunks and says so in the result's warnings."""
    from ranklens.engine import ScoringEngine
    from ranklens.probes import run_probes
    from ranklens.rankers.base import FunctionRanker

    x = tmp_path / "xsum.jsonl"
    rows = [{"document": "The old bridge over the river was closed. Engineers inspect the old bridge.",
             "summary": "The old bridge is closed.", "id": "1"},
            {"document": "Rain fell on the city. The city council met.", "summary": "The city council met in rain.",
             "id": "2", "title": "City council meets"}]
    x.write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = get_probe("ds-succinct-xsum", path=str(x))
    out = p.generate(None, rng=probe_rng(0, p.name))
    assert {s.query for s in out.samples} >= {"City council meets"}
    assert out.info["deviation"].startswith("1 of 2 pairs have no title")
    res = run_probes([p], {"len": FunctionRanker(fn=lambda qs, ts: np.array([len(t) for t in ts], float), name_="l")},
                     delta=0.0, engine=ScoringEngine(cache=False), n_boot=10)
    assert any("have no title" in w and "article title" in w for w in res.warnings)
