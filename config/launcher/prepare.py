"""Before the processes start: the port free, settings and apps loaded, the database migrated and
checked, the first admin and the demo in place."""

from __future__ import annotations

import io
import socket

from config.launcher.errors import LaunchError, say


def port_check(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise LaunchError(
                f"port {port} on {host} is already in use ({exc.strerror}). Stop the program using it, "
                f"or pick another port, for example: PARLEY_PORT={port + 1} ./parley run"
            ) from None


def django_setup() -> None:
    """Load settings (starting the embedded services if needed) and the apps."""
    from django.core.exceptions import ImproperlyConfigured

    from core.embedded import EmbeddedServiceError
    from core.pg_sizing import SizingError

    try:
        import django

        django.setup()
    except (EmbeddedServiceError, SizingError, ImproperlyConfigured) as exc:
        raise LaunchError(str(exc)) from None


def database_prepare() -> None:
    """Migrate, check pgvector, and collect the static files."""
    from django.core.management import call_command

    from core.database import DatabaseSetupError, pgvector_require

    try:
        pgvector_require(installed=False)
        call_command("migrate", interactive=False, verbosity=0)
        version = pgvector_require(installed=True)
    except DatabaseSetupError as exc:
        raise LaunchError(str(exc)) from None
    say(f"database ready (pgvector {version})")
    say(f"database sizing: {database_sizing()}")
    call_command("collectstatic", interactive=False, verbosity=0)


def database_sizing() -> str:
    """The running server's memory and parallel settings, as it reports them (an external server's too)."""
    from django.db import connection

    from core.pg_sizing import sizing_describe, sizing_show

    with connection.cursor() as cursor:
        return sizing_describe(sizing_show(cursor=cursor))


def admin_ensure() -> None:
    """The first superuser, from the PARLEY_ADMIN_* settings, when there is none."""
    from django.conf import settings

    from core.services import admin_bootstrap

    result = admin_bootstrap(
        username=settings.PARLEY_ADMIN_USERNAME,
        email=settings.PARLEY_ADMIN_EMAIL,
        password=settings.PARLEY_ADMIN_PASSWORD,
    )
    if result.created and result.password:
        say(f"created admin user '{result.username}' with password: {result.password}")
        say(
            "this password is shown once; change it in the admin, or set PARLEY_ADMIN_PASSWORD next time"
        )
    elif result.created:
        say(f"created admin user '{result.username}' with the password from PARLEY_ADMIN_PASSWORD")


def demo_ensure() -> None:
    """Load the demo bot and its documents when the apps that own them provide a loader."""
    from django.conf import settings
    from django.core.management import call_command, get_commands

    if settings.PARLEY_LOAD_DEMO and "demo_load" in get_commands():
        call_command("demo_load")
    if settings.PARLEY_LOAD_DEMO and "demo_widget" in get_commands():
        call_command("demo_widget")
    # After the documents: the demo's first evaluation run waits for their ingestion.
    if settings.PARLEY_LOAD_DEMO and "demo_evaluation" in get_commands():
        call_command("demo_evaluation")


def demo_evaluation_summary() -> str:
    """The demo's first evaluation run in one line once it has finished ("" before, or without it)."""
    from django.conf import settings
    from django.core.management import call_command, get_commands

    if not settings.PARLEY_LOAD_DEMO or "demo_evaluation" not in get_commands():
        return ""
    return str(call_command("demo_evaluation", "--summary", stdout=io.StringIO()) or "")
