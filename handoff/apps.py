from django.apps import AppConfig


class HandoffConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "handoff"
    verbose_name = "Human handoff"

    def ready(self) -> None:
        from conversations.services import conversation_escalation_hook_set
        from handoff.services import handoff_escalation_record

        conversation_escalation_hook_set(handoff_escalation_record)
