"""The real uvicorn server of the API tests, shared with the widget's browser tests."""

from tests.api.conftest import live_api

__all__ = ["live_api"]
