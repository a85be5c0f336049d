"""Top-level URL map."""

from django.contrib import admin
from django.urls import include, path

from core.views import favicon, healthz
from widget.views import WidgetConfigView, demo_page

admin.site.site_header = "Parley administration"
admin.site.site_title = "Parley"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("sso/", include("sso.urls")),
    path("api/v1/widget/config", WidgetConfigView.as_view(), name="widget-config"),
    path("api/v1/privacy/", include("privacy.urls")),
    path("api/", include("api.urls")),
    path("agent/", include("agent.urls")),
    path("channels/", include("connectors.urls")),
    path("demo/", demo_page, name="demo"),
]

# JSON on /api/ paths, Django's pages elsewhere.
handler404 = "api.middleware.not_found_handler"
handler500 = "api.middleware.server_error_handler"
