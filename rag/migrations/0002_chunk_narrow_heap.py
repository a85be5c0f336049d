"""Keep rag_chunk's heap rows narrow, so the full-text side reads fewer pages.

The full-text statement reads every chunk matching any query term (most chunks, for a term like
"covid" in a COVID FAQ) to rank it. With rows up to 2 kB inline (text, headings, tsvector), a
10k-chunk workspace spanned 1581 heap pages; moving the text out of line past 512 bytes while the
tsvector stays inline (storage MAIN: compressed only as a last resort) makes it 1049 pages, and the
ranking statement 22 -> 14 ms on a copy of the same rows; on the dev database's rag_chunk (bench/turn's
10k chunks among others), A/B twice in one session: the full-text statement p50 34 -> 15 and
28 -> 19 ms. Rows written before this migration keep their layout until they are rewritten
(re-ingestion, or VACUUM FULL rag_chunk).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("rag", "0001_initial")]

    operations = [
        migrations.RunSQL(
            sql=[
                "ALTER TABLE rag_chunk SET (toast_tuple_target = 512)",
                "ALTER TABLE rag_chunk ALTER COLUMN search_vector SET STORAGE MAIN",
            ],
            reverse_sql=[
                "ALTER TABLE rag_chunk RESET (toast_tuple_target)",
                "ALTER TABLE rag_chunk ALTER COLUMN search_vector SET STORAGE EXTENDED",
            ],
        ),
    ]
