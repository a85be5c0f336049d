# Languages detected before rag.language read them by written language: Wu and Cantonese ("wuu", "yue")
# are Chinese ("zh"), and "zxx" (no linguistic content) is no language. Chinese and no language both
# analyse as 'simple', so the stored chunks' full-text vectors stay valid. Egyptian and Moroccan Arabic
# ("arz", "ary") are left as they are: their chunks were analysed as 'simple', and reading their documents
# as Arabic ('arabic') would hide them from the full-text side until they are ingested again.

from django.db import migrations

_FORWARD = """
UPDATE rag_document SET language = 'zh' WHERE language IN ('wuu', 'yue');
UPDATE rag_document SET language = '' WHERE language = 'zxx';
UPDATE rag_chunkpassages SET language = 'zh' WHERE language IN ('wuu', 'yue');
UPDATE rag_chunkpassages SET language = '' WHERE language = 'zxx';
UPDATE rag_chunk SET metadata = jsonb_set(metadata, '{languages}', '["zho"]')
WHERE metadata -> 'languages' IN ('["wuu"]'::jsonb, '["yue"]'::jsonb);
UPDATE rag_chunk SET metadata = jsonb_set(metadata, '{languages}', '[]')
WHERE metadata -> 'languages' = '["zxx"]'::jsonb;
"""


class Migration(migrations.Migration):
    dependencies = [("rag", "0015_chunk_hnsw_halfvec")]

    operations = [migrations.RunSQL(_FORWARD, reverse_sql=migrations.RunSQL.noop)]
