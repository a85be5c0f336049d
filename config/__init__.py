"""Parley's Django project configuration; loading it also loads the Celery app."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
