from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from ranklens.errors import DataFormatError, ValidationError
from ranklens.probes import get_probe
from ranklens.probes.base import probe_rng
from ranklens.probes.builtin.transfer import (
    PairsProbe,
    load_cnndm,
    load_gyafc,
    load_jfleg,
    load_mrpc,
    load_nq_factuality,
    load_pairs_file,
    load_turkcorpus,
    load_wnc,
    load_xsum,
)
from ranklens.probes.nlp import entity_type, shared_chunk, shares_content_lemma


def test_mrpc(tmp_path):
    f = tmp_path / "msr_paraphrase_test.txt"
    f.write_text("\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
                 '1\t1\t2\tThe "big" dog barked.\tA big dog was barking.\n0\t3\t4\tx y\tz w\n', encoding="utf-8")
    df = load_mrpc(tmp_path)
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
    (d / "test.ref0").write_text("He goes home .\nSame .\n")
    df = load_jfleg(tmp_path)
    assert list(zip(df.text_a, df.text_b)) == [("He goes home .", "He go home .")]
    assert load_jfleg(tmp_path, spellchecked=True).empty  # identical after spell-check: dropped
    (d / "test.ref0").write_text("only one line\n")
    with pytest.raises(DataFormatError, match="line-aligned"):
        load_jfleg(tmp_path)


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
    (tmp_path / "test.8turkers.tok.turk.0").write_text("simple sentence .\nsame\n")
    assert load_turkcorpus(tmp_path).text_a.tolist() == ["simple sentence ."]
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


def _nq(tmp_path):
    recs = [
        {"question": "when was x born", "answers": ["1950"], "ctxs": [{"text": "X was born in 1950 in Paris.", "isgold": True}]},
        {"question": "when did y die", "answers": ["1980"], "ctxs": [{"text": "Y died in 1980.", "isgold": True}]},
        {"question": "who wrote z", "answers": ["John Smith"], "ctxs": [{"text": "Z was written by John Smith.", "isgold": True}]},
        {"question": "who painted w", "answers": ["Mary Jones"], "ctxs": [{"text": "W was painted by Mary Jones in 1900.", "isgold": True}]},
        {"question": "who sang v", "answers": ["Prince"], "ctxs": [{"text": "V was sung by Prince.", "isgold": True}]},
    ]
    f = tmp_path / "nq.jsonl.gz"
    with gzip.open(f, "wt") as g:
        g.write("\n".join(json.dumps(r) for r in recs))
    return f


def test_nq_factuality(tmp_path):
    df = load_nq_factuality(_nq(tmp_path))
    by = {r.query: r for r in df.itertuples()}
    assert by["when was x born"].text_b == "X was born in 1980 in Paris."
    assert by["who wrote z"].text_b == "Z was written by Mary Jones."
    assert by["who painted w"].entity_type == "name"
    assert "who sang v" not in by  # no other 1-token name answer to swap in
    assert set(df.entity_type) == {"year", "name"}


def test_entity_types():
    assert entity_type("1999") == "year"
    assert entity_type("4 July 1776") == "date"
    assert entity_type("3,000") == "number"
    assert entity_type("seven") == "number"
    assert entity_type("George Washington") == "name"
    assert entity_type("a red apple") == "other"


def test_shared_chunk_and_filter():
    rng = np.random.default_rng(0)
    q, method = shared_chunk("The national park service opened today.", "Visitors love the national park service.",
                             rng=rng, use_spacy=False)
    assert (q, method) == ("national park service", "shared-content-run")
    assert shared_chunk("alpha beta", "gamma delta", rng=rng, use_spacy=False)[0] is None
    assert shares_content_lemma("running dogs", "the dog ran", "dogs everywhere")
    assert not shares_content_lemma("cats", "the dog ran", "cats")


def test_pairs_probe_generic_and_query_filter(tmp_path):
    f = tmp_path / "p.tsv"
    f.write_text("id\tgood\tbad\tq\n1\tsolar power plants\tsolar power stations\t\n"
                 "2\tapples\toranges\t\n3\tthe red car\tthe blue car\tcar\n")
    df = load_pairs_file(f, text_a="good", text_b="bad", query="q", pair_id="id")
    assert df.pair_id.tolist() == ["1", "2", "3"]
    p = get_probe("pairs", path=str(f), text_a="good", text_b="bad", query="q", pair_id="id", cap=None)
    out = p.generate(None, rng=probe_rng(0, "pairs"))
    got = {s.sample_id: s.query for s in out.samples}
    assert got == {"1": "solar power", "3": "car"}  # pair 2 shares nothing: dropped
    assert out.info["pairs_dropped_no_query"] == 1
    with pytest.raises(DataFormatError, match="missing column"):
        load_pairs_file(f)


def test_transfer_probe_needs_data_dir(monkeypatch):
    monkeypatch.delenv("RANKLENS_PROBE_DATA", raising=False)
    with pytest.raises(ValidationError, match="data-dir"):
        get_probe("ds-fluency-jfleg")


def test_pairs_probe_cap_reproducible(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text("\n".join(json.dumps({"text_a": f"word{i} shared thing", "text_b": f"shared thing x{i}"}) for i in range(30)))
    p = PairsProbe(probe_name="t", loader="pairs", path=str(f), cap=5)
    a = p.generate(None, rng=probe_rng(1, "t"))
    b = p.generate(None, rng=probe_rng(1, "t"))
    c = p.generate(None, rng=probe_rng(2, "t"))
    assert len(a.samples) == 5 and a.hash == b.hash and a.hash != c.hash


# ------------------------------------------------------------------ real data
@pytest.mark.realdata
def test_real_loaders_counts(shared_data):
    assert len(load_mrpc(shared_data / "mrpc", positives_only=False)) == 1725
    assert len(load_mrpc(shared_data / "mrpc", split="train", positives_only=False)) == 4076
    assert len(load_mrpc(shared_data / "mrpc")) == 1147
    j = load_jfleg(shared_data / "jfleg")
    assert 600 < len(j) <= 747
    t = load_turkcorpus(shared_data / "turkcorpus")
    assert 300 < len(t) <= 359
    w = load_wnc(shared_data / "wnc_sample", split="all")
    assert len(w) == 1100 - 5  # 4 train + 1 test pairs are identical before/after (checked with plain Python)
    assert len(load_xsum(shared_data / "xsum_sample" / "xsum-1000.jsonl")) == 1000
    nq = load_nq_factuality(shared_data / "nq_oracle_sample")
    assert 1000 < len(nq) <= 2655
    assert (nq.text_a != nq.text_b).all()


@pytest.mark.realdata
def test_real_transfer_probes_generate(shared_data):
    for name in ["ds-paraphrase-mrpc", "ds-fluency-jfleg", "ds-simplicity-turk", "ds-neutrality-wnc",
                 "ds-succinct-xsum", "ds-factuality-nq-year"]:
        p = get_probe(name, data_dir=str(shared_data), cap=50)
        out = p.generate(None, rng=probe_rng(0, name))
        assert 0 < len(out.samples) <= 50, name
        for s in out.samples[:10]:
            assert shares_content_lemma(s.query, s.text_1, s.text_2)


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
    by = {r.query: r for r in load_nq_factuality(f).itertuples()}
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
