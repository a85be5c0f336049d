"""Write-side operations of the core app: admin bootstrap and the worker probe."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction

from core.models import WorkerProbe


@dataclass(frozen=True)
class BootstrapResult:
    created: bool
    username: str
    password: str | None  # set only when Parley generated it; shown once


def admin_bootstrap(
    *, username: str | None, email: str | None, password: str | None
) -> BootstrapResult:
    """Create a superuser when none exists; generate a password unless one is given."""
    user_model = get_user_model()
    existing = user_model.objects.filter(is_superuser=True).order_by("pk").first()
    if existing is not None:
        return BootstrapResult(created=False, username=existing.get_username(), password=None)
    generated = None
    if not password:
        generated = secrets.token_urlsafe(15)
        password = generated
    name = username or "admin"
    user_model.objects.create_superuser(username=name, email=email or "", password=password)
    return BootstrapResult(created=True, username=name, password=generated)


def worker_probe_start() -> WorkerProbe:
    """Record a probe and enqueue its completion once the row is committed."""
    from core.tasks import worker_probe_complete

    with transaction.atomic():
        probe = WorkerProbe.objects.create()
        worker_probe_complete.delay_on_commit(str(probe.pk))
    return probe


def staff_access_ensure(*, user_id: int) -> None:
    """A workspace member needs is_staff to enter the admin; their permissions come from core.auth."""
    get_user_model().objects.filter(pk=user_id, is_staff=False).update(is_staff=True)
