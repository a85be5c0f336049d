from django.apps import AppConfig


class PromptsConfig(AppConfig):
    name = "prompts"
    verbose_name = "Prompts"
