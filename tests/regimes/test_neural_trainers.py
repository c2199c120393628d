"""Bi-encoder and cross-encoder fine-tuning on tiny random BERTs saved to tmp_path (no downloads)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine, score_pairs
from ranklens.regimes import BiEncoderTrainer, CrossEncoderTrainer, ReSTTest, train_variants

from ._synth import synthetic

pytestmark = pytest.mark.slow


def _tiny_bert(d, words, *, head=False):
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertModel, BertTokenizer

    d.mkdir(parents=True, exist_ok=True)
    (d / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted(words)]) + "\n")
    tok = BertTokenizer(str(d / "vocab.txt"), do_lower_case=True)
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=37, max_position_embeddings=64, num_labels=1)
    torch.manual_seed(0)
    (BertForSequenceClassification(cfg) if head else BertModel(cfg)).save_pretrained(d)
    tok.save_pretrained(d)
    return d


@pytest.fixture(scope="module")
def data():
    tq, eq, qrels, corpus = synthetic(n_topics=3, docs_per_topic=3, per_doc=2)
    words = {w for t in [*tq["text"], *eq["text"], *corpus.values()] for w in t.lower().split()}
    return tq, eq, qrels, corpus, words


def test_bi_encoder_trainer_trains_saves_and_resumes(tmp_path, data):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    tq, eq, qrels, corpus, words = data
    bert = _tiny_bert(tmp_path / "bert", words)
    st_dir = tmp_path / "st"
    SentenceTransformer(modules=[Transformer(str(bert)), Pooling(32, "mean")], device="cpu").save(str(st_dir))
    splits = ReSTTest(n_buckets=2).fit(tq, eq).splits_[1:]  # fold 1: 16 training pairs (fold 0 has 2 sharing one positive)
    allq = pd.concat([tq, eq], ignore_index=True)
    trainer = BiEncoderTrainer(model=str(st_dir), epochs=2, batch_size=4, lr=1e-3, seed=0, device="cpu")
    v1 = train_variants([trainer], splits, allq, qrels, corpus, tmp_path / "out")[0]
    info = json.loads((v1.output_dir and open(f"{v1.output_dir}/done.json").read()))
    assert info["steps"] >= 2 and info["pairs"] == len(splits[0].train_ids("interpolation"))
    eng = ScoringEngine(cache=False)
    qs, ds = list(eq["text"][:3]), [corpus["D0_0"]] * 3
    s1 = score_pairs(v1.ranker, qs, ds, engine=eng)
    v2 = train_variants([trainer], splits, allq, qrels, corpus, tmp_path / "out")[0]
    assert v2.resumed and v2.ranker.fingerprint == v1.ranker.fingerprint
    np.testing.assert_allclose(score_pairs(v2.ranker, qs, ds, engine=ScoringEngine(cache=False)), s1, atol=1e-5)
    # the fine-tuned model differs from the starting point and has its own fingerprint
    from ranklens.regimes import FineTunedBiEncoderRanker

    base = FineTunedBiEncoderRanker(model=str(st_dir), training_id="base", device="cpu")
    assert base.fingerprint != v1.ranker.fingerprint
    assert not np.allclose(score_pairs(base, qs, ds, engine=eng), s1, atol=1e-4)


def test_cross_encoder_trainer_learns_on_tiny_model(tmp_path, data):
    tq, eq, qrels, corpus, words = data
    ce_dir = _tiny_bert(tmp_path / "ce", words, head=True)
    trainer = CrossEncoderTrainer(model=str(ce_dir), epochs=8, batch_size=8, lr=5e-3, judged_negatives=1,
                                  corpus_negatives=1, seed=0, device="cpu", max_length=32)
    ranker = trainer.train(tq, qrels, corpus, output_dir=tmp_path / "out")
    info = json.loads((tmp_path / "out" / "done.json").read_text())
    assert info["loss_last"] < info["loss_first"]
    ex = trainer.examples(tq, qrels, corpus)
    assert trainer.examples(tq, qrels, corpus) == ex  # seeded
    pos = [(q, d) for q, d, y in ex if y == 1.0]
    neg = [(q, d) for q, d, y in ex if y == 0.0]
    eng = ScoringEngine(cache=False)
    sp = score_pairs(ranker, [q for q, _ in pos], [d for _, d in pos], engine=eng)
    sn = score_pairs(ranker, [q for q, _ in neg], [d for _, d in neg], engine=eng)
    assert sp.mean() > sn.mean()
    reloaded = trainer.load(tmp_path / "out", ranker.training_id)
    np.testing.assert_allclose(score_pairs(reloaded, [q for q, _ in pos[:4]], [d for _, d in pos[:4]],
                                           engine=ScoringEngine(cache=False)), sp[:4], atol=1e-4)


def test_killed_training_resumes_from_its_checkpoint_with_identical_weights(tmp_path, data, monkeypatch):
    """A run killed after a checkpoint continues from it and ends with the same weights as an
    uninterrupted run; the checkpoint is removed once the run is done."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    import ranklens.regimes.finetune as tr
    from ranklens.regimes.optimise import CHECKPOINT_DIR

    tq, eq, qrels, corpus, words = data
    bert = _tiny_bert(tmp_path / "bert", words)
    st_dir = tmp_path / "st"
    SentenceTransformer(modules=[Transformer(str(bert)), Pooling(32, "mean")], device="cpu").save(str(st_dir))
    trainer = BiEncoderTrainer(model=str(st_dir), epochs=3, batch_size=4, lr=1e-3, seed=0, device="cpu",
                               checkpoint_every=2)
    whole = trainer.train(tq, qrels, corpus, output_dir=tmp_path / "whole")
    n_steps = json.loads((tmp_path / "whole" / "done.json").read_text())["steps"]
    assert n_steps >= 4

    real_optimise = tr._optimise

    def killed_after_3_steps(model, batches, loss_of, **kw):
        calls = {"n": 0}

        def loss_then_die(batch):
            calls["n"] += 1
            if calls["n"] > 3:
                raise KeyboardInterrupt("killed")
            return loss_of(batch)

        return real_optimise(model, batches, loss_then_die, **kw)

    monkeypatch.setattr(tr, "_optimise", killed_after_3_steps)
    with pytest.raises(KeyboardInterrupt):
        trainer.train(tq, qrels, corpus, output_dir=tmp_path / "killed")
    assert (tmp_path / "killed" / CHECKPOINT_DIR / "state.pt").is_file()
    assert not (tmp_path / "killed" / "done.json").exists()
    monkeypatch.setattr(tr, "_optimise", real_optimise)

    resumed = trainer.train(tq, qrels, corpus, output_dir=tmp_path / "killed")
    info = json.loads((tmp_path / "killed" / "done.json").read_text())
    assert info["resumed_at_step"] == 2 and info["steps"] == n_steps
    assert not (tmp_path / "killed" / CHECKPOINT_DIR).exists()
    wa = SentenceTransformer(str(tmp_path / "whole" / "model"), device="cpu").state_dict()
    wb = SentenceTransformer(str(tmp_path / "killed" / "model"), device="cpu").state_dict()
    assert wa.keys() == wb.keys()
    for k in wa:
        torch.testing.assert_close(wa[k], wb[k], rtol=0, atol=1e-6)
    assert resumed.training_id == whole.training_id


