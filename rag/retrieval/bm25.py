"""The full-text side's statement: Okapi BM25 over rag_chunk's tsvector, with the term statistics ingestion keeps.

score(chunk) = Σ over the query's lexemes t found in the chunk (a lexeme said twice counts twice, as in Lucene) of
    idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · length / avg_length)),
    idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))   (Lucene's, never negative).
Per text-search configuration of the documents in scope: the query is analysed by
`parley_tsvector` as the chunks were (stemmer, stop words, folded accents), N and avg_length come from
rag_corpusstat and df from rag_termstat for the workspace (migration 0003's triggers keep both), tf is the
lexeme's position count in the chunk's tsvector and length its `search_length`.

Pruning (max-score style): the query's lexemes are taken rarest first while the sum of their postings stays
within `postings_budget` (the rarest always). A lexeme's postings are the workspace's chunks holding it in any
configuration: the GIN index finds those too, and their heap fetch is the statement's main cost (an English
question's "surfac" in a mostly French workspace fetched every French chunk saying "surface" only to drop it: 798
of 1,309 rows at 100k chunks); in a one-language workspace they are the document frequency. The chunks holding
any of those ("essential") lexemes are the candidates, found through the GIN index, and each is scored exactly
on every query lexeme.
So a common word ("covid" in a COVID FAQ) still adds to a candidate's score but never makes the statement read
every chunk that holds it; only a chunk holding nothing but common words can be missed, and its score is bounded
by their small idf. The safety test (below) searches the words whose bounds could still lift such a chunk into
the exact top EXACT_DEPTH, within a budget of its own (`safety_budget` postings, rarest first): in a workspace of
hundreds of thousands of chunks, mid-frequency words would otherwise have it score a hundred thousand rows.

A small workspace (at most `postings_budget` chunks) is ranked exactly, the whole candidate list, and still
pruned: its essential lexemes are the rarest up to half its chunks (past that the first pass reads nearly every
chunk, as a scan would), and the safety test guards the whole list (depth `text_candidates`) with no budget of
its own. A question's common words then cost nothing unless their bounds could lift a chunk into the list
(docs/decisions/bm25-pruning.md has the measurements).
"""

from __future__ import annotations

# The exact BM25 top EXACT_DEPTH of a query is guaranteed (max-score's safety test, below) while the words
# that test must search hold at most `safety_budget` chunks; deeper ranks of the candidate list may still
# miss a chunk holding only common lexemes. The fusion and the answer read the
# first ranks; guaranteeing all `candidates` (40) would search every common lexeme's postings whenever a
# question's rare words find fewer than 40 chunks, the slow case the budget exists for. A small workspace
# (at most `postings_budget` chunks) bounds that case by its size: there the whole list is guaranteed.
EXACT_DEPTH = 20

# A candidate's exact score on every query lexeme: its query lexemes are cut out of its tsvector with
# setweight/ts_filter (binary searches on the sorted vector) rather than by unnesting its every lexeme.
# Stored vectors weigh a chunk's heading A and its text B, never C (rag.ingestion.store, the migrations),
# so marking the query's lexemes C singles them out in one copy of the vector (were another lexeme
# weighted C, its weight in the array would be NULL, which sum() skips). Each lexeme's qtf · idf is read
# from the array beside the lexemes: joining the query terms per candidate cost ~10 % more.
_SCORE = """(
        SELECT sum(e.weights[array_position(e.all_lexemes, f.lexeme)] * f.tf * (%(k1)s + 1)
                   / (f.tf + %(k1)s * (1 - %(b)s + %(b)s * c.search_length / e.avg_length)))
        FROM (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf
              FROM unnest(ts_filter(setweight(c.search_vector, 'C', e.all_lexemes), '{c}')) AS u) AS f
    )"""
_IN_SCOPE = """c.search_config = e.cfg
          AND c.workspace_id = %(workspace_id)s AND c.document_id IN (SELECT id FROM scope)
          AND c.embedding_model = %(model_id)s AND NOT c.quarantined"""


