"""Fixtures for the insights tests: a fast password hasher (test users log in a lot)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings: pytest.FixtureRequest) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
