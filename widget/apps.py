from django.apps import AppConfig


class WidgetConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "widget"
    verbose_name = "Chat widget"
