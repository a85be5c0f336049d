from django.apps import AppConfig


class HandoffConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "handoff"
    verbose_name = "Human handoff"

    def ready(self) -> None:
        from conversations.services import (
            conversation_escalation_hook_set,
            conversation_history_source_set,
        )
        from handoff.selectors import handoff_history_messages
        from handoff.services import handoff_escalation_record

        conversation_escalation_hook_set(handoff_escalation_record)
        # A conversation returned to the bot goes on with what the agent and the visitor said meanwhile.
        conversation_history_source_set(handoff_history_messages)
