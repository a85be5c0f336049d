from django.apps import AppConfig


class RagConfig(AppConfig):
    name = "rag"
    verbose_name = "Knowledge (RAG)"
