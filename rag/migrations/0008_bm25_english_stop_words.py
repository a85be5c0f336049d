"""English chunks and queries drop Lucene's English stop words (33) instead of Snowball's (127): a
`parley_english` configuration whose stemmer has no stop-word list, the 33 lexemes deleted after it, and
every English chunk re-analysed (0003's statement-level UPDATE trigger moves the term statistics in the
same statement).

Why: Snowball's English list removes interrogatives, negations, modals and pronouns ("how", "what",
"when", "can", "should", "not", "you"), words a question shares with its answer's heading; Lucene's
standard English set (`EnglishAnalyzer`, Elasticsearch's `_english_`, and bm25s's English list) keeps
them and drops only articles, conjunctions, prepositions and the forms of "be". BM25's IDF already gives
a word found in most chunks a weight near zero, so the longer list only removes evidence. Measured with
the product's parser and stemmer (ARCHITECTURE.md): covid-faq-en recall@5 0.738 -> 0.750 (bm25s 0.758),
scifact-en within one claim of 300, no change on the own English sets. The other languages keep their Snowball lists (so does Lucene).
Stored `search_config` values stay PostgreSQL's names ('english'): only the analysis behind them changes,
so chunks and queries agree. The lexemes are deleted after stemming; each of the 33 words is its own stem.
"""

from django.db import migrations

# Lucene's ENGLISH_STOP_WORDS_SET (org.apache.lucene.analysis.en.EnglishAnalyzer).
LUCENE_ENGLISH_STOP_WORDS = [
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "but",
    "by",
    "for",
    "if",
    "in",
    "into",
    "is",
    "it",
    "no",
    "not",
    "of",
    "on",
    "or",
    "such",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "to",
    "was",
    "will",
    "with",
]
# Folding after analysis, as in 0003 (German keeps its umlauts: its stemmer expects them).
FOLDED_CONFIGS = ("french", "spanish", "italian", "portuguese", "catalan", "romanian", "dutch")
_STOP = "'{" + ",".join(LUCENE_ENGLISH_STOP_WORDS) + "}'::text[]"

CONFIG = """
CREATE TEXT SEARCH DICTIONARY parley_english_stem (TEMPLATE = snowball, language = 'english');
CREATE TEXT SEARCH CONFIGURATION parley_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION parley_english ALTER MAPPING REPLACE english_stem WITH parley_english_stem;
"""

FUNCTION = f"""
CREATE OR REPLACE FUNCTION parley_tsvector(cfg text, t text) RETURNS tsvector LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE WHEN cfg = 'english'
            THEN ts_delete(parley_fold(to_tsvector('parley_english', coalesce(t, ''))::text)::tsvector, {_STOP})
            WHEN cfg IN ({", ".join(f"'{c}'" for c in FOLDED_CONFIGS)})
            THEN parley_fold(to_tsvector(cfg::regconfig, coalesce(t, ''))::text)::tsvector
            ELSE to_tsvector(cfg::regconfig, coalesce(t, '')) END;
"""

# One statement: the UPDATE trigger removes each chunk's old lexemes and adds its new ones.
REANALYSE = """
UPDATE rag_chunk AS c SET search_vector = s.v, search_length = parley_tsvector_length(s.v)
FROM (SELECT id, setweight(parley_tsvector(search_config, heading_path::text), 'A')
                 || setweight(parley_tsvector(search_config, text), 'B') AS v
      FROM rag_chunk WHERE search_config = 'english') AS s
WHERE s.id = c.id;
"""

REVERSE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION parley_tsvector(cfg text, t text) RETURNS tsvector LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE WHEN cfg IN ({", ".join(f"'{c}'" for c in ("english", *FOLDED_CONFIGS))})
            THEN parley_fold(to_tsvector(cfg::regconfig, coalesce(t, ''))::text)::tsvector
            ELSE to_tsvector(cfg::regconfig, coalesce(t, '')) END;
"""

DROP_CONFIG = """
DROP TEXT SEARCH CONFIGURATION parley_english;
DROP TEXT SEARCH DICTIONARY parley_english_stem;
"""


class Migration(migrations.Migration):
    dependencies = [("rag", "0007_workspace_fusion_evaluation_pairs")]

    operations = [
        migrations.RunSQL(
            sql=CONFIG + FUNCTION + REANALYSE,
            reverse_sql=REVERSE_FUNCTION + REANALYSE + DROP_CONFIG,
        )
    ]