def _pass(*, source: str, terms: str, unless: str = "") -> str:
    """A pass's candidates: the chunks in scope matching `terms` (and not `unless`), each scored exactly,
    the best `text_candidates` of them. A large workspace finds them through a GIN index. A small one
    (`pruning.small`) reads its own rows instead (the workspace's btree, its tsvectors matched one by one):
    the shared GIN index holds every workspace's postings, and a lexeme rare in a ~555-chunk workspace can
    have ~90,000 there (bench/scale's 1M rows). The two ways are gated by `pruning.small` (a one-time
    filter), so only one runs. `source`, `terms` and `unless` are this module's own SQL expressions (CTE
    names and columns), which PostgreSQL cannot take as parameters."""
    excluded = f" AND NOT {unless}" if unless else ""
    return f"""SELECT h.id, h.score FROM {source} CROSS JOIN LATERAL (
        SELECT c.id, {_SCORE} AS score
        FROM (SELECT c.id, c.search_vector, c.search_length FROM rag_chunk AS c
              WHERE c.search_vector @@ {terms}{excluded} AND {_IN_SCOPE}
                AND NOT (SELECT small FROM pruning)
              UNION ALL
              -- IS TRUE: not an operator a GIN index can serve, so a small workspace reads its own rows
              SELECT c.id, c.search_vector, c.search_length FROM rag_chunk AS c
              WHERE (c.search_vector @@ {terms}) IS TRUE{excluded} AND {_IN_SCOPE}
                AND (SELECT small FROM pruning)) AS c
        ORDER BY score DESC, c.id
        LIMIT %(text_candidates)s
    ) AS h"""  # noqa: S608 (this module's constants and expressions only)


# The statement's named parts, in order: each is a materialized CTE (PostgreSQL plans each once, and the
# later parts read the earlier ones by name).
_CONFIGS = """
    SELECT DISTINCT coalesce(m.cfg, 'simple') AS cfg
    FROM scope AS s LEFT JOIN unnest(%(languages)s::text[], %(configs)s::text[]) AS m(lang, cfg)
      ON m.lang = s.language"""
_WORKSPACE_CONFIGS = """
    SELECT config, chunks FROM rag_corpusstat WHERE workspace_id = %(workspace_id)s AND chunks > 0"""
# A small workspace's pruning (module docstring): the essential lexemes' postings budget and the depth the
# safety test guarantees (`exact_depth`: EXACT_DEPTH, bound by rag.retrieval.sql.params).
_PRUNING = """
    SELECT CASE WHEN w.small THEN w.chunks / 2 ELSE %(postings_budget)s END AS essential_budget,
           CASE WHEN w.small THEN greatest(%(text_candidates)s, 1) ELSE %(exact_depth)s END AS exact_depth,
           w.small
    FROM (SELECT coalesce(sum(chunks), 0) AS chunks, coalesce(sum(chunks), 0) <= %(postings_budget)s AS small
          FROM workspace_configs) AS w"""
_QUERY_TERMS = r"""
    SELECT q.cfg, t.lexeme AS term, coalesce(array_length(t.positions, 1), 1) AS qtf, st.chunks AS df, cs.chunks AS n,
           cs.length::float8 / cs.chunks AS avg_length,
           ln(1 + (cs.chunks - st.chunks + 0.5) / (st.chunks + 0.5)) AS idf,
           -- the GIN postings the lexeme's tsquery reads in this workspace: its chunks in every configuration
           (SELECT sum(o.chunks) FROM workspace_configs AS w JOIN rag_termstat AS o
              ON o.workspace_id = %(workspace_id)s AND o.config = w.config AND o.term = t.lexeme) AS postings,
           -- tsquery's own quoting (a backslash escapes, a quote doubles), so no query text is ever parsed as syntax
           '''' || replace(replace(t.lexeme, '\', '\\'), '''', '''''') || '''' AS quoted
    FROM configs AS q
    -- A question in another language than a configuration's documents loses its own language's stop words
    -- first: its function words ("a", "la", "die") only meet the documents' by accident of spelling.
    CROSS JOIN LATERAL unnest(parley_tsvector(q.cfg, CASE
        WHEN %(query_config)s::text IS NULL OR q.cfg = %(query_config)s THEN %(query_text)s
        ELSE (SELECT coalesce(string_agg(d.token, ' '), '')
              FROM ts_debug(%(query_config)s::regconfig, %(query_text)s) AS d WHERE d.lexemes <> '{}')
    END)) AS t
    JOIN rag_corpusstat AS cs ON cs.workspace_id = %(workspace_id)s AND cs.config = q.cfg AND cs.chunks > 0
    -- One primary-key probe per lexeme, whatever the planner believes of the workspace's statistics: as a
    -- plain join, a workspace created after the last ANALYZE (estimated at one row) had all its terms read
    -- and filtered against each lexeme (LIMIT 1 keeps the subquery from being flattened back into a join).
    CROSS JOIN LATERAL (
        SELECT s.chunks FROM rag_termstat AS s
        WHERE s.workspace_id = %(workspace_id)s AND s.config = q.cfg AND s.term = t.lexeme LIMIT 1
    ) AS st"""
