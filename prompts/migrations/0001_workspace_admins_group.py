"""Create the "Workspace admins" group, whose permissions every workspace member gets (core.auth)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from core.permissions import workspace_admins_group_ensure

GROUP = "Workspace admins"


def group_create(apps, schema_editor):
    # Permissions are normally created after migrations; create them now so the group can hold them.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    workspace_admins_group_ensure(apps=apps)


def group_delete(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("core", "0001_initial"),
        ("bots", "0002_business_rules_texts_and_template_versions"),
        ("prompt_context", "0001_initial"),
    ]

    operations = [migrations.RunPython(group_create, group_delete)]
