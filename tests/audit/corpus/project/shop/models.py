from django.db import models


class SiteSettings(models.Model):
    key = models.CharField(max_length=50)
    value = models.CharField(max_length=200)


class Plan(models.Model):
    code = models.CharField(max_length=20)
    tax = models.IntegerField()


class Invoice(models.Model):
    number = models.IntegerField(unique=True)
