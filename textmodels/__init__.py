"""The text models every app reads with: the embedding providers (local MiniLM, the multilingual model,
an OpenAI-compatible endpoint) and the language identifier. No state of their own: low on the map so that
rag, the guard and conversations share one loaded copy of each per process."""