_RANKED_TERMS = """
    SELECT *, (rarer = 0 OR rarer + postings <= (SELECT essential_budget FROM pruning)) AS essential
    FROM (SELECT *, sum(postings) OVER (PARTITION BY cfg ORDER BY postings, term) - postings AS rarer
          FROM query_terms) AS ranked"""
_ESSENTIAL = """
    SELECT cfg, array_agg(term ORDER BY term) AS all_lexemes,
           array_agg(qtf * idf ORDER BY term) AS weights, min(avg_length) AS avg_length,
           string_agg(quoted, ' | ') FILTER (WHERE essential)::tsquery AS terms
    FROM ranked_terms GROUP BY cfg"""
# Max-score's safety test. A chunk holding no essential lexeme scores less than the sum of its lexemes'
# bounds idf * qtf * (k1 + 1) (a tf term never reaches k1 + 1). Taking the other lexemes commonest first,
# those whose running sum stays under the first pass's EXACT_DEPTH-th score cannot lift a chunk into that
# top: only the rarer rest must be searched (none, usually: common lexemes weigh little). That search has
# a budget of its own (`safety_budget` postings, rarest first): past it the ranking is no longer exact.
_THRESHOLD = """
    SELECT coalesce((SELECT score FROM first_pass ORDER BY score DESC
                     OFFSET (SELECT exact_depth - 1 FROM pruning) LIMIT 1), 0) AS theta"""
_UNSAFE = """
    SELECT s.cfg, string_agg(s.quoted, ' | ')::tsquery AS terms
    FROM (SELECT b.cfg, b.quoted,
                 sum(b.postings) OVER (PARTITION BY b.cfg ORDER BY b.postings, b.term) AS searched
          FROM (SELECT cfg, quoted, postings, term,
                       sum(idf * qtf * (%(k1)s + 1)) OVER (PARTITION BY cfg ORDER BY postings DESC, term DESC)
                         AS bound
                FROM ranked_terms WHERE NOT essential) AS b, threshold AS t
          WHERE b.bound >= t.theta) AS s
    -- the search's own budget: the unsafe lexemes rarest first while their postings stay within it (a small
    -- workspace's safety test has none: its list stays exact)
    WHERE s.searched <= %(safety_budget)s OR (SELECT small FROM pruning)
    GROUP BY s.cfg"""
_PARTS = (
    ("configs", _CONFIGS),
    ("workspace_configs", _WORKSPACE_CONFIGS),
    ("pruning", _PRUNING),
    ("query_terms", _QUERY_TERMS),
    ("ranked_terms", _RANKED_TERMS),
    ("essential", _ESSENTIAL),
    ("first_pass", _pass(source="essential AS e", terms="e.terms")),
    ("threshold", _THRESHOLD),
    ("unsafe", _UNSAFE),
    (
        "second_pass",
        _pass(
            source="unsafe AS x JOIN essential AS e ON e.cfg = x.cfg",
            terms="x.terms",
            unless="c.search_vector @@ e.terms",
        ),
    ),
)
_RESULT = """
SELECT id, score FROM (SELECT * FROM first_pass UNION ALL SELECT * FROM second_pass) AS h
ORDER BY score DESC, id
LIMIT %(text_candidates)s
"""

# Appended to "WITH <scope CTE>" by rag.retrieval.sql.text: the named parts, then the two passes' union.
BM25_SQL = "".join(f",\n{name} AS MATERIALIZED ({body}\n)" for name, body in _PARTS) + _RESULT
