# The full-text vector stays in the chunk's row (storage MAIN: compressed if need be, moved to the TOAST table
# only when nothing else can go): the BM25 statement reads every candidate's tsvector twice (its filter and
# its score), and out of line each read is a TOAST index look-up and a page of its own. With the default
# (EXTENDED), a row holding the two vectors, the text and the tsvector exceeded the ~2 kB target and the
# toaster moved the largest remaining column out, often the tsvector (47 % of bench/scale's 1M rows); the
# chunk's text now goes first, which only the final hits read.
#
# Metadata only: one short ACCESS EXCLUSIVE lock, no rewrite. Rows written from now on (ingestion, re-chunking,
# re-embedding) are stored the new way; existing rows move when they are written again, or at once with
# `VACUUM FULL rag_chunk` in a maintenance window (docs/operations.md).

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("rag", "0016_written_languages")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE rag_chunk ALTER COLUMN search_vector SET STORAGE MAIN",
            reverse_sql="ALTER TABLE rag_chunk ALTER COLUMN search_vector SET STORAGE EXTENDED",
        )
    ]
