"""Parley's Django project configuration; loading it also loads the Celery app."""

import django_stubs_ext

from config.celery import app as celery_app

# Class bases name their model for mypy (`ModelAdmin[Bot]`, `ModelForm[Bot]`): this gives Django's generic
# classes the `__class_getitem__` they lack, before any app module is imported.
django_stubs_ext.monkeypatch()

__all__ = ["celery_app"]
