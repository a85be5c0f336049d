# Curated answers move down to conversations (the turn's path reads them); a gap cluster now points
# to the curated answer attached to it. Existing rows are copied before the old tables go.

import django.db.models.deletion
from django.db import migrations, models


def _copy_down(apps, schema_editor):
    old_answer = apps.get_model("insights", "CuratedAnswer")
    old_policy = apps.get_model("insights", "CuratedAnswerPolicy")
    new_answer = apps.get_model("conversations", "CuratedAnswer")
    new_policy = apps.get_model("conversations", "CuratedAnswerPolicy")
    cluster = apps.get_model("insights", "GapCluster")
    for row in old_answer.objects.all():
        new_answer.objects.create(
            id=row.id,
            bot_id=row.bot_id,
            question=row.question,
            answer=row.answer,
            is_active=row.is_active,
            embedding=row.embedding,
            embedding_model=row.embedding_model,
        )
        if row.cluster_id is not None:
            cluster.objects.filter(pk=row.cluster_id).update(curated_answer_id=row.id)
            cluster.objects.filter(pk=row.cluster_id, covered_by="", covered_at__isnull=False).update(
                covered_by="curated_answer"
            )
    for row in old_policy.objects.all():
        new_policy.objects.create(bot_id=row.bot_id, similarity_threshold=row.similarity_threshold)


class Migration(migrations.Migration):

    dependencies = [
        ('conversations', '0007_curated_answers'),
        ('insights', '0003_faq_candidates_and_curated_answers'),
    ]

    operations = [
        migrations.AddField(
            model_name='gapcluster',
            name='curated_answer',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='clusters', to='conversations.curatedanswer'),
        ),
        migrations.AddField(
            model_name='gapcluster',
            name='covered_by',
            field=models.CharField(blank=True, choices=[('turn', 'a later turn'), ('evaluation_run', 'a later evaluation run'), ('curated_answer', 'a curated answer')], max_length=20),
        ),
        migrations.RunPython(_copy_down, migrations.RunPython.noop),
        migrations.DeleteModel(
            name='CuratedAnswer',
        ),
        migrations.DeleteModel(
            name='CuratedAnswerPolicy',
        ),
    ]
