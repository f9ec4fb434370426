"""``include("horizontal.urls")``: the HTTP trigger (``horizontal.triggers.http``)."""

from __future__ import annotations

from horizontal.triggers import http

__all__ = ["urlpatterns"]

urlpatterns = [*http.urlpatterns]
