"""Writes of the prompts app: template versions and the demo bot."""
