# ruff: noqa: DJ001, DJ008  (test models: nullable strings on purpose, never printed)
"""The models as the last migration leaves them."""

from __future__ import annotations

from django.db import models


class Widget(models.Model):
    name = models.CharField(max_length=50)
    heading = models.CharField(max_length=50, null=True)
    dimension = models.IntegerField(default=1, db_column="size")
    price = models.DecimalField(max_digits=8, decimal_places=2)
    color = models.CharField(max_length=20, null=True)
    width = models.IntegerField(db_default=1)
    serial = models.IntegerField()


class Gadget(models.Model):
    label = models.TextField()
    weight = models.IntegerField()


class Vault(models.Model):
    title = models.CharField(max_length=30)
