"""pgvector is checked at start-up, and a server without it is named as such."""

import pytest

from core.database import DatabaseSetupError, PgvectorStatus, pgvector_check, pgvector_require


@pytest.mark.django_db
def test_the_real_server_has_pgvector_installed() -> None:
    version = pgvector_require(installed=True)
    assert tuple(int(p) for p in version.split(".")[:2]) >= (0, 5)


def test_a_server_without_pgvector_is_told_exactly_that() -> None:
    status = PgvectorStatus(available_version=None, installed_version=None)
    with pytest.raises(DatabaseSetupError) as excinfo:
        pgvector_check(status, installed=False, server="db.example:5432/app")
    message = str(excinfo.value)
    assert "db.example:5432/app does not have the pgvector extension" in message
    assert "unset DATABASE_URL" in message


def test_an_old_pgvector_is_refused() -> None:
    status = PgvectorStatus(available_version="0.4.4", installed_version="0.4.4")
    with pytest.raises(DatabaseSetupError, match=r"pgvector 0\.4\.4 .* is too old"):
        pgvector_check(status, installed=True, server="x")
