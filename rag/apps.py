from django.apps import AppConfig


class RagConfig(AppConfig):
    name = "rag"
    verbose_name = "Knowledge (RAG)"

    def ready(self) -> None:
        # Connects Celery's worker_process_init before the prefork worker forks its processes.
        from rag.embeddings import threads  # noqa: F401
