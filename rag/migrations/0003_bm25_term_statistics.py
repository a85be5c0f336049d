"""BM25's term statistics: each chunk's analysed length, and per workspace and text-search configuration the
chunk count, total length and each lexeme's document frequency, kept by statement-level triggers on rag_chunk.

The triggers run in the transaction that writes or deletes the chunks, whichever path does it (the ingestion swap,
a failed document, a document's deletion, the ORM's or the database's cascades, bench COPY loads), so a search
reads the statistics and never counts a workspace. Deltas are additive UPSERTs after a per-workspace advisory lock:
two documents of one workspace ingested at once neither lose updates nor deadlock on each other's lexemes.
`parley_tsvector` is the one analysis of chunks and queries: the configuration's stemmer and stop words, then
accents folded for the languages whose writers drop them (unaccent is not in the embedded server).
Existing chunks are re-analysed and counted here.
"""

import django.db.models.deletion
from django.db import migrations, models

# Latin letters with diacritics -> their base letter (from unicodedata's NFKD, U+00C0-U+024F), for translate().
FOLD_FROM = "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰȱȲȳ"
FOLD_TO = "AAAAAACEEEEIIIINOOOOOUUUUYaaaaaaceeeeiiiinooooouuuuyyAaAaAaCcCcCcCcDdEeEeEeEeEeGgGgGgGgHhIiIiIiIiIJjKkLlLlLlNnNnNnOoOoOoRrRrRrSsSsSsSsTtTtUuUuUuUuUuUuWwYyYZzZzZzsOoUuAaIiOoUuUuUuUuUuAaAaGgKkOoOojGgNnAaAaAaEeEeIiIiOoOoRrRrUuUuSsTtHhAaEeOoOoOoOoYy"
# Configurations whose text is folded before analysis; German keeps its umlauts (its stemmer expects them).
FOLDED_CONFIGS = ("english", "french", "spanish", "italian", "portuguese", "catalan", "romanian", "dutch")

FUNCTIONS = f"""
CREATE FUNCTION parley_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN translate(replace(replace(replace(replace(replace(t, 'œ', 'oe'), 'Œ', 'Oe'), 'æ', 'ae'), 'Æ', 'Ae'), 'ß', 'ss'),
                 '{FOLD_FROM}', '{FOLD_TO}');

-- Folded after stemming: the stop words (listed with their accents) and the stemmer see the text as written;
-- tsvector's input merges the lexemes that folding makes equal ('élev' and 'elev'), with their positions.
CREATE FUNCTION parley_tsvector(cfg text, t text) RETURNS tsvector LANGUAGE sql STABLE PARALLEL SAFE
RETURN CASE WHEN cfg IN ({", ".join(f"'{c}'" for c in FOLDED_CONFIGS)})
            THEN parley_fold(to_tsvector(cfg::regconfig, coalesce(t, ''))::text)::tsvector
            ELSE to_tsvector(cfg::regconfig, coalesce(t, '')) END;

CREATE FUNCTION parley_tsvector_length(v tsvector) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)::integer FROM unnest(v) AS u);
"""

# Removals only UPDATE (then drop the rows that reached 0): when a workspace is deleted, the ORM may have
# deleted its statistics before its chunks. Additions UPSERT. Both in key order.
_ADD = """
INSERT INTO rag_corpusstat AS s (workspace_id, config, chunks, length)
SELECT workspace_id, search_config, count(*), sum(search_length) FROM {rows} GROUP BY 1, 2 ORDER BY 1, 2
ON CONFLICT (workspace_id, config) DO UPDATE SET chunks = s.chunks + excluded.chunks, length = s.length + excluded.length;
INSERT INTO rag_termstat AS s (workspace_id, config, term, chunks)
SELECT r.workspace_id, r.search_config, t.lexeme, count(*) FROM {rows} AS r, unnest(r.search_vector) AS t
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
ON CONFLICT (workspace_id, config, term) DO UPDATE SET chunks = s.chunks + excluded.chunks;
"""
_REMOVE = """
UPDATE rag_corpusstat AS s SET chunks = s.chunks - d.n, length = s.length - d.len
FROM (SELECT workspace_id, search_config AS config, count(*) AS n, sum(search_length) AS len FROM {rows} GROUP BY 1, 2) AS d
WHERE s.workspace_id = d.workspace_id AND s.config = d.config;
DELETE FROM rag_corpusstat AS s USING (SELECT DISTINCT workspace_id FROM {rows}) AS d
WHERE s.workspace_id = d.workspace_id AND s.chunks = 0;
WITH d AS (SELECT r.workspace_id, r.search_config AS config, t.lexeme AS term, count(*) AS n
           FROM {rows} AS r, unnest(r.search_vector) AS t GROUP BY 1, 2, 3),
updated AS (UPDATE rag_termstat AS s SET chunks = s.chunks - d.n FROM d
            WHERE s.workspace_id = d.workspace_id AND s.config = d.config AND s.term = d.term
            RETURNING s.workspace_id, s.config, s.term, s.chunks)
SELECT array_agg(workspace_id), array_agg(config), array_agg(term) INTO gone_ws, gone_cfg, gone_term
FROM updated WHERE chunks = 0;
DELETE FROM rag_termstat AS s USING unnest(gone_ws, gone_cfg, gone_term) AS g(workspace_id, config, term)
WHERE s.workspace_id = g.workspace_id AND s.config = g.config AND s.term = g.term AND s.chunks = 0;
"""
_LOCK = """
PERFORM pg_advisory_xact_lock(hashtextextended('rag_termstat:' || w::text, 0))
FROM (SELECT DISTINCT workspace_id AS w FROM {rows} ORDER BY 1) AS ws;
"""

