from django.apps import AppConfig


class PromptContextConfig(AppConfig):
    name = "prompt_context"
    verbose_name = "Rag prompt context"
