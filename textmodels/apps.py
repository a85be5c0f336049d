from django.apps import AppConfig


class TextmodelsConfig(AppConfig):
    name = "textmodels"
    verbose_name = "Text models"

    def ready(self) -> None:
        # Connects Celery's worker_process_init before the prefork worker forks its processes.
        from textmodels.embeddings import threads  # noqa: F401
