"""URLs under /api/: versioned endpoints under v1/, the OpenAPI schema and its browsable docs."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from api.chat.preview import ChunkPreviewView
from api.chat.views import ChatTurnView, ChunkView, RagSearchView, StreamEventsView
from api.documents.views import DocumentCollectionView, DocumentDetailView, DocumentRerunView
from api.handoff.views import (
    ConversationEventsView,
    ConversationHandoffView,
    ConversationMessagesView,
    ConversationTypingView,
    TurnFeedbackView,
)
from api.keys.views import MeView, SessionCreateView
from api.sources.views import SourceCollectionView, SourceDetailView, SourceSyncView

app_name = "api"


class PublicSchemaView(SpectacularAPIView):
    authentication_classes: list[type] = []
    permission_classes: list[type] = []
    throttle_classes: list[type] = []


class PublicDocsView(SpectacularSwaggerSplitView):
    """Swagger UI whose start-up script is served from this view's own URL (`?script`), not inline:
    the page runs under the same strict CSP as every other (core.middleware)."""

    authentication_classes: list[type] = []
    permission_classes: list[type] = []
    throttle_classes: list[type] = []


urlpatterns = [
    path("v1/sources", SourceCollectionView.as_view(), name="sources"),
    path("v1/sources/<uuid:source_id>", SourceDetailView.as_view(), name="source"),
    path("v1/sources/<uuid:source_id>/sync", SourceSyncView.as_view(), name="source-sync"),
    path("v1/me", MeView.as_view(), name="me"),
    path("v1/sessions", SessionCreateView.as_view(), name="session-create"),
    path("v1/conversations/<uuid:conversation_id>/turns", ChatTurnView.as_view(), name="chat-turn"),
    path("v1/rag_search", RagSearchView.as_view(), name="rag-search"),
    path("v1/chunks/<uuid:chunk_id>", ChunkView.as_view(), name="chunk"),
    path("v1/chunks/<uuid:chunk_id>/preview", ChunkPreviewView.as_view(), name="chunk-preview"),
    path("v1/streams/<str:stream_id>/events", StreamEventsView.as_view(), name="stream-events"),
    path(
        "v1/conversations/<uuid:conversation_id>/messages",
        ConversationMessagesView.as_view(),
        name="messages",
    ),
    path(
        "v1/conversations/<uuid:conversation_id>/events",
        ConversationEventsView.as_view(),
        name="events",
    ),
    path(
        "v1/conversations/<uuid:conversation_id>/handoff",
        ConversationHandoffView.as_view(),
        name="handoff",
    ),
    path(
        "v1/conversations/<uuid:conversation_id>/typing",
        ConversationTypingView.as_view(),
        name="typing",
    ),
    path("v1/turns/<uuid:turn_id>/feedback", TurnFeedbackView.as_view(), name="turn-feedback"),
    path("v1/documents", DocumentCollectionView.as_view(), name="document-list"),
    path("v1/documents/<uuid:document_id>", DocumentDetailView.as_view(), name="document-detail"),
    path(
        "v1/documents/<uuid:document_id>/rerun", DocumentRerunView.as_view(), name="document-rerun"
    ),
    path("schema/", PublicSchemaView.as_view(), name="schema"),
    path("docs/", PublicDocsView.as_view(url_name="api:schema"), name="docs"),
]