def test_in_batch_negative_batches_never_repeat_a_query_or_a_positive():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ranklens.regimes.finetune import in_batch_negative_batches

    pairs = [("q1", "a", "d1"), ("q1", "a", "d2"), ("q2", "b", "d3"), ("q3", "c", "d1"), ("q4", "d", "d4")]
    assert in_batch_negative_batches([0, 1, 2, 3, 4], pairs, 3) == [[0, 2, 4], [1, 3]]
    assert in_batch_negative_batches([0, 1], pairs, 3) == []  # one query twice: no negatives at all

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=30), st.integers(2, 6))
    def law(qd, bs):
        ps = [(f"q{q}", f"t{q}", f"d{d}") for q, d in qd]
        batches = in_batch_negative_batches(list(range(len(ps))), ps, bs)
        used = [i for b in batches for i in b]
        assert len(used) == len(set(used))
        for b in batches:
            assert 2 <= len(b) <= bs
            assert len({ps[i][0] for i in b}) == len(b) and len({ps[i][2] for i in b}) == len(b)

    law()



def test_pairwise_loss_equals_softmax_over_pos_neg_by_hand(tmp_path, data):
    """The default (paper's) pairwise loss of a batch equals -log softmax([s+, s-])[0] computed
    by hand from the cross-encoder's own scores, mean over the triples."""
    import math

    from sentence_transformers import CrossEncoder

    tq, eq, qrels, corpus, words = data
    ce_dir = _tiny_bert(tmp_path / "ce", words, head=True)
    trainer = CrossEncoderTrainer(model=str(ce_dir), judged_negatives=1, corpus_negatives=1, seed=0, device="cpu",
                                  max_length=32)
    assert trainer.loss == "pairwise"
    model = CrossEncoder(str(ce_dir), num_labels=1, device="cpu", max_length=32)
    items, loss_of = trainer._loss(model, tq, qrels, corpus)
    assert all(len(t) == 3 for t in items) and len(items) >= len(tq)
    batch = [0, 3, 5]
    got = float(loss_of(batch).detach())
    model.eval()
    ref = []
    for i in batch:
        q, p, n = items[i]
        sp, sn = (float(x) for x in model.predict([(q, p), (q, n)], activation_fn=None, show_progress_bar=False))
        ref.append(-sp + math.log(math.exp(sp) + math.exp(sn)))
    assert got == pytest.approx(sum(ref) / len(ref), abs=1e-5)
    # pointwise examples: every positive once, every triple's negative once
    ex = CrossEncoderTrainer(loss="pointwise", judged_negatives=1, corpus_negatives=1).examples(tq, qrels, corpus)
    assert sum(1 for *_, y in ex if y == 0.0) == len(items)


