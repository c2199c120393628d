from __future__ import annotations

import numpy as np
import pytest

from ranklens.errors import ValidationError
from ranklens.rankers import CrossEncoderRanker, MonoT5Ranker
from ranklens.specs import make_ranker

QS = ["cats felines", "python programming", "cats felines"]
TS = ["cats are small felines . cats purr", "python is a programming language", "dogs bark"]


def test_cross_encoder_single_logit_matches_manual_forward(tiny_ce_dir):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    r = CrossEncoderRanker(model=str(tiny_ce_dir))
    got = r.score(QS, TS)
    assert got.shape == (3,) and got.dtype == np.float64
    np.testing.assert_array_equal(got, r.score(QS, TS))
    tok = AutoTokenizer.from_pretrained(tiny_ce_dir)
    m = AutoModelForSequenceClassification.from_pretrained(tiny_ce_dir).eval()
    with torch.no_grad():
        ref = [m(**tok(q, t, return_tensors="pt")).logits[0, 0].item() for q, t in zip(QS, TS)]
    np.testing.assert_allclose(got, ref, atol=1e-5)
    assert got[0] != got[2]  # different texts, different scores


def test_cross_encoder_two_labels_uses_positive_class(tiny_ce2_dir):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_ce2_dir)
    m = AutoModelForSequenceClassification.from_pretrained(tiny_ce2_dir).eval()
    with torch.no_grad():
        logits = m(**tok(QS[0], TS[0], return_tensors="pt")).logits[0]
    for label in (0, 1):
        got = CrossEncoderRanker(model=str(tiny_ce2_dir), positive_label=label).score(QS[:1], TS[:1])
        assert got[0] == pytest.approx(logits[label].item(), abs=1e-5)
    with pytest.raises(ValidationError, match="labels"):
        CrossEncoderRanker(model=str(tiny_ce2_dir), positive_label=5).score(QS[:1], TS[:1])


def test_monot5_score_is_log_softmax_of_true_vs_false(tiny_t5_dir):
    import torch
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    r = make_ranker(f"monot5:{tiny_t5_dir}")
    assert isinstance(r, MonoT5Ranker)
    got = r.score(QS, TS)
    assert np.all(got < 0)  # log-probabilities
    tok = AutoTokenizer.from_pretrained(tiny_t5_dir)
    m = T5ForConditionalGeneration.from_pretrained(tiny_t5_dir).eval()
    t_id, f_id = tok.convert_tokens_to_ids(["true", "false"])
    for (q, d), g in zip(zip(QS, TS), got):
        enc = tok(f"Query: {q} Document: {d} Relevant:", return_tensors="pt")
        with torch.no_grad():
            logits = m(**enc, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[0, 0]
        lt, lf = logits[t_id].item(), logits[f_id].item()
        expected = lt - np.logaddexp(lt, lf)
        assert g == pytest.approx(expected, abs=1e-5)


def test_monot5_rejects_multi_token_answer_words(tiny_t5_dir):
    with pytest.raises(ValidationError, match="tokens"):
        MonoT5Ranker(model=str(tiny_t5_dir), true_token="truthfully").score(["a"], ["b"])


def test_neural_fingerprint_tracks_weights_and_precision(tiny_ce_dir, tmp_path):
    from tests.rankers._tiny import tiny_bert

    a = CrossEncoderRanker(model=str(tiny_ce_dir))
    assert a.fingerprint == CrossEncoderRanker(model=str(tiny_ce_dir)).fingerprint
    assert a.fingerprint != CrossEncoderRanker(model=str(tiny_ce_dir), precision="bf16").fingerprint
    import torch

    torch.manual_seed(1)
    other = tiny_bert(tmp_path / "other", head="cls")
    from transformers import AutoModelForSequenceClassification

    m = AutoModelForSequenceClassification.from_pretrained(other)
    with torch.no_grad():
        m.classifier.bias.add_(1.0)
    m.save_pretrained(other)
    assert CrossEncoderRanker(model=str(other)).fingerprint != a.fingerprint


def test_bf16_close_to_fp32(tiny_ce_dir):
    fp32 = CrossEncoderRanker(model=str(tiny_ce_dir)).score(QS, TS)
    bf16 = CrossEncoderRanker(model=str(tiny_ce_dir), precision="bf16").score(QS, TS)
    np.testing.assert_allclose(bf16, fp32, atol=0.05)
    with pytest.raises(ValidationError, match="fp16"):
        CrossEncoderRanker(model=str(tiny_ce_dir), precision="fp16", device="cpu").score(QS, TS)
    with pytest.raises(ValidationError, match="precision"):
        CrossEncoderRanker(model=str(tiny_ce_dir), precision="int8")
