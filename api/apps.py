from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "Public API"

    def ready(self) -> None:
        from handoff.live import live_sink_set
        from streams.live import live_sink

        live_sink_set(live_sink)  # handoff publishes its live events through the API's streams
        from api import key_cache

        key_cache.signals_connect()
