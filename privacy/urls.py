"""The privacy API's URLs, mounted under /api/v1/privacy/ by config.urls."""

from django.urls import path

from privacy.views import (
    VisitorErasureCollectionView,
    VisitorErasureDetailView,
    VisitorExportView,
    VisitorForgetView,
)

app_name = "privacy"

urlpatterns = [
    path("exports", VisitorExportView.as_view(), name="export"),
    path("erasures", VisitorErasureCollectionView.as_view(), name="erasures"),
    path("erasures/<uuid:erasure_id>", VisitorErasureDetailView.as_view(), name="erasure"),
    path("forget", VisitorForgetView.as_view(), name="forget"),
]
