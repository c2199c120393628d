"""N2O on real data: NPL + CISI + CACM sentences + STS-B sentences, six embedders.

Run once, in the background (encoding is the slow part; embeddings are cached in a
memory-mapped store, so a re-run resumes and then takes about a minute):

    nohup python benchmarks/n2o_real.py > benchmarks/out/n2o_real.log 2>&1 &

MiniLM precision: ``N2O_PRECISION`` (default fp32: bf16 autocast was slower on the shared machine).
The six-embedder analyses use a neighbour corpus of ``N2O_MAX_SENTENCES`` (default 4000; 0 = all)
sentences: every sentence of the needle pairs plus a uniform sample; TF-IDF and the word vectors
are fitted on the full corpus, and HNSW is also measured on full-corpus fastText vectors.
Outputs under ``benchmarks/out/n2o_real/``: one result directory per analysis, PNG plots and
``figures.json``. Also measures HNSW (FAISS) build/query time and recall@50 vs exact search on
the MiniLM embeddings, the all-pairs matrix time from cached embeddings, and engine encode
throughput vs. calling sentence-transformers directly (ratio printed).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RANKLENS_CACHE_DIR", "/tmp/ranklens_n2o_real_cache")

import numpy as np
import pandas as pd

from dataclasses import dataclass

from ranklens._models import default_model_path
from ranklens.embedders import FunctionEmbedder, HFPoolingEmbedder, TfidfEmbedder
from ranklens.embedders.base import BaseEmbedder
from ranklens.embedders.wordvectors import TrainedWordVectorEmbedder
from ranklens.engine import ScoringEngine
from ranklens.neighbors import (
    EmbeddingStore,
    SentenceCorpus,
    build_corpus,
    build_hnsw,
    exact_knn,
    hnsw_knn,
    n2o_matrix,
    n2o_robustness,
    needle_in_haystack,
    plot_n2o_distribution,
    plot_n2o_matrix,
    plot_needle,
    plot_robustness,
    plot_token_overlap,
    popular_outliers,
    recall_at_k,
    token_overlap,
)

DATA = Path(os.environ.get("RANKLENS_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
OUT = Path(os.environ.get("N2O_OUT", Path(__file__).resolve().parent / "out" / "n2o_real"))
# bf16 autocast measured slower than fp32 here under heavy CPU sharing (6.6 vs 8.8 sentences/s)
PRECISION = os.environ.get("N2O_PRECISION", "fp32")
MAX_SENTENCES = int(os.environ.get("N2O_MAX_SENTENCES", "4000"))  # 0 = the full corpus
N_THROUGHPUT = int(os.environ.get("N2O_THROUGHPUT_SENTENCES", "256"))


@dataclass(kw_only=True)
class MiniLMBothPoolings(BaseEmbedder):
    """MiniLM with mean AND CLS pooling from ONE forward pass: ``[mean (384) | cls (384)]``,
    each half L2-normalised. Halves the encoding cost of comparing the two poolings of the same
    weights on this CPU-starved machine; the halves are then served as two embedders."""

    precision: str = "fp32"
    max_length: int = 256
    batch_size: int = 32

    @property
    def fingerprint(self) -> str:
        from ranklens.embedders._neural import model_revision
        from ranklens.rankers.base import component_fingerprint

        return component_fingerprint(self, {"revision": model_revision(default_model_path())})

    def _load(self):
        from transformers import AutoModel, AutoTokenizer

        path = default_model_path()
        return AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()

    def _encode_batch(self, texts):
        import torch

        tok, model = self._model()
        enc = tok(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16,
                                                    enabled=self.precision == "bf16"):
            h = model(**enc).last_hidden_state.float()
        mask = enc["attention_mask"].unsqueeze(-1).float()
        mean = (h * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        cls = h[:, 0]
        mean = torch.nn.functional.normalize(mean, dim=1)
        cls = torch.nn.functional.normalize(cls, dim=1)
        return torch.cat([mean, cls], dim=1).numpy().astype(np.float32)


def pooled_views(both_vectors, corpus, both_fp):
    """Two embedders serving the mean / CLS halves of the stored ``[mean | cls]`` vectors."""
    index = {t: i for i, t in enumerate(corpus.texts)}
    arr = np.asarray(both_vectors)

    def view(lo, hi, name):
        def fn(texts):
            return arr[[index[t] for t in texts], lo:hi]

        fn.__qualname__ = f"view_{name}"
        return FunctionEmbedder(fn=fn, name_=name, version=both_fp)

    return view(0, 384, "minilm-mean"), view(384, 768, "minilm-cls")


def hnsw_check(vecs, label):
    """HNSW (M=16, efC=40) build/query time and recall@50 vs exact on 100 held-out rows."""
    rng = np.random.default_rng(1)
    hq = rng.choice(len(vecs), size=100, replace=False)
    excl = [[int(i)] for i in hq]
    t = time.perf_counter()
    ex = exact_knn(vecs, vecs[hq], 50, exclude=excl)
    t_exact = time.perf_counter() - t
    t = time.perf_counter()
    index = build_hnsw(vecs, M=16, ef_construction=40)
    t_build = time.perf_counter() - t
    hn = {}
    for ef in (64, 128, 256, 512):
        t = time.perf_counter()
        ap = hnsw_knn(index, vecs[hq], 50, ef_search=ef, exclude=excl)
        hn[ef] = {"query_seconds": time.perf_counter() - t, "recall_at_50": recall_at_k(ap.indices, ex.indices)}
    log(f"HNSW on {label} ({vecs.shape[0]}x{vecs.shape[1]}): build {t_build:.1f}s; exact 100q "
        f"{t_exact * 1000:.0f} ms; " + "; ".join(
            f"ef={ef}: {v['query_seconds'] * 1000:.0f} ms, recall@50 {v['recall_at_50']:.3f}" for ef, v in hn.items()))
    return {"n": int(vecs.shape[0]), "d": int(vecs.shape[1]), "build_seconds": t_build,
            "exact_seconds_100q": t_exact, "by_ef": hn}


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def join(*parts):
    parts = [p.strip() for p in parts if p and p.strip()]
    return " ".join(p if p[-1] in ".!?" else p + "." for p in parts)


def read_stsb(split):
    rows = []
    with open(DATA / "stsb" / f"sts-{split}.csv", encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) >= 7:
                rows.append({"pair_id": f"{split}:{c[3]}:{c[2]}:{c[1]}", "score": float(c[4]),
                             "text_a": c[5], "text_b": c[6]})
    return pd.DataFrame(rows)


def load_docs():
    docs = []
    for r in read_jsonl(DATA / "npl" / "derived" / "docs.jsonl"):
        docs.append((f"npl:{r['doc_id']}", r["text"]))
    for r in read_jsonl(DATA / "cisi" / "derived" / "docs.jsonl"):
        docs.append((f"cisi:{r['doc_id']}", join(r.get("title", ""), r.get("text", ""))))
    for r in read_jsonl(DATA / "cacm" / "derived" / "docs.jsonl"):
        docs.append((f"cacm:{r['doc_id']}", join(r.get("title", ""), r.get("abstract", ""))))
    stsb = {s: read_stsb(s) for s in ("train", "dev", "test")}
    for s, df in stsb.items():
        for r in df.itertuples():
            docs.append((f"stsb:{r.pair_id}:a", r.text_a))
            docs.append((f"stsb:{r.pair_id}:b", r.text_b))
    return docs, stsb


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    figures: dict = {}
    docs, stsb = load_docs()
    corpus = build_corpus(docs)
    log(f"corpus: {len(docs)} docs -> {corpus.n_input} sentences, {corpus.n_duplicates} exact duplicates "
        f"removed, {len(corpus)} kept")
    figures["corpus"] = {"docs": len(docs), "sentences": corpus.n_input, "duplicates_removed": corpus.n_duplicates,
                         "kept": len(corpus)}
    # the memory-mapped store is the persistent cache (resumable per chunk); no second copy in SQLite
    # the memory-mapped store is the persistent cache (resumable per chunk); no second copy in SQLite
    engine = ScoringEngine(cache=False, show_progress=False)
    store = EmbeddingStore(chunk_size=1024)
    texts = list(corpus.texts)
    t = time.perf_counter()
    tfidf = TfidfEmbedder().fit(texts)
    log(f"tfidf fitted on the full corpus in {time.perf_counter() - t:.1f}s")
    # TF-IDF and the word vectors are fitted/trained on the FULL deduplicated corpus
    embedders = {
        "tfidf": tfidf,
        "word2vec": TrainedWordVectorEmbedder(corpus=tuple(texts), method="word2vec"),
        "fasttext": TrainedWordVectorEmbedder(corpus=tuple(texts), method="fasttext", subwords=True),
        "fasttext-nosub": TrainedWordVectorEmbedder(corpus=tuple(texts), method="fasttext", subwords=False),
    }
    # HNSW vs exact on REAL embeddings of the full corpus (static-vector models are cheap to encode)
    full_fast = np.asarray(store.get(embedders["fasttext"], corpus.texts, engine=engine, corpus_hash=corpus.hash))
    figures["hnsw_fasttext_full"] = hnsw_check(full_fast, "fasttext (full corpus)")

    # neighbour corpus for the six-embedder analyses: MiniLM encodes ~7 sentences/s on this shared
    # machine (measured), so the full corpus (2 x 45k MiniLM passes) is out of reach; take every
    # sentence of the needle pairs plus a uniform sample of the rest, N2O_MAX_SENTENCES in all
    pairs = pd.concat([stsb["dev"], stsb["test"]], ignore_index=True)
    from ranklens.neighbors.overlap import token_jaccard

    sel = pairs[(pairs["score"] >= 4.0)
                & np.array([token_jaccard(a, b) < 0.6 for a, b in zip(pairs["text_a"], pairs["text_b"])])]
    if MAX_SENTENCES and MAX_SENTENCES < len(corpus):
        need = {corpus.index_of_text(t) for t in [*sel["text_a"], *sel["text_b"]]} - {None}
        rest = np.setdiff1d(np.arange(len(corpus)), sorted(need))
        rng0 = np.random.default_rng(0)
        take = np.sort(np.concatenate([sorted(need), rng0.choice(rest, MAX_SENTENCES - len(need), replace=False)]))
        full = corpus
        corpus = SentenceCorpus(tuple(full.ids[i] for i in take), tuple(full.texts[i] for i in take),
                                full.n_input, full.n_duplicates)
        log(f"neighbour corpus: {len(corpus)} sentences ({len(need)} from the needle pairs + uniform sample)")
    figures["neighbour_corpus"] = len(corpus)
    both = MiniLMBothPoolings(precision=PRECISION)
    t = time.perf_counter()
    both_vecs = store.get(both, corpus.texts, engine=engine, corpus_hash=corpus.hash, desc="minilm")
    log(f"embedded MiniLM (mean+cls, one pass): {both_vecs.shape} in {time.perf_counter() - t:.1f}s")
    embedders["minilm-mean"], embedders["minilm-cls"] = pooled_views(both_vecs, corpus, both.fingerprint)
    # the halves must be what the library's HFPoolingEmbedder computes (checked on a few sentences)
    probe = list(corpus.texts[:8])
    for pooling, lo in (("mean", 0), ("cls", 384)):
        ref = HFPoolingEmbedder(pooling=pooling, precision=PRECISION).encode(probe)
        cos = np.sum(ref * np.asarray(both_vecs[:8, lo:lo + 384]), axis=1)
        log(f"check vs HFPoolingEmbedder({pooling}): min cosine {cos.min():.6f}")
        figures[f"check_{pooling}_min_cosine"] = float(cos.min())
    timings = {}
    for name, e in embedders.items():
        t = time.perf_counter()
        v = store.get(e, corpus.texts, engine=engine, corpus_hash=corpus.hash, desc=name)
        timings[name] = time.perf_counter() - t
        log(f"embedded {name}: {v.shape} in {timings[name]:.1f}s")
    figures["embed_seconds"] = timings

    t = time.perf_counter()
    mat = n2o_matrix(embedders, corpus, k=50, n_queries=100, n_samples=5, seed=0, engine=engine, store=store)
    figures["matrix_seconds_from_cache"] = time.perf_counter() - t
    log(f"matrix (6 embedders, {len(corpus)} sentences, cached embeddings): "
        f"{figures['matrix_seconds_from_cache']:.1f}s")
    mat.save(OUT / "n2o-matrix")
    plot_n2o_matrix(mat).savefig(OUT / "n2o_matrix.png", dpi=120)
    plot_n2o_distribution(mat).savefig(OUT / "n2o_distribution.png", dpi=120)
    log("matrix mean ± std:\n" + mat.table.to_string(index=False, float_format="%.3f"))
    figures["matrix"] = mat.table.round(4).to_dict(orient="records")

    rob = n2o_robustness(embedders, corpus, ks=range(5, 51, 5), n_queries=100, n_samples=5, seed=0,
                         engine=engine, store=store)
    rob.save(OUT / "n2o-robustness")
    plot_robustness(rob).savefig(OUT / "n2o_robustness.png", dpi=120)
    log(f"robustness: {json.dumps(rob.summary)}")
    figures["robustness"] = dict(rob.summary)

    tok = token_overlap(embedders, corpus, k=50, n_queries=100, seed=0, engine=engine, store=store)
    tok.save(OUT / "n2o-token-overlap")
    plot_token_overlap(tok).savefig(OUT / "n2o_token_overlap.png", dpi=120)
    log("token overlap:\n" + tok.table.to_string(index=False, float_format="%.4f"))
    figures["token_overlap"] = tok.table.round(4).to_dict(orient="records")
    tokc = token_overlap(embedders, corpus, k=50, n_queries=100, seed=0, terms="content", engine=engine, store=store)
    tokc.save(OUT / "n2o-token-overlap-content")
    plot_token_overlap(tokc).savefig(OUT / "n2o_token_overlap_content.png", dpi=120)
    log("token overlap, stemmed content terms:\n" + tokc.table.to_string(index=False, float_format="%.4f"))
    figures["token_overlap_content"] = tokc.table.round(4).to_dict(orient="records")

    nd = needle_in_haystack(embedders, corpus, sel, min_score=4.0, max_overlap=0.6, engine=engine, store=store)
    nd.save(OUT / "n2o-needle")
    plot_needle(nd).savefig(OUT / "n2o_needle.png", dpi=120)
    log(f"needle ({nd.summary['n_pairs']} pairs):\n" + nd.table.to_string(index=False, float_format="%.4f"))
    figures["needle"] = nd.table.round(4).to_dict(orient="records")

    q = corpus.index_of_text(sel["text_a"].iloc[0].strip())
    po = popular_outliers(embedders, corpus, int(q), m=10, k=50, engine=engine, store=store)
    po.save(OUT / "n2o-popular-outliers")
    log(f"popular/outliers for {po.summary['query']!r}: {po.summary['n_popular']} popular, "
        f"outliers {po.summary['n_outliers']}")
    figures["popular_outliers"] = dict(po.summary)

    vecs = np.asarray(store.get(embedders["minilm-mean"], corpus.texts, engine=engine, corpus_hash=corpus.hash))
    figures["hnsw_minilm_mean"] = hnsw_check(vecs, "MiniLM-mean (neighbour corpus)")

    # engine encode throughput vs sentence-transformers directly (fp32, batch 32, same texts)
    from sentence_transformers import SentenceTransformer

    from ranklens.embedders import SentenceTransformerEmbedder

    rng = np.random.default_rng(2)
    sample = [texts[i] for i in rng.choice(len(texts), size=N_THROUGHPUT, replace=False)]
    st = SentenceTransformer(default_model_path(), device="cpu")
    st.encode(sample[:32], batch_size=32)
    emb = SentenceTransformerEmbedder(model=None)
    rates = {"direct": [], "engine": []}
    for rep in range(2):
        t = time.perf_counter()
        st.encode(sample, batch_size=32)
        rates["direct"].append(len(sample) / (time.perf_counter() - t))
        eng = ScoringEngine(cache=False, show_progress=False)
        t = time.perf_counter()
        eng.encode(emb, sample)
        rates["engine"].append(len(sample) / (time.perf_counter() - t))
    d, e = max(rates["direct"]), max(rates["engine"])
    figures["encode_throughput"] = {"direct_per_s": d, "engine_per_s": e, "ratio_engine_vs_direct": e / d}
    log(f"encode throughput (fp32, {N_THROUGHPUT} corpus sentences, best of 2): direct ST {d:.0f}/s, engine {e:.0f}/s, "
        f"ratio engine/direct = {e / d:.2f}x")
    (OUT / "figures.json").write_text(json.dumps(figures, indent=2, default=float))
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
