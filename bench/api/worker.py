"""The Celery app for the bench's worker: the product's app, plus the scripted runner registered.

Celery imports ``imports`` once Django is set up, so the runner module can use the ORM's apps.
"""

from config.celery import app

app.conf.update(imports=["bench.api.runner"])

__all__ = ["app"]
