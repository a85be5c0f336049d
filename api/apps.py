from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "Public API"

    def ready(self) -> None:
        from api import key_cache

        key_cache.signals_connect()
