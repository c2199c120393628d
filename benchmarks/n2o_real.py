"""N2O on real data, through the one door (``run_analysis("neighbors", ...)``), and at scale.

    python benchmarks/n2o_real.py real    # paper-faithful N2O on NPL + CISI + CACM + STS-B sentences
    python benchmarks/n2o_real.py scale   # time and peak RSS at 100k, 300k and 1M sentences

``real`` runs two configurations (outputs under ``benchmarks/out/n2o_real/``):

* ``cheap``: every sentence of NPL, CISI and CACM (spaCy segmentation) plus every STS-B sentence;
  the paper's tf-idf, the old ranklens tf-idf (stemmed, stopwords removed, 4,096 terms),
  word2vec and fastText trained on the corpus (the paper used pretrained vectors: none ship
  here). Paper defaults: k = 50, 5 samples of 100 ledes, needle on STS-B dev + test news pairs
  with score 4-5 and overlap < 0.6, one needle at a time.
* ``all``: the same plus MiniLM with mean and CLS pooling, on a capped corpus
  (``N2O_MAX_SENTENCES`` collection sentences, default 6000, plus the STS-B dev and test
  sentences) because MiniLM on two shared CPU cores is the slow part.

``scale`` builds a corpus of N distinct sentences (real sentences of the shared corpora, and
beyond their number seeded recombinations: the first half of one real sentence joined to the
second half of another, so vocabulary and lengths stay realistic), and runs the N2O matrix of the
paper's sparse tf-idf and corpus-trained word2vec (k = 50, 5 x 100 queries) in a fresh process per
size and mode, reporting wall time per phase, the time spent writing vectors, peak RSS and the
bytes on disk against the raw vectors (issue 22: <= 1.2x, RSS < 3 GB, time dominated by encoding).
Mode ``cache``: a cold on-disk cache; the word vectors are written once into the engine's vector
store and the search reads its shards memory-mapped (``mmap_bytes=0``). Mode ``nocache``: the
engine keeps no vector; they stream into one working memmap.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from _harness import data_root

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RANKLENS_CACHE_DIR", "/tmp/ranklens_n2o_real_cache")
os.environ.setdefault("RANKLENS_PROGRESS", "0")

DATA = data_root()
OUT = Path(os.environ.get("N2O_OUT", Path(__file__).resolve().parent / "out" / "n2o_real"))
MAX_SENTENCES = int(os.environ.get("N2O_MAX_SENTENCES", "6000"))
STS = [str(DATA / "stsb" / f"sts-{s}.csv") for s in ("train", "dev", "test")]


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def _join(*parts):
    parts = [p.strip() for p in parts if p and p.strip()]
    return " ".join(p if p[-1] in ".!?" else p + "." for p in parts)


def classic_docs():
    docs = []
    for name, fields in (("npl", ("text",)), ("cisi", ("title", "text")), ("cacm", ("title", "abstract"))):
        with open(DATA / name / "derived" / "docs.jsonl") as f:
            for line in f:
                r = json.loads(line)
                docs.append((f"{name}:{r['doc_id']}", _join(*(r.get(k) or "" for k in fields))))
    return docs


def collection(docs):
    import pandas as pd

    from ranklens.io import Collection, DocStore

    return Collection("npl+cisi+cacm", DocStore(dict(docs), name="npl+cisi+cacm"),
                      pd.DataFrame({"query_id": [], "text": []}, dtype=str))


def run_real():
    from ranklens.drive import run_analysis, save_results

    coll = collection(classic_docs())
    cheap = {"tfidf": {"spec": "tfidf"},
             "tfidf-old": {"spec": "tfidf", "params": {"idf": "smooth", "stem": True, "stopwords": True,
                                                        "max_features": 4096, "tokenizer": "ranklens"}},
             "word2vec": {"spec": "word2vec"}, "fasttext": {"spec": "fasttext"}}
    base = {"sentences": tuple(STS), "pairs": tuple(STS[1:]), "analyses": ("matrix", "robustness", "tokens",
                                                                             "outliers", "needle")}
    figures = {}
    for name, models, extra in (
        ("cheap", cheap, {}),
        ("all", {**cheap, "minilm-mean": {"spec": "minilm"}, "minilm-cls": {"spec": "hf:minilm:cls"}},
         {"max_sentences": MAX_SENTENCES, "sentences": tuple(STS[1:])}),
    ):
        t = time.perf_counter()
        results = run_analysis("neighbors", coll, models, {**base, **extra}, seed=0)
        save_results(results, OUT / name)
        figures[name] = {r.kind: {"summary": r.summary, "table": r.table.to_dict("records"),
                                  "warnings": list(r.warnings)} for r in results}
        figures[name]["seconds"] = time.perf_counter() - t
        tokens = [r for r in results if r.kind == "neighbors-token-overlap"]
        variant = run_analysis("neighbors", coll, models, {**base, **extra, "analyses": ("tokens",),
                                                           "terms": "tokens"}, seed=0)
        figures[name]["token_overlap_all_tokens"] = variant[0].table.to_dict("records")
        log(name, f"{figures[name]['seconds']:.0f}s", json.dumps(tokens[0].summary["means"]))
    (OUT / "figures.json").write_text(json.dumps(figures, indent=1, default=str))


def scale_texts(n):
    """``n`` distinct sentences: the real ones, then seeded half + half recombinations."""
    import numpy as np

    from ranklens.neighbors import build_corpus
    from ranklens.io.pairs import read_sentences

    docs = classic_docs() + [(i, t) for f in STS for i, t in read_sentences(f)]
    real = list(build_corpus(docs).texts)
    out, seen = list(real[:n]), set(real[:n])
    rng = np.random.default_rng(0)
    while len(out) < n:
        a, b = rng.integers(len(real), size=2)
        wa, wb = real[a].split(), real[b].split()
        t = " ".join(wa[: max(1, len(wa) // 2)] + wb[len(wb) // 2:])
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out, len(real)


def _dir_bytes(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def scale_one(n, mode="cache"):
    """One size in a fresh process. ``mode="cache"``: a cold on-disk cache (vectors written once
    into the vector store's shards, the search reads them memory-mapped); ``"nocache"``: the
    engine keeps nothing, the vectors stream into one working memmap."""
    import tempfile

    from ranklens.specs import make_embedder
    from ranklens.engine import ScoringEngine
    from ranklens.neighbors import SentenceCorpus, n2o_matrix
    from ranklens.neighbors.search import corpus_vectors

    phases = {}
    t = time.perf_counter()
    texts, n_real = scale_texts(n)
    corpus = SentenceCorpus(tuple(str(i) for i in range(n)), tuple(texts), n, 0, tuple(range(n)))
    phases["corpus"] = time.perf_counter() - t
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="n2o-scale-") as tmp:
        engine = ScoringEngine(cache=Path(tmp) / "cache" if mode == "cache" else False, show_progress=False)
        put = engine.cache.put_vectors
        store_s = [0.0]

        def timed_put(fp, items):  # time spent writing vectors (store or memory budget)
            t0 = time.perf_counter()
            put(fp, items)
            store_s[0] += time.perf_counter() - t0

        engine.cache.put_vectors = timed_put
        t = time.perf_counter()
        tfidf = make_embedder("tfidf", corpus=texts)
        vt = corpus_vectors(tfidf, texts, unit=True)
        phases["tfidf_fit_encode"] = time.perf_counter() - t
        t = time.perf_counter()
        w2v = make_embedder("word2vec", corpus=texts)
        w2v.encode(["warm up"])  # trains the vectors
        phases["word2vec_train"] = time.perf_counter() - t
        t = time.perf_counter()
        vw = corpus_vectors(w2v, texts, engine=engine, mmap_bytes=0, work_dir=Path(tmp), chunk_size=65536, unit=True)
        phases["word2vec_encode_and_store"] = time.perf_counter() - t
        phases["of_which_vector_writes"] = store_s[0]
        disk = _dir_bytes(tmp)
        t = time.perf_counter()
        res = n2o_matrix({"tfidf": vt, "word2vec": vw}, corpus, k=50, n_queries=100, n_samples=5, seed=0,
                         components={"tfidf": tfidf.fingerprint, "word2vec": w2v.fingerprint})
        phases["n2o_matrix_search"] = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    raw = n * vw.shape[1] * 4
    return {"n": n, "mode": mode, "n_real_sentences": n_real, "vocabulary": int(vt.shape[1]),
            "tfidf_nnz": int(vt.nnz), "word2vec_storage": type(vw).__name__, "phases_seconds": phases,
            "peak_rss_mb": rss, "disk_bytes": disk, "raw_vector_bytes": raw, "disk_over_raw": disk / raw,
            "n2o": float(res.table["n2o_mean"].iloc[0]),
            "ci": [float(res.table["ci_low"].iloc[0]), float(res.table["ci_high"].iloc[0])]}


def run_scale():
    sizes = [int(x) for x in os.environ.get("N2O_SCALE_SIZES", "100000,300000,1000000").split(",")]
    modes = os.environ.get("N2O_SCALE_MODES", "cache,nocache").split(",")
    rows = []  # every size with a cold cache; the no-cache mode at the largest size only
    for n, mode in [(n, m) for n in sizes for m in modes if m == modes[0] or n == max(sizes)]:
        t = time.perf_counter()
        out = subprocess.run([sys.executable, __file__, "scale-one", str(n), mode], capture_output=True, text=True)
        if out.returncode:
            log(f"n={n} failed:", out.stderr[-2000:])
            continue
        row = json.loads(out.stdout.strip().splitlines()[-1])
        row["wall_seconds"] = time.perf_counter() - t
        rows.append(row)
        log(json.dumps(row))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "scale.json").write_text(json.dumps(rows, indent=1))


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "real"
    OUT.mkdir(parents=True, exist_ok=True)
    if mode == "scale-one":
        print(json.dumps(scale_one(int(sys.argv[2]), *sys.argv[3:4])))
    elif mode == "scale":
        run_scale()
    else:
        run_real()
    return 0


if __name__ == "__main__":
    sys.exit(main())
