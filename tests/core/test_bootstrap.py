"""The admin bootstrap never ships a fixed password."""

import pytest
from django.contrib.auth import get_user_model

from core.services import admin_bootstrap


@pytest.mark.django_db
def test_a_generated_password_is_returned_once_and_works() -> None:
    first = admin_bootstrap(username=None, email=None, password=None)
    assert first.created and first.password and len(first.password) >= 16
    user = get_user_model().objects.get(username="admin")
    assert user.is_superuser and user.check_password(first.password)

    second = admin_bootstrap(username=None, email=None, password=None)
    assert not second.created and second.password is None


@pytest.mark.django_db
def test_credentials_from_env_are_used() -> None:
    result = admin_bootstrap(
        username="ops", email="ops@example.com", password="a-long-passphrase-42"
    )
    assert result.created and result.password is None
    assert get_user_model().objects.get(username="ops").check_password("a-long-passphrase-42")
