from django.apps import AppConfig


class StreamsConfig(AppConfig):
    name = "streams"
    verbose_name = "Event streams"
