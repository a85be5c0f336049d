"""The prompt-injection guard: the detector (guard.detector), its trained model files, its training
pipeline and command (guard_train), and the screens that visitors' messages and documents' chunks pass
(guard.screen). Below conversations and rag, which both call it; it reads text with textmodels."""
