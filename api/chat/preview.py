"""GET /api/v1/chunks/{id}/preview: a PNG of the chunk's page region with its boxes highlighted.

Same scope and choke point as GET /chunks/{id}; the rendering and its cache are rag.preview's.
The region shown travels in the X-Parley-Preview-Region header (page, box in PDF points or image
pixels, pixels per unit), so a client can place the highlight without parsing the image.
"""

from __future__ import annotations

import json
import uuid

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from api.access import chunk_get_for_principal
from api.errors import ApiError, ErrorCode
from api.models import Scope
from api.principal import request_principal
from rag.preview import PreviewUnavailable, chunk_preview


class PNGRenderer(BaseRenderer):
    """Lets a request that accepts only image/png through content negotiation (errors stay JSON)."""

    media_type = "image/png"
    format = "png"
    charset = None
    render_style = "binary"

    def render(
        self, data: object, accepted_media_type: str | None = None, renderer_context: object = None
    ) -> bytes:
        return data if isinstance(data, bytes) else b""


class ChunkPreviewView(APIView):
    required_scope = Scope.CHUNKS_READ
    renderer_classes = [JSONRenderer, PNGRenderer]

    @extend_schema(
        summary="A chunk's page region as a PNG, its boxes highlighted (PDF and image sources)",
        responses={
            (200, "image/png"): OpenApiResponse(OpenApiTypes.BINARY),
            404: OpenApiTypes.OBJECT,
        },
    )
    def get(self, request: Request, chunk_id: uuid.UUID) -> HttpResponse:
        principal = request_principal(request)
        chunk = chunk_get_for_principal(principal=principal, chunk_id=chunk_id)
        try:
            preview = chunk_preview(chunk=chunk)
        except PreviewUnavailable as exc:
            raise ApiError(
                ErrorCode.NOT_FOUND, f"No preview: {exc}", extra={"reason": "no_preview"}
            ) from exc
        response = HttpResponse(preview.png, content_type="image/png")
        response["X-Parley-Preview-Region"] = json.dumps(preview.region)
        response["Cache-Control"] = "private, max-age=300"
        return response
