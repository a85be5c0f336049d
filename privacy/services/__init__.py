"""Writes and reads of the privacy app: a visitor's export, erasure and the workspaces' retention."""
