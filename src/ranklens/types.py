"""Column names, type aliases and small records shared across ranklens.

DataFrame schemas (ir_measures column names; ids are always ``str``):

- run: ``query_id``, ``doc_id``, ``score`` (float64); after :func:`ranklens.io.rank_run` also
  ``rank`` (int64, 1-based, derived from scores under an explicit tie rule; file ranks are ignored).
- qrels: ``query_id``, ``doc_id``, ``relevance`` (int64).
- queries: ``query_id``, ``text``.
- docs: ``doc_id``, ``text`` (plus optional ``title`` and other metadata columns).
"""

from __future__ import annotations

from typing import Literal

QUERY_ID = "query_id"
DOC_ID = "doc_id"
SCORE = "score"
RELEVANCE = "relevance"
RANK = "rank"
TEXT = "text"

RUN_COLUMNS = (QUERY_ID, DOC_ID, SCORE)
QRELS_COLUMNS = (QUERY_ID, DOC_ID, RELEVANCE)
QUERIES_COLUMNS = (QUERY_ID, TEXT)

TieRule = Literal["trec_eval", "float64", "input_order"]
"""How a run is ordered into ranks.

- ``"trec_eval"`` (default): scores compared as 32-bit floats (trec_eval stores them as C
  ``float``, so scores ~1e-8 apart tie), ties broken by ``doc_id`` descending (``strcmp``).
- ``"float64"``: exact float64 comparison, same ``doc_id``-descending tie-break.
- ``"input_order"``: score descending, ties keep the row order of the input (stable sort).
"""
TIE_RULES: tuple[str, ...] = ("trec_eval", "float64", "input_order")
DEFAULT_TIES: TieRule = "trec_eval"

MissingQueries = Literal["error", "skip", "zero"]
"""What to do with queries present in qrels but absent from a run (or vice versa):
``"error"`` raises, ``"skip"`` drops them (trec_eval without ``-c``), ``"zero"`` scores them 0
(trec_eval ``-c``, ir_measures' default)."""
