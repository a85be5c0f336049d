"""Visitors' privacy: export and erasure of a visitor's data on request, and retention per workspace."""
