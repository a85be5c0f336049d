"""The real uvicorn server of the API tests, shared with the widget's browser tests, and the demo site on it."""

from collections.abc import Iterator

import pytest

from prompts.services.demo import demo_bot_ensure
from tests.api.conftest import live_api
from widget.services import demo_widget_ensure

__all__ = ["demo_site", "live_api"]


@pytest.fixture
def demo_site(live_api: str) -> Iterator[str]:
    """The demo page's base URL, its widget key allowed from that origin (no documents ingested)."""
    demo_widget_ensure(bot=demo_bot_ensure(), origins=(live_api,))
    yield live_api
