"""The offline provider (the deterministic answerer); the OpenAI-compatible gateway lives in core.llm."""
