"""The hybrid retrieval statements over rag_chunk: scope, full-text top-N, cosine top-N and weighted RRF.

bench/retrieval measures these very statements (through `chunks_retrieve`) on the real tables:
- the scope CTE keeps the workspace's ready documents that the caller may read (the bot's or the
  workspace's shared documents, the session's own documents, the external_user_id boundary, and
  an optional list of document ids); both statements start from it;
- the full-text statement (`text_rows`, rag.retrieval.bm25) ranks by Okapi BM25 per text-search configuration
  of the documents in scope, so French chunks get a French query and English chunks an English one; each
  configuration's query is a LATERAL parameter, so the GIN index finds the candidate chunks (a plain
  join made the planner test every chunk of the table). It needs no query vector, so `chunks_retrieve`
  runs it while the question is embedded (`rag.retrieval.concurrent`);
- the hybrid statement (`hybrid_rows`) takes the full-text hits as arrays, walks the partial HNSW index
  of the query's dimension (`embedding::halfvec(N)`, half-precision graphs) filtered on the workspace's
  current embedding model, so models never mix, re-scores the walk's rows at full precision, and fuses
  by the workspace's calibrated method (`rag.retrieval.fusion`, which holds the same formulas in Python):
  weighted RRF, vector_weight / (rrf_k + vector_rank) + text_weight / (rrf_k + text_rank), or the convex
  combination of each side's min-max normalised scores.
A workspace with no vector of its multilingual model yet (its backfill pending) skips that side's walk: an
HNSW walk filtered to rows that do not exist reads the whole shared graph (73 ms at 10k chunks beside a
100k-chunk workspace, against 3 ms for the side that has its vectors).
The final rows carry each chunk's cosine similarity (also for chunks only the full-text side found) and are
checked against the scope once more, so a full-text hit outside it can never come back.
"""

from rag.retrieval.sql.hybrid import hybrid_plan, hybrid_rows
from rag.retrieval.sql.params import HybridParams, HybridRow, TextHit
from rag.retrieval.sql.plan import WALK_MAX, WALK_SHARE, plan_settings, walk_depth
from rag.retrieval.sql.scope import scope_languages
from rag.retrieval.sql.text import text_plan, text_rows

__all__ = [
    "WALK_MAX",
    "WALK_SHARE",
    "HybridParams",
    "HybridRow",
    "TextHit",
    "hybrid_plan",
    "hybrid_rows",
    "plan_settings",
    "scope_languages",
    "text_plan",
    "text_rows",
    "walk_depth",
]
