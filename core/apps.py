from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Parley core"

    def ready(self) -> None:
        from core.permissions import grants_after_migrate

        # Connected after django.contrib.auth's receiver (auth is listed first), so permissions exist by then.
        post_migrate.connect(grants_after_migrate, dispatch_uid="core.workspace_admin_grants")
