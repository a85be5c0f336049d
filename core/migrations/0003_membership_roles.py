"""Roles per workspace: owner, editor, analyst, agent (core.permissions.ROLE_GRANTS).

Every "member" becomes an owner: before the roles, owner and member drew the same grants (the
"Workspace admins" group: keys, channels, bots, documents, analytics, evaluation, transcripts), and the
owner role is the only one that keeps all of them (core.permissions.MEMBER_GRANTS_BEFORE_ROLES; a test
holds the owner's grants to it). Any narrower role would silently take a right away; workspaces now
narrow their people on purpose. Backwards, the new roles become "member" again (owner stays owner),
which is what each of them could at most do before.
"""

from django.db import migrations, models

NEW_ROLES = ["editor", "analyst", "agent"]


def members_to_owners(apps, schema_editor):
    Membership = apps.get_model("core", "Membership")
    Membership.objects.filter(role="member").update(role="owner")


def roles_to_members(apps, schema_editor):
    Membership = apps.get_model("core", "Membership")
    Membership.objects.filter(role__in=NEW_ROLES).update(role="member")


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_workspace_privacy"),
    ]

    operations = [
        migrations.AlterField(
            model_name="membership",
            name="role",
            field=models.CharField(
                choices=[
                    ("owner", "Owner"),
                    ("editor", "Editor"),
                    ("analyst", "Analyst"),
                    ("agent", "Agent"),
                    ("member", "Member"),
                ],
                default="agent",
                max_length=10,
            ),
        ),
        migrations.RunPython(members_to_owners, roles_to_members),
        migrations.AlterField(
            model_name="membership",
            name="role",
            field=models.CharField(
                choices=[
                    ("owner", "Owner"),
                    ("editor", "Editor"),
                    ("analyst", "Analyst"),
                    ("agent", "Agent"),
                ],
                default="agent",
                max_length=10,
            ),
        ),
        migrations.AddConstraint(
            model_name="membership",
            constraint=models.CheckConstraint(
                condition=models.Q(role__in=["owner", "editor", "analyst", "agent"]),
                name="membership_role_known",
            ),
        ),
    ]
