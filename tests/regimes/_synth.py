"""A small synthetic collection with known structure for resampling tests.

Topics ``t0..t{n_topics-1}`` each own a vocabulary of 6 words; each document is about one topic
and has 3 distinctive words of its own. Every document has ``per_doc`` training queries and one
test query, each built from the document's distinctive words plus a topic word, so a test query
is near-duplicate to the training queries of the same document (interpolation) and unlike other
topics' queries.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def synthetic(n_topics: int = 6, docs_per_topic: int = 4, per_doc: int = 2, seed: int = 0):
    rng = np.random.default_rng(seed)
    corpus, train_q, test_q, qrels = {}, [], [], []
    for t in range(n_topics):
        topic_words = [f"top{t}w{i}" for i in range(6)]
        for d in range(docs_per_topic):
            own = [f"doc{t}x{d}y{i}" for i in range(3)]
            did = f"D{t}_{d}"
            corpus[did] = " ".join(own + topic_words[:3] + ["filler", "text"])
            for j in range(per_doc):
                qid = f"tr{t}_{d}_{j}"
                words = [own[j % 3], own[(j + 1) % 3], topic_words[int(rng.integers(0, 6))]]
                train_q.append((qid, " ".join(words)))
                qrels.append((qid, did, 1))
                neg = f"D{t}_{(d + 1) % docs_per_topic}"
                qrels.append((qid, neg, 0))
            qid = f"te{t}_{d}"
            test_q.append((qid, " ".join([own[2], own[0], topic_words[0]])))
            qrels.append((qid, did, 1))
            qrels.append((qid, f"D{t}_{(d + 1) % docs_per_topic}", 0))
    tq = pd.DataFrame(train_q, columns=["query_id", "text"])
    eq = pd.DataFrame(test_q, columns=["query_id", "text"])
    qr = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    qr["relevance"] = qr["relevance"].astype("int64")
    return tq, eq, qr, corpus


def write_synthetic_files(folder: Path) -> Path:
    """The small synthetic set as files in ``folder``: ``train.tsv`` (with a header), ``test.tsv``
    (without), ``qrels.trec`` and ``docs.jsonl``, as the CLI tests read them."""
    import json

    tq, eq, qrels, corpus = synthetic(n_topics=4, docs_per_topic=3, per_doc=2)
    tq.to_csv(folder / "train.tsv", sep="\t", index=False)
    eq.to_csv(folder / "test.tsv", sep="\t", index=False, header=False)
    with open(folder / "qrels.trec", "w") as f:
        for r in qrels.itertuples():
            f.write(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n")
    with open(folder / "docs.jsonl", "w") as f:
        for d, t in corpus.items():
            f.write(json.dumps({"doc_id": d, "text": t}) + "\n")
    return folder
