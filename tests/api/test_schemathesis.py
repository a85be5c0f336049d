"""Property-based API tests: schemathesis drives every operation of the OpenAPI schema against uvicorn.

The schema is generated in-process from the URL conf, so an endpoint added later is covered
without touching this file. Each operation runs a bounded number of examples with a real
server key (all scopes) on the live server and the test worker, and must answer without a 500 and exactly as
documented (status codes, content types, headers, bodies).
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from tests.api.factories import bot_make, server_key_make, workspace_make

MAX_EXAMPLES = 15
# Not checked: "schema-valid data must be accepted". Some rules span fields or the caller and are
# not expressible in OpenAPI (a server key must name bot_id; bot_ids and conversation_id exclude
# each other; named bots must exist), so such requests rightly get a documented 400.


def _openapi() -> dict[str, Any]:
    return SchemaGenerator(patterns=None).get_schema(request=None, public=True)


schema = schemathesis.openapi.from_dict(_openapi())


@pytest.fixture
def server_headers(transactional_db: None) -> dict[str, str]:
    """A real key with every scope, in a workspace with one bot (the live server sees committed rows)."""
    workspace = workspace_make()
    bot_make(workspace)
    raw, _ = server_key_make(workspace)
    return {"Authorization": f"Bearer {raw}"}


@pytest.mark.worker
@pytest.mark.timeout(120)
@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_operation_conforms_to_the_schema(
    case: schemathesis.Case, live_api: str, celery_worker: str, server_headers: dict
) -> None:
    """Streamed answers (``stream: true``) run on the real worker, so their SSE responses end."""
    case.call_and_validate(
        base_url=live_api, headers=server_headers, timeout=15, excluded_checks=[positive_data_acceptance]
    )
