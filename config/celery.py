"""The Celery application: Redis (Valkey) broker, JSON only, tasks discovered from the apps."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("parley")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
