from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"

    def ready(self) -> None:
        from conversations.calibration import calibration_paraphrase
        from rag.retrieval.calibration.pairs import paraphraser_register

        # rag's fusion calibration rewrites some of its queries through the LLM with this app's prompt
        paraphraser_register(calibration_paraphrase)
