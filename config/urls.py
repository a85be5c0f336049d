"""Top-level URL map."""

from django.contrib import admin
from django.urls import path

from core.views import healthz

admin.site.site_header = "Parley administration"
admin.site.site_title = "Parley"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