# One function for the three triggers: plpgsql plans a statement when it first runs it, so the INSERT trigger
# never plans what reads old_rows. An UPDATE counts as its old rows removed and its new rows added. The advisory
# lock makes the writers of one workspace's statistics take turns (to commit): no deadlock on their lexemes.
TRIGGERS = (
    """
CREATE FUNCTION rag_chunk_stats() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone_ws uuid[];
  gone_cfg text[];
  gone_term text[];
BEGIN
  IF TG_OP = 'INSERT' THEN"""
    + _LOCK.format(rows="new_rows")
    + _ADD.format(rows="new_rows")
    + """
  ELSIF TG_OP = 'DELETE' THEN"""
    + _LOCK.format(rows="old_rows")
    + _REMOVE.format(rows="old_rows")
    + """
  ELSE"""
    + _LOCK.format(rows="(SELECT workspace_id FROM old_rows UNION SELECT workspace_id FROM new_rows)")
    + _REMOVE.format(rows="old_rows")
    + _ADD.format(rows="new_rows")
    + """
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER rag_chunk_stats_insert AFTER INSERT ON rag_chunk REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rag_chunk_stats();
CREATE TRIGGER rag_chunk_stats_delete AFTER DELETE ON rag_chunk REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rag_chunk_stats();
CREATE TRIGGER rag_chunk_stats_update AFTER UPDATE ON rag_chunk REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rag_chunk_stats();
"""
)

# Existing chunks: analysed as ingestion now does (folded text), their lengths, and a first count.
BACKFILL = """
UPDATE rag_chunk SET
  search_vector = setweight(parley_tsvector(search_config, heading_path::text), 'A')
                  || setweight(parley_tsvector(search_config, text), 'B');
UPDATE rag_chunk SET search_length = parley_tsvector_length(search_vector);
INSERT INTO rag_corpusstat (workspace_id, config, chunks, length)
SELECT workspace_id, search_config, count(*), sum(search_length) FROM rag_chunk GROUP BY 1, 2;
INSERT INTO rag_termstat (workspace_id, config, term, chunks)
SELECT c.workspace_id, c.search_config, t.lexeme, count(*) FROM rag_chunk AS c, unnest(c.search_vector) AS t
GROUP BY 1, 2, 3;
"""

REVERSE = """
DROP TRIGGER rag_chunk_stats_insert ON rag_chunk;
DROP TRIGGER rag_chunk_stats_delete ON rag_chunk;
DROP TRIGGER rag_chunk_stats_update ON rag_chunk;
DROP FUNCTION rag_chunk_stats();
DROP FUNCTION parley_tsvector_length(tsvector);
DROP FUNCTION parley_tsvector(text, text);
DROP FUNCTION parley_fold(text);
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial"), ("rag", "0002_chunk_narrow_heap")]

    operations = [
        migrations.AddField(
            model_name="chunk", name="search_length", field=models.PositiveIntegerField(db_default=0)
        ),
        migrations.CreateModel(
            name="CorpusStat",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "workspace", "config", blank=True, editable=False, primary_key=True, serialize=False
                    ),
                ),
                ("config", models.CharField(max_length=40)),
                ("chunks", models.PositiveIntegerField()),
                ("length", models.BigIntegerField()),
                (
                    "workspace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="core.workspace"
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="TermStat",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "workspace", "config", "term", blank=True, editable=False, primary_key=True, serialize=False
                    ),
                ),
                ("config", models.CharField(max_length=40)),
                ("term", models.TextField()),
                ("chunks", models.PositiveIntegerField()),
                (
                    "workspace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="core.workspace"
                    ),
                ),
            ],
        ),
        migrations.RunSQL(sql=FUNCTIONS + BACKFILL + TRIGGERS, reverse_sql=REVERSE),
    ]
