"""Core Celery tasks: the worker probe that proves the web → broker → worker → database path."""

from __future__ import annotations

import os
import socket

from django.utils import timezone

from core.models import WorkerProbe
from core.typed_tasks import task


@task(name="core.worker_probe_complete")
def worker_probe_complete(probe_id: str) -> None:
    WorkerProbe.objects.filter(pk=probe_id, completed_at__isnull=True).update(
        completed_at=timezone.now(), worker_hostname=socket.gethostname(), worker_pid=os.getpid()
    )