def test_dev_selection_keeps_the_best_checkpoint(tmp_path, data):
    """With a dev set the saved model is the evaluated checkpoint with the best dev MRR@10: its
    dev score, recomputed by hand from the saved model, equals the best one in the history."""
    from sentence_transformers import CrossEncoder

    from ranklens.regimes.optimise import dev_candidates, dev_split

    tq, eq, qrels, corpus, words = data
    ce_dir = _tiny_bert(tmp_path / "ce", words, head=True)
    trainer = CrossEncoderTrainer(model=str(ce_dir), epochs=6, batch_size=4, lr=5e-3, judged_negatives=1,
                                  corpus_negatives=1, seed=0, device="cpu", max_length=32, dev_fraction=0.25,
                                  eval_every=3, dev_negatives=5)
    trainer.train(tq, qrels, corpus, output_dir=tmp_path / "out")
    info = json.loads((tmp_path / "out" / "done.json").read_text())
    hist = info["dev_history"]
    steps = [h[0] for h in hist]
    assert steps == sorted(set([*range(3, info["steps"] + 1, 3), info["steps"]]))
    best = max(h[1] for h in hist)
    assert info["best_step"] == next(st for st, v in hist if v == best)
    fit, dev = dev_split(tq, qrels, 0.25, 0, 1)
    assert len(dev) == round(len(tq) * 0.25) and not set(dev["query_id"]) & set(fit["query_id"])
    items = dev_candidates(dev, qrels, corpus, 5, 0)
    saved = CrossEncoder(str(tmp_path / "out" / "model"), num_labels=1, device="cpu", max_length=32)
    rr = []
    for text, docs, flags in items:  # plain MRR@10, ties in candidate order
        s = list(saved.predict([(text, d) for d in docs], show_progress_bar=False))
        order = sorted(range(len(docs)), key=lambda i: -s[i])[:10]
        hit = [r for r, i in enumerate(order) if flags[i]]
        rr.append(1 / (hit[0] + 1) if hit else 0.0)
    assert sum(rr) / len(rr) == pytest.approx(best, abs=1e-6)
