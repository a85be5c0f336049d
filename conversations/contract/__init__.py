"""The answer contract: parse the LLM's output, enforce the spec's consistency rules, retry or fall back."""
