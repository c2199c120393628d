"""``ranklens neighbors``: nearest-neighbour overlap (N2O) of embedders and of rankers."""

from __future__ import annotations

import argparse
import json
import sys

ANALYSES = ("matrix", "robustness", "tokens", "outliers", "needle", "rankers")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "neighbors",
        help="N2O: compare embedders (or rankers) by the overlap of their nearest neighbours",
        description=(
            "Situate embedders by nearest-neighbour overlap (Lin & Smith). The corpus is the documents of "
            "--collection (or --docs) split into sentences and deduplicated. Embedder specs: tfidf, word2vec, "
            "fasttext, fasttext-nosub (trained on the corpus), wordvec:PATH (word2vec/GloVe file), minilm, "
            "st:PATH, hf:PATH[:cls|mean|last], callable:MOD:FUNC; name one with NAME=SPEC. Examples:\n"
            "  ranklens neighbors matrix --collection demo -e tfidf -e word2vec -e minilm "
            "-e cls=hf:minilm:cls -k 10 --out out/n2o\n"
            "  ranklens neighbors needle --collection demo -e tfidf -e minilm --pairs demo --out out/needle\n"
            "  ranklens neighbors rankers --collection demo -r bm25 -r tfidf -r minilm -k 10 --out out/rk"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("analysis", choices=ANALYSES)
    p.add_argument("--collection", help="collection spec (demo, a directory, irds:<id>)")
    p.add_argument("--docs", help="documents file (JSONL/TSV/SMART) instead of --collection")
    p.add_argument("--no-split", action="store_true", help="do not split documents into sentences")
    p.add_argument("-e", "--embedder", action="append", default=[], metavar="[NAME=]SPEC",
                   help="embedder spec (repeatable)")
    p.add_argument("-r", "--ranker", action="append", default=[], metavar="SPEC",
                   help="rankers analysis: ranker spec (repeatable)")
    p.add_argument("--run", action="append", default=[], metavar="PATH",
                   help="rankers analysis: a TREC run file instead of --ranker (repeatable)")
    p.add_argument("-k", type=int, default=50, help="neighbours per query (default 50)")
    p.add_argument("--ks", default="5,10,15,20,25,30,35,40,45,50", help="robustness: comma-separated k values")
    p.add_argument("--n-queries", type=int, default=100, help="queries per sample (default 100)")
    p.add_argument("--samples", type=int, default=5, help="query samples (default 5)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-m", type=int, default=10, help="outliers: top-m (default 10)")
    p.add_argument("--query", help="outliers: a corpus id or exact corpus text (default: a random sentence)")
    p.add_argument("--pairs", help="needle: TSV with text_a, text_b, score (or 'demo' = demo paraphrase pairs, score 5)")
    p.add_argument("--min-score", type=float, default=4.0, help="needle: lowest pair score (default 4)")
    p.add_argument("--max-overlap", type=float, default=0.6, help="needle: token overlap below this (default 0.6)")
    p.add_argument("-p", type=float, default=0.9, help="rankers: RBO persistence (default 0.9)")
    p.add_argument("--backend", choices=["auto", "numpy", "torch", "faiss", "hnsw"], default="auto",
                   help="k-NN search (hnsw is approximate; its recall vs exact is reported)")
    p.add_argument("--block-size", type=int, default=65536, help="corpus rows per exact-search block")
    p.add_argument("--precision", choices=["fp32", "bf16"], default=None,
                   help="neural embedders: precision (bf16 ~2.8x faster on CPUs with AVX512-BF16)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--no-plot", action="store_true", help="do not write PNG plots")
    p.set_defaults(func=run)


def _corpus_docs(args):
    from ..errors import ValidationError

    if args.docs:
        from ..io import read_docs

        return read_docs(args.docs), None
    if args.collection:
        from ..io import load_collection

        coll = load_collection(args.collection)
        return coll.docs, coll
    raise ValidationError("give --collection or --docs")


def _pairs(spec: str):
    import csv

    import pandas as pd

    from ..errors import DataFormatError

    if spec == "demo":
        from ..datasets.demo import load_demo_pairs

        df = load_demo_pairs("paraphrase")
        return pd.DataFrame({"pair_id": df["pair_id"].astype(str), "text_a": df["text_a"],
                             "text_b": df["text_b"], "score": 5.0})
    df = pd.read_csv(spec, sep="\t", dtype=str, quoting=csv.QUOTE_NONE, keep_default_na=False)
    missing = {"text_a", "text_b", "score"} - set(df.columns)
    if missing:
        raise DataFormatError(f"pairs file lacks column(s) {sorted(missing)} in its header "
                              "(expected text_a, text_b, score)", path=spec, line=1)
    try:
        df["score"] = df["score"].astype(float)
    except ValueError as exc:
        raise DataFormatError(f"column 'score' must be numeric: {exc}", path=spec) from exc
    return df


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import ValidationError
    from ..neighbors import (
        EmbeddingStore,
        NeighborSearch,
        build_corpus,
        n2o_matrix,
        n2o_robustness,
        needle_in_haystack,
        plots,
        popular_outliers,
        ranker_overlap,
        run_from_ranker,
        token_overlap,
    )
    from ..neighbors.specs import parse_embedders

    out = Path(args.out)
    if args.analysis == "rankers":
        from ..io import read_run

        if not args.run and not args.ranker:
            raise ValidationError("rankers needs runs to compare: give --run FILE (repeatable) or "
                                  "--ranker SPEC with --collection")
        runs = {Path(p).name: read_run(p) for p in args.run}
        if args.ranker:
            # only rankers need documents and queries; --run files alone need no corpus
            docs, coll = _corpus_docs(args)
            if coll is None:
                raise ValidationError("--ranker needs --collection (queries to rank for)")
            from ..rankers import make_ranker

            texts = [t for _, t in docs.iter_docs()]
            for spec in args.ranker:
                kind = spec.split(":")[0]
                r = make_ranker(spec, corpus=texts) if kind in ("bm25", "tfidf") else make_ranker(spec)
                runs[spec] = run_from_ranker(r, coll.queries, docs)
        result = ranker_overlap(runs, k=args.k, p=args.p)
        figs = [("ranker_overlap", plots.plot_ranker_overlap)]
    else:
        docs, _ = _corpus_docs(args)
        corpus = build_corpus(docs.iter_docs() if hasattr(docs, "iter_docs") else docs, split=not args.no_split)
        print(f"corpus: {corpus.n_input} texts, {corpus.n_duplicates} exact duplicates removed, "
              f"{len(corpus)} kept", file=sys.stderr)
        embedders = parse_embedders(args.embedder, corpus.texts, precision=args.precision)
        store = EmbeddingStore()
        search = NeighborSearch(backend=args.backend, block_size=args.block_size)
        common = dict(store=store)
        if args.analysis == "matrix":
            result = n2o_matrix(embedders, corpus, k=args.k, n_queries=args.n_queries, n_samples=args.samples,
                                seed=args.seed, search=search, **common)
            figs = [("n2o_matrix", plots.plot_n2o_matrix), ("n2o_distribution", plots.plot_n2o_distribution)]
        elif args.analysis == "robustness":
            ks = [int(x) for x in args.ks.split(",") if x.strip()]
            result = n2o_robustness(embedders, corpus, ks=ks, n_queries=args.n_queries, n_samples=args.samples,
                                    seed=args.seed, search=search, **common)
            figs = [("n2o_robustness", plots.plot_robustness)]
        elif args.analysis == "tokens":
            result = token_overlap(embedders, corpus, k=args.k, n_queries=args.n_queries, seed=args.seed,
                                   search=search, **common)
            figs = [("n2o_token_overlap", plots.plot_token_overlap)]
        elif args.analysis == "outliers":
            import numpy as np

            query = args.query if args.query is not None else int(
                np.random.default_rng(args.seed).integers(len(corpus)))
            result = popular_outliers(embedders, corpus, query, m=args.m, k=args.k, search=search, **common)
            figs = []
        else:
            if not args.pairs:
                raise ValidationError("needle needs --pairs (TSV with text_a, text_b, score, or 'demo')")
            result = needle_in_haystack(embedders, corpus, _pairs(args.pairs), min_score=args.min_score,
                                        max_overlap=args.max_overlap, block_size=args.block_size, **common)
            figs = [("n2o_needle", plots.plot_needle)]
    result.save(out)
    if not args.no_plot:
        for name, fn in figs:
            fn(result).savefig(out / f"{name}.png", dpi=120, bbox_inches="tight")
    print(result.table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    print(json.dumps({"kind": result.kind, "out": str(out)}), file=sys.stderr)
    return 0
