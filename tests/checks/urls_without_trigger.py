"""A URLconf without the HTTP trigger (for horizontal.W080)."""

from __future__ import annotations

urlpatterns: list[object] = []
