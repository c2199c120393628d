"""monoT5-style ranker: a seq2seq model asked whether the document is relevant."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._lazy import require
from ..neural import autocast, check_precision, model_revision
from ..errors import ValidationError
from .base import BaseRanker, component_fingerprint

__all__ = ["MonoT5Ranker"]


@dataclass(kw_only=True)
class MonoT5Ranker(BaseRanker):
    """Score = log P("true") under a softmax over the logits of "true" and "false" at the
    first decoder step, for the input ``Query: {q} Document: {d} Relevant:`` (Nogueira et al.,
    2020, "Document Ranking with a Pretrained Sequence-to-Sequence Model").

    Args:
        model: hub name or local directory of a ``T5ForConditionalGeneration`` checkpoint.
        template: the input template (``{query}`` and ``{document}`` placeholders).
        true_token, false_token: the two answer words; each must be ONE token of the tokenizer.
        max_length: truncate the input to this many tokens (the document end is cut).
        precision, device: as the other neural rankers.
    """

    model: str
    template: str = "Query: {query} Document: {document} Relevant:"
    true_token: str = "true"
    false_token: str = "false"
    max_length: int = 512
    precision: str = "fp32"
    device: str | None = None
    batch_size: int = 16

    def __post_init__(self) -> None:
        check_precision(type(self).__name__, self.precision)

    @property
    def fingerprint(self) -> str:
        return component_fingerprint(self, {"revision": model_revision(self.model),
                                            "precision": self.precision})

    def token_ids(self, tok: Any) -> tuple[int, int]:
        """Vocabulary ids of the true and false tokens (error if either is not one token)."""
        ids = []
        for word in (self.true_token, self.false_token):
            enc = tok.encode(word, add_special_tokens=False)
            unk = getattr(tok, "unk_token_id", None)
            if len(enc) != 1 or (unk is not None and enc[0] == unk):
                raise ValidationError(
                    f"MonoT5Ranker: {word!r} is not one known token of {self.model}'s tokenizer "
                    f"(got {len(enc)} tokens {enc}); pass true_token=/false_token= that the vocabulary has"
                )
            ids.append(int(enc[0]))
        return ids[0], ids[1]

    def _load(self) -> Any:
        tr = require("transformers", feature=type(self).__name__)
        from .._models import resolve_device

        device = resolve_device(self.device)
        tok = tr.AutoTokenizer.from_pretrained(self.model)
        model = tr.T5ForConditionalGeneration.from_pretrained(self.model).to(device).eval()
        return tok, model, device, self.token_ids(tok)

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        import torch

        tok, model, device, (t_id, f_id) = self._model()
        prompts = [self.template.format(query=q, document=d) for q, d in zip(queries, texts)]
        enc = tok(prompts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        enc = {k: v.to(device) for k, v in enc.items()}
        start = model.config.decoder_start_token_id
        dec = torch.full((len(prompts), 1), int(start), dtype=torch.long, device=device)
        with torch.inference_mode(), autocast(self.precision, device):
            logits = model(**enc, decoder_input_ids=dec).logits[:, 0, :].float()
        pair = logits[:, [t_id, f_id]]
        return torch.log_softmax(pair, dim=-1)[:, 0].cpu().numpy().astype(np.float64)
