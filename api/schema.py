"""OpenAPI: every operation documents the shared error shape for the statuses the API can answer."""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse

from api.serializers import ErrorSerializer, SseEventSerializer

# The text/event-stream body of streamed operations: a sequence of these events (schemathesis checks each).
SSE_RESPONSE = OpenApiResponse(
    response=SseEventSerializer, description="SSE events (docs/api.md, Streaming)."
)

ERROR_STATUSES = ("400", "401", "403", "404", "405", "413", "415", "429", "500")


class ApiKeyScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]  # unannotated in drf-spectacular
    target_class = "api.authentication.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A server key (psk_…) or a widget key (ppk_…, browsers only, from an allowed Origin).",
        }


class ApiAutoSchema(AutoSchema):
    def get_description(self) -> str:  # type: ignore[override]  # drf-spectacular's, not DRF's
        description = super().get_description() or ""
        scope = getattr(self.view, "required_scope", None)
        if scope:
            description = f"{description}\n\nRequires the `{scope}` scope (widget keys have `chat` and `chunks:read`)."
        return description.strip()

    def _get_format_parameters(self) -> list[dict[str, Any]]:
        """No ``?format=`` parameter: clients choose JSON or SSE with Accept or ``stream`` (docs/api.md).

        DRF still honours ``?format=json|sse``, but documenting it promised an enum the server
        cannot enforce (DRF ignores a blank value), which schemathesis rightly reported.
        """
        return []

    def _get_response_bodies(
        self, direction: Literal["request", "response"] = "response"
    ) -> dict[str, Any]:
        responses = super()._get_response_bodies(direction=direction)
        for status in ERROR_STATUSES:
            if status not in responses:
                responses[status] = self._get_response_for_code(  # type: ignore[no-untyped-call]  # unannotated upstream
                    ErrorSerializer, status, ["application/json"], direction=direction
                )
        return responses
