"""LLM providers: the OpenAI-compatible gateway (the only module importing `openai`) and the offline provider."""
