"""A test URL map: Parley's, plus views that fail on purpose (a DRF view and a plain Django view)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path
from rest_framework.request import Request
from rest_framework.views import APIView

from config.urls import handler404, handler500
from config.urls import urlpatterns as parley_urlpatterns

__all__ = ["handler404", "handler500", "urlpatterns"]


class BoomView(APIView):
    def get(self, request: Request) -> HttpResponse:
        raise RuntimeError("kaboom")


def plain_boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("kaboom")


urlpatterns = [
    path("api/v1/test-boom", BoomView.as_view()),
    path("api/v1/test-plain-boom", plain_boom),
    *parley_urlpatterns,
]
