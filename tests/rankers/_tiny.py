"""Tiny randomly initialised HF models saved to a temp dir (no downloads), for loading tests."""

from __future__ import annotations

from pathlib import Path

WORDS = ("query document relevant true false cats dogs felines python programming language "
         "weather sunny bark purr small are is a the and of to in data science").split()


def write_vocab(d: Path) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ":", ".", *WORDS]
    (d / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return d / "vocab.txt"


def tiny_bert(d: Path, *, head: str | None = None, num_labels: int = 1) -> Path:
    """Save a 2-layer, 32-dim BERT (``head``: None = encoder, "cls" = sequence classification)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertModel, BertTokenizer

    vocab = write_vocab(d)
    tok = BertTokenizer(str(vocab), do_lower_case=True)
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=2, intermediate_size=37, max_position_embeddings=128,
                     num_labels=num_labels)
    torch.manual_seed(0)
    model = BertForSequenceClassification(cfg) if head == "cls" else BertModel(cfg)
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return d


def tiny_t5(d: Path) -> Path:
    """Save a tiny T5ForConditionalGeneration with a WordPiece tokenizer that has true/false."""
    import torch
    from transformers import BertTokenizer, T5Config, T5ForConditionalGeneration

    vocab = write_vocab(d)
    tok = BertTokenizer(str(vocab), do_lower_case=True)
    cfg = T5Config(vocab_size=tok.vocab_size, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                   num_decoder_layers=2, num_heads=2, pad_token_id=0, eos_token_id=3,
                   decoder_start_token_id=0)
    torch.manual_seed(0)
    T5ForConditionalGeneration(cfg).save_pretrained(d)
    tok.save_pretrained(d)
    return d
