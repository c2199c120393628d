"""``ranklens explain``: occlusion rationales, MRC and MER tables across several rankers."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain",
        help="explanation consistency of rankers: occlusion rationales, MRC@k, MER@k",
        description=(
            "Rank each query's candidates with every --ranker, explain the top-k documents with occlusion "
            "rationales (or --rationales from a file), and report MRC@k (Kendall tau between the original order "
            "and the order of rationale-only documents) and, with --subdoc, MER@k (max cosine of rationales to "
            "relevant units). Example: ranklens explain --collection demo --ranker bm25 --ranker minilm "
            "--granularity sentence --granularity window:5 -m 6 -k 10 --subdoc demo --out out/explain. "
            "Sweeps (paper Figs. 2-3): --sweep-m 1,2,3,4,5,6 and/or --sweep-w 3,5,10 write an explain-sweep result."
        ),
    )
    p.add_argument("--collection", required=True, help="collection spec: demo, a directory, irds:<id>")
    p.add_argument("--ranker", action="append", required=True, metavar="SPEC",
                   help="ranker spec (bm25, tfidf, minilm, st:PATH, cross-encoder:PATH, ...); repeatable")
    p.add_argument("--granularity", action="append", metavar="G",
                   help="sentence | window:W (repeatable; default: sentence and window:5)")
    p.add_argument("-m", type=int, default=6, help="rationales per document (default 6)")
    p.add_argument("-n", type=int, default=2, help="largest number of units masked together (default 2)")
    p.add_argument("--samples", type=int, default=30, help="masked sets per document before sampling (default 30)")
    p.add_argument("--aggregate", choices=["mean", "sum"], default="mean",
                   help="accumulate each unit's attribution over the masked sets containing it: mean (default; "
                        "same rationales as sum when every set is enumerated, and not biased toward units drawn "
                        "more often when sets are sampled) or sum (the paper's eq. 4 as written)")
    p.add_argument("-k", type=int, action="append", help="MRC cut-off (repeatable; default 10 and 50)")
    p.add_argument("--mer-k", type=int, default=10, help="MER cut-off (default 10)")
    p.add_argument("--method", choices=["kendall", "spearman", "rbo"], default="kendall")
    p.add_argument("--ties", choices=["trec_eval", "float64", "input_order"], default="trec_eval",
                   help="tie rule ordering each ranking (as everywhere in ranklens; default trec_eval: scores "
                        "compared as float32, ties by doc_id descending)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--normalize", choices=["abs", "none", "shift"], default="abs",
                   help="guard for scores <= 0: divide drops by max(|theta|, eps) (abs), not at all, or shift")
    p.add_argument("--long-document", type=int, default=None, metavar="S",
                   help="documents with more than S sentences: 3-sentence chunks, max, greedy selection")
    p.add_argument("--candidates", choices=["all", "qrels"], default="all",
                   help="re-rank all documents (default) or each query's judged documents")
    p.add_argument("--max-queries", type=int, default=None, help="first N queries only")
    p.add_argument("--subdoc", help="sub-document relevance TSV/JSONL (doc_id, unit, relevant) or 'demo'")
    p.add_argument("--embedder", default="minilm", help="embedder spec for MER (default minilm; tfidf = bag of words)")
    p.add_argument("--mer-missing", choices=["skip", "zero"], default="skip",
                   help="MER for top-k documents without relevant units (or rationales): leave them out (skip, "
                        "default) or count them as 0 (zero: eq. 3 read literally)")
    p.add_argument("--rationales",
                   help="rationales JSONL from another explainer (one --ranker only); each document's are cut to "
                        "the top -m by weight")
    p.add_argument("--sweep-m", help="comma-separated m values: also write an explain-sweep result")
    p.add_argument("--sweep-w", metavar="W,W,...",
                   help="comma-separated window widths (words): sweep over window:W rationales too (with the "
                        "--sweep-m values, or -m); writes an explain-sweep result and sweep-w.png")
    p.add_argument("--display-queries", type=int, default=10, metavar="N",
                   help="store the texts of the top documents of the first N queries in the result, for "
                        "highlighted rationales in reports (default 10)")
    p.add_argument("--display-docs", type=int, default=3, metavar="N",
                   help="... of their top N documents per ranker and granularity (default 3; 0 = none)")
    p.add_argument("--show", type=int, default=0, metavar="N", help="print N highlighted top documents to stderr")
    p.add_argument("--no-color", action="store_true", help="--show without ANSI colours")
    p.add_argument("--out", required=True,
                   help="output directory: explain-consistency/ (and explain-sweep/) results, rationales.html, PNG plots")
    p.set_defaults(func=run)


def _int_list(value: str, option: str) -> tuple[int, ...]:
    from ..errors import ValidationError

    try:
        out = tuple(int(x) for x in value.split(",") if x.strip())
    except ValueError:
        raise ValidationError(f"{option} must be comma-separated integers, got {value!r}") from None
    if not out or min(out) < 1:
        raise ValidationError(f"{option} needs integers >= 1, got {value!r}")
    return out


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..embedders import make_embedder
    from ..errors import ValidationError
    from ..explain import (
        OcclusionExplainer,
        explanation_consistency,
        explanation_sweep,
        highlight_terminal,
        rationales_html,
        read_rationales,
        read_subdoc_qrels,
    )
    from ..io import load_collection
    from ..rankers import make_ranker

    coll = load_collection(args.collection)
    queries = coll.queries
    if args.max_queries:
        queries = queries.head(args.max_queries)
    texts = [t for _, t in coll.docs.iter_docs()]
    rankers = {}
    for spec in args.ranker:
        rankers[spec] = make_ranker(spec, corpus=texts) if spec.split(":")[0] in ("bm25", "tfidf") else make_ranker(spec)
    candidates = None
    if args.candidates == "qrels":
        if coll.qrels is None:
            raise ValidationError("--candidates qrels needs a collection with qrels")
        candidates = coll.qrels[coll.qrels["doc_id"].isin(set(coll.docs))]
        candidates = candidates[candidates["query_id"].isin(set(queries["query_id"]))]
    subdoc = None
    if args.subdoc:
        if args.subdoc == "demo":
            from ..datasets.demo import load_demo_subdoc_qrels

            subdoc = read_subdoc_qrels(load_demo_subdoc_qrels())
        else:
            subdoc = read_subdoc_qrels(args.subdoc)
    embedder = None
    if subdoc is not None:
        embedder = make_embedder(args.embedder, corpus=texts) if args.embedder == "tfidf" else make_embedder(args.embedder)
    rationales = None
    if args.rationales:
        if len(rankers) != 1:
            raise ValidationError("--rationales belongs to one ranker: give exactly one --ranker")
        rationales = {next(iter(rankers)): read_rationales(args.rationales, docs=coll.docs)}
    ms = _int_list(args.sweep_m, "--sweep-m") if args.sweep_m else None
    ws = _int_list(args.sweep_w, "--sweep-w") if args.sweep_w else None
    if ws and rationales is not None:
        raise ValidationError("--sweep-w sweeps occlusion window widths; it cannot be used with --rationales "
                              "(those rationales have their own units)")
    explainer = OcclusionExplainer(n=args.n, samples=args.samples, seed=args.seed, normalize=args.normalize,
                                   aggregate=args.aggregate, long_document=args.long_document)
    grans = tuple(args.granularity or ("sentence", "window:5"))
    ks = tuple(args.k or (10, 50))
    qrels = coll.qrels
    res = explanation_consistency(
        rankers, queries, coll.docs, qrels=qrels, candidates=candidates, granularities=grans, m=args.m, ks=ks,
        mer_k=args.mer_k, method=args.method, explainer=explainer, rationales=rationales, subdoc=subdoc,
        embedder=embedder, mer_missing=args.mer_missing, ties=args.ties, display_queries=args.display_queries,
        display_docs=args.display_docs,
    )
    out = Path(args.out)
    res.save(out / "explain-consistency")
    rats = res.tables["rationales"]
    items = []
    for (rk, gr, q, d), g in rats.groupby(["ranker", "granularity", "query_id", "doc_id"], sort=False):
        from ..explain import Rationale

        rs = [Rationale(int(u), int(s), int(e), str(t), float(w))
              for u, s, e, t, w in zip(g["unit"], g["start"], g["end"], g["text"], g["weight"])]
        items.append((f"{rk} / {gr}", q, d, rs, int(g["rank"].iloc[0])))
    qmap = dict(zip(queries["query_id"].astype(str), queries["text"].astype(str)))
    html_items = [(f"{qmap[q]} [{label}, rank {rank}]", d, coll.docs[d], rs) for label, q, d, rs, rank in items]
    (out / "rationales.html").write_text(rationales_html(html_items, title="ranklens explain: rationales"),
                                         encoding="utf-8")
    sw = None
    if ms or ws:
        sw = explanation_sweep(rankers, queries, coll.docs, ms=ms or (args.m,), windows=ws or (), granularities=grans,
                               qrels=qrels, candidates=candidates, ks=ks, mer_k=args.mer_k, method=args.method,
                               explainer=explainer, rationales=rationales, subdoc=subdoc, embedder=embedder,
                               mer_missing=args.mer_missing, ties=args.ties)
        sw.save(out / "explain-sweep")
        sys.stdout.write(sw.table.to_csv(sep="\t", index=False, float_format="%.4f"))
    from ..explain import plot_consistency, plot_relevance_scatter, plot_sweep

    plot_consistency(res).savefig(out / "consistency.png", dpi=120)
    if res.table["ndcg@10"].notna().any():
        plot_relevance_scatter(res, f"mrc@{ks[0]}").savefig(out / f"scatter-mrc@{ks[0]}.png", dpi=120)
        if subdoc is not None:
            plot_relevance_scatter(res, f"mer@{args.mer_k}").savefig(out / f"scatter-mer@{args.mer_k}.png", dpi=120)
    if sw is not None and ms:
        plot_sweep(sw, f"mrc@{ks[0]}", x="m").savefig(out / "sweep.png", dpi=120)
    if sw is not None and ws:
        plot_sweep(sw, f"mrc@{ks[0]}", x="w").savefig(out / "sweep-w.png", dpi=120)
    summ = res.tables["summary"].drop(columns=["m"])
    sys.stdout.write(summ.to_csv(sep="\t", index=False, float_format="%.4f"))
    for label, q, d, rs, rank in items[: args.show]:
        sys.stderr.write(f"\n== {label} | query {q}: {qmap[q]} | rank {rank} doc {d}\n")
        sys.stderr.write(highlight_terminal(coll.docs[d], rs, color=not args.no_color) + "\n")
    return 0
