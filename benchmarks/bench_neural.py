"""Neural scoring past fp32: MiniLM (bi-encoder) and a cross-encoder built from MiniLM's weights on
Cranfield query-doc pairs, PyTorch fp32 vs each backend (ranklens.backends), same process.

Run:  python benchmarks/bench_neural.py --data-dir ../shared/data [--n 5000] [--reps 3]
      [--backends onnx,onnx-int8,bf16] [--models minilm,cross-encoder]

Pairs: the first n/100 Cranfield queries x 100 documents each (a seeded sample of the 1,400), so the
top-10 overlap is measured per query over 100 candidates. Per model and backend:

* time to score the n pairs (bi-encoder: encode the distinct queries and documents, then dot
  products; cross-encoder: through the engine, which sends length-sorted batches of 32, with no
  disk cache), after an untimed
  warm-up that loads, exports and quantises (to a temporary cache dir) and runs the in-run
  agreement check; harness: alternating order, min and median of --reps;
* RATIO backend / torch-fp32 time (goal <= 0.5, i.e. >= 2x fp32);
* agreement with fp32 over the n pairs: Spearman of the scores (goal >= 0.99) and mean top-10
  overlap per query (goal >= 0.95) (ranklens.backends.agreement).

The cross-encoder's classification head is freshly initialised (seeded): no shipped checkpoint;
its speed is that of any MiniLM-sized cross-encoder, its agreement figures are those of a model
whose scores are not trained to separate relevance (a harder case for int8 than a trained head).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from _harness import compare_calls, data_root, ratio


def pairs(root: Path, n: int, per_query: int = 100) -> tuple[list[str], list[str], np.ndarray]:
    d = root / "cranfield" / "derived"
    docs = [json.loads(line)["text"] for line in open(d / "docs.jsonl")]
    queries = pd.read_csv(d / "queries.tsv", sep="\t", dtype=str)["text"].tolist()
    nq = max(1, n // per_query)
    rng = np.random.default_rng(0)
    qs, ts, gs = [], [], []
    for qi in range(nq):
        for di in rng.choice(len(docs), size=per_query, replace=False):
            qs.append(queries[qi])
            ts.append(docs[di])
            gs.append(qi)
    return qs, ts, np.asarray(gs)


def cross_encoder_dir(out: Path) -> Path:
    """A cross-encoder (one logit) from MiniLM's encoder weights and a seeded fresh head."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from ranklens._models import default_model_path

    src = default_model_path()
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(src, num_labels=1)
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(src).save_pretrained(out)
    return out


def scorer(kind: str, backend: str, ce_dir: Path, qs: list[str], ts: list[str]):
    from ranklens.embedders import SentenceTransformerEmbedder
    from ranklens.rankers import CrossEncoderRanker

    precision = "bf16" if backend == "bf16" else "fp32"
    be = "torch" if backend in ("bf16", "torch-fp32") else backend
    if kind == "minilm":
        emb = SentenceTransformerEmbedder(backend=be, precision=precision, device="cpu")
        uniq = list(dict.fromkeys([*qs, *ts]))
        pos = {t: i for i, t in enumerate(uniq)}
        qi = np.array([pos[q] for q in qs])
        ti = np.array([pos[t] for t in ts])

        def run(texts=uniq) -> np.ndarray:
            v = emb.encode(texts).astype(np.float64)
            return np.einsum("ij,ij->i", v[qi], v[ti]) if len(texts) == len(uniq) else v

        warm = lambda: emb.encode(uniq[:64])  # noqa: E731
    else:
        ce = CrossEncoderRanker(model=str(ce_dir), backend=be, precision=precision, device="cpu", max_length=256)

        def run() -> np.ndarray:  # through the engine, as an analysis sends them: length-sorted batches of
            # 32; a fresh in-memory cache each call (every pair scored)
            from ranklens.engine import ScoringEngine, score_pairs

            return score_pairs(ce, qs, ts, engine=ScoringEngine(cache=False, show_progress=False))

        warm = lambda: ce.score(qs[:32], ts[:32])  # noqa: E731
    return run, warm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", default=None, help="data root holding cranfield/ (else $RANKLENS_DATA)")
    ap.add_argument("--n", type=int, default=5000, help="query-doc pairs (multiple of 100)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--backends", default="onnx,onnx-int8,bf16")
    ap.add_argument("--models", default="minilm,cross-encoder")
    a = ap.parse_args()
    from ranklens.backends import agreement

    qs, ts, groups = pairs(data_root(a.data_dir), a.n)
    tmp = Path(tempfile.mkdtemp(prefix="bench-neural-"))
    os.environ["RANKLENS_CACHE_DIR"] = str(tmp / "cache")  # exports go to a fresh cache, not the user's
    ce_dir = cross_encoder_dir(tmp / "ce") if "cross-encoder" in a.models else tmp
    import torch

    from ranklens.neural import cpu_has_bf16

    vnni = getattr(torch.cpu, "_is_vnni_supported", lambda: None)()
    print(f"{len(qs)} pairs, {groups.max() + 1} queries x 100 docs; torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; {platform.processor() or platform.machine()}: bf16 instructions "
          f"{cpu_has_bf16()}, VNNI {vnni} (the ratios depend on them: int8 needs VNNI, bf16 AVX512-BF16/AMX)",
          flush=True)
    for kind in a.models.split(","):
        names = ["torch-fp32", *a.backends.split(",")]
        runs, out = {}, {}
        for name in names:
            run, warm = scorer(kind, name, ce_dir, qs, ts)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                warm()
            notes = [str(x.message) for x in w if "agrees with fp32" in str(x.message)]
            print(f"[{kind} {name}] in-run check: {notes[0] if notes else '(fp32: none)'}", flush=True)

            def timed(run=run, name=name, out=out):
                out[name] = run()

            runs[name] = timed
        print(f"== {kind}", flush=True)
        t = compare_calls(runs, reps=a.reps, warmup=0)
        for name in names[1:]:
            ratio(t, name, "torch-fp32", goal=0.5)
            ag = agreement(out["torch-fp32"], out[name], groups=groups)
            print(f"AGREEMENT {kind} {name} vs fp32 over {ag.n} pairs: Spearman {ag.spearman:.4f} (goal >= 0.99), "
                  f"top-10 overlap {ag.top_overlap:.3f} over {ag.groups} queries (goal >= 0.95), "
                  f"max |diff| {ag.max_abs_diff:.3g}", flush=True)


if __name__ == "__main__":
    main()
