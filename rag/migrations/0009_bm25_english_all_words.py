"""English chunks and queries keep every word: Lucene's 33 English stop words (migration 0008) are no
longer deleted, and every English chunk is re-analysed in one UPDATE (0003's statement-level trigger
moves the term statistics in the same statement).

Why (docs/decisions/bm25-parity.md): BM25's idf already weighs a word found in most chunks near zero,
and the 33 include words a question shares with its answer ("not", "no", "will", "if", "such"). Replayed
in Python over the product's own lexemes, on the tuning half of every English shared set (recall@5 by
document, chunks / whole documents): xquad-dev 0.991 / 0.991 -> 1.000 / 0.997, covid-faq-en 0.763 /
0.719 -> 0.789 / 0.746; bm25s (its stop words): 0.991 / 0.991 and 0.781 / 0.746. French keeps Snowball's
list: without it spf-fr's recall fell (0.931 -> 0.922). A common word costs no search time: it is never an
essential lexeme under the postings budget, and its bound idf * (k1 + 1) is far below any top-20 score.

Depends on 0008; when another rag migration lands first, chain this one after it (it only replaces
`parley_tsvector` and re-analyses English chunks).
"""

from importlib import import_module

from django.db import migrations

# As 0008, without the ts_delete of the English stop words (folding after analysis, as in 0003).
FOLDED_CONFIGS = ("french", "spanish", "italian", "portuguese", "catalan", "romanian", "dutch")
_FOLDED = ", ".join(f"'{c}'" for c in FOLDED_CONFIGS)

FUNCTION = f"""
CREATE OR REPLACE FUNCTION parley_tsvector(cfg text, t text) RETURNS tsvector LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE WHEN cfg = 'english'
            THEN parley_fold(to_tsvector('parley_english', coalesce(t, ''))::text)::tsvector
            WHEN cfg IN ({_FOLDED})
            THEN parley_fold(to_tsvector(cfg::regconfig, coalesce(t, ''))::text)::tsvector
            ELSE to_tsvector(cfg::regconfig, coalesce(t, '')) END;
"""

# 0008's function, for the way back.
LUCENE_ENGLISH_STOP_WORDS = import_module(
    "rag.migrations.0008_bm25_english_stop_words"
).LUCENE_ENGLISH_STOP_WORDS
_STOP = "'{" + ",".join(LUCENE_ENGLISH_STOP_WORDS) + "}'::text[]"
REVERSE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION parley_tsvector(cfg text, t text) RETURNS tsvector LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE WHEN cfg = 'english'
            THEN ts_delete(parley_fold(to_tsvector('parley_english', coalesce(t, ''))::text)::tsvector, {_STOP})
            WHEN cfg IN ({_FOLDED})
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


class Migration(migrations.Migration):
    dependencies = [("rag", "0008_bm25_english_stop_words")]

    operations = [
        migrations.RunSQL(sql=FUNCTION + REANALYSE, reverse_sql=REVERSE_FUNCTION + REANALYSE)
    ]
