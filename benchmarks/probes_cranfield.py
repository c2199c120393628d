"""The paper's probe tables on real data: Cranfield and the DL19 passages of
``trec_dl19_reannotation`` (about half of the judged DL19 pool), with BM25, TF-IDF and MiniLM.

    python benchmarks/probes_cranfield.py --data-dir /work/shared/data [--out DIR] [--cap N] [--models bm25,tfidf,minilm]

The data root is ``--data-dir`` or ``$RANKLENS_DATA`` (the registry's variable), never a default.

* models: ranklens' BM25 (``bm25`` = ``bm25:anserini``, k1=0.9, b=0.4), the paper's BM25
  (``bm25-terrier`` = ``bm25:terrier``: Terrier's BM25 formula with its defaults), TF-IDF and MiniLM
  (all-MiniLM-L6-v2, a bi-encoder like the paper's SBERT);
* Cranfield: measure-and-match and manipulation probes (the paper's Tables 1-2), δ calibrated on
  Cranfield (ranklens' procedure for a bare collection: BM25 top-20 re-ranked);
* DL19 passages: the same probes, δ calibrated the paper's way on the official DL19 BM25 run
  (``trec_dl_runs/official/dl19/bm25base_p``; only candidates with text are re-ranked);
* dataset-transfer probes (Table 3): MRPC train + test, JFLEG all references, TurkCorpus all
  simplifications, WNC, XSum, NQ per entity type (δ from the DL19 calibration, as the paper);
* the three tables side by side (``ranklens probes table``), model calls vs distinct pairs, and a
  re-run from the engine cache (0 model calls).

Everything goes through the one door (:func:`ranklens.drive.run_analysis`) with ``Params`` values.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def data_root(given: str | None) -> Path:
    """``--data-dir`` or ``$RANKLENS_DATA``; neither is an error naming the fix."""
    root = given or os.environ.get("RANKLENS_DATA")
    if not root:
        raise SystemExit("no data root: give --data-dir DIR or set RANKLENS_DATA (e.g. /work/shared/data)")
    if not Path(root).is_dir():
        raise SystemExit(f"data root {root} is not a directory (--data-dir / RANKLENS_DATA)")
    return Path(root).resolve()

TM = ("mm-*", "tr-del-stops-punct", "tr-lemmatize", "tr-shuffle-words", "tr-shuffle-sents", "tr-shuffle-preps",
      "tr-typo", "tr-add-nonrel-sent")


MODELS = {"bm25-terrier": {"spec": "bm25:terrier"}}


def dl19_collection(out: Path, data: Path) -> Path:
    """A collection directory of the DL19 passages that have text: docs, the 43 queries, the
    official NIST qrels restricted to those passages."""
    d = out / "dl19-passages"
    if (d / "qrels.trec").is_file():
        return d
    d.mkdir(parents=True, exist_ok=True)
    src = data / "trec_dl19_reannotation"
    ids = set()
    with (src / "passages.tsv").open(encoding="utf-8") as f, (d / "docs.jsonl").open("w", encoding="utf-8") as g:
        next(f)
        for line in f:
            pid, text = line.rstrip("\n").split("\t", 1)
            ids.add(pid)
            g.write(json.dumps({"doc_id": pid, "text": text}) + "\n")
    qrels = [ln.split() for ln in (data / "trec_dl_msmarco_passage" / "qrels.dl19-passage.txt").read_text().splitlines()
             if ln.strip()]
    kept = [r for r in qrels if r[2] in ids]
    (d / "qrels.trec").write_text("".join(f"{q} 0 {p} {g}\n" for q, _z, p, g in kept))
    qids = {r[0] for r in kept}
    lines = (src / "queries.tsv").read_text(encoding="utf-8").splitlines()[1:]
    (d / "queries.tsv").write_text("query_id\ttext\n" + "".join(f"{ln}\n" for ln in lines if ln.split("\t")[0] in qids))
    return d


def _distinct_texts(res: object) -> int:
    t = res.tables["texts"]
    return len(set(t["query"]) | set(t["text_1"]) | set(t["text_2"]))


def run(name: str, coll_spec: str, models: dict, params: dict, out: Path, rerun: bool = True) -> object:
    from ranklens.drive import run_analysis, save_results
    from ranklens.engine import default_engine
    from ranklens.io import load_collection

    coll = load_collection(coll_spec)
    eng = default_engine()
    t0 = time.perf_counter()
    before = eng.stats.as_dict()
    results = run_analysis("probes", coll, models, params, engine=eng)
    secs = time.perf_counter() - t0
    save_results(results, out / name)
    res = results[0]
    st = {k: v - before[k] for k, v in eng.stats.as_dict().items() if isinstance(v, int)}
    print(f"# {name}: {secs:.0f} s; distinct (query, text) pairs of the probes {res.summary['probe_pairs_distinct']}; "
          f"model calls for the probes {res.summary['model_calls_probes']}, with delta calibration "
          f"{res.summary['model_calls']}; bi-encoders: texts encoded {st['texts_encoded']} (distinct texts of the "
          f"probes, queries included: {_distinct_texts(res)}; with calibration's more)", flush=True)
    for w in res.warnings:
        print(f"  warning: {w}")
    if not rerun:
        return res
    t0 = time.perf_counter()
    again = run_analysis("probes", coll, models, params, engine=eng)[0]
    print(f"  re-run from the engine cache: {time.perf_counter() - t0:.0f} s, model calls {again.summary['model_calls']}")
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/ranklens_probes_real")
    ap.add_argument("--cap", type=int, default=0, help="samples per probe (0 = all, the paper)")
    ap.add_argument("--data-dir", default=None, help="data root (default: $RANKLENS_DATA; one of them is required)")
    ap.add_argument("--models", default="bm25,bm25-terrier,tfidf,minilm",
                    help="bm25 = ranklens' BM25 (bm25:anserini, k1=0.9, b=0.4); bm25-terrier = the paper's BM25 "
                         "(bm25:terrier: Terrier's BM25 with k1=1.2, b=0.75)")
    ap.add_argument("--parts", default="cranfield,dl19,transfer")
    ap.add_argument("--rerun", default="cranfield", help="parts re-run from the engine cache (0 model calls)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    data = data_root(a.data_dir)
    models = {m: MODELS.get(m, {"spec": m}) for m in a.models.split(",")}
    dl19 = dl19_collection(out, data)
    bm25_run = str(data / "trec_dl_runs" / "official" / "dl19" / "bm25base_p.top100.run.gz")
    base = {"cap": a.cap, "data_dir": str(data)}  # the default sweep: the three probes of the paper's Fig. 2 where present
    done = []
    parts = a.parts.split(",")
    if "cranfield" in parts:
        run("cranfield", str(data / "cranfield"), models, {**base, "probes": TM}, out, "cranfield" in a.rerun)
        done.append(out / "cranfield" / "probes-table")
    if "dl19" in parts:
        run("dl19", str(dl19), models, {**base, "probes": TM, "calibrate_on": bm25_run}, out, "dl19" in a.rerun)
        done.append(out / "dl19" / "probes-table")
    if "transfer" in parts:
        run("transfer", str(dl19), models, {**base, "probes": ("ds-*",), "calibrate_on": bm25_run}, out,
            "transfer" in a.rerun)
        done.append(out / "transfer" / "probes-table")
    from ranklens.probes import paper_tables
    from ranklens.results import Result

    print(paper_tables([Result.load(d) for d in done], fmt="text"))


if __name__ == "__main__":
    main()
