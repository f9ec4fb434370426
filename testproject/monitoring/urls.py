from __future__ import annotations

from django.urls import path

from testproject.monitoring import views

urlpatterns = [
    path("run/<str:name>/", views.run),
    path("lease/<str:name>/", views.hold_lease),
]
