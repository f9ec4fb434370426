from __future__ import annotations

from django.urls import path

from testproject.accounts import views

app_name = "accounts"

urlpatterns = [
    path("login/", views.login_view, name="login"),
    path("whoami/", views.whoami, name="whoami"),
    path("visit/", views.visit, name="visit"),
    path("logout/", views.logout_view, name="logout"),
    path("slow/", views.slow, name="slow"),
    path("logout-everywhere/", views.logout_everywhere, name="logout-everywhere"),
]
