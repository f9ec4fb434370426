"""cache: a class-level memo over rows, cleared by a signal on one instance only."""

from django.db.models.signals import post_save
from django.dispatch import receiver

from .models import Plan


class TaxHelper:
    _rates_by_code = {}  # expect: cache

    def rate(self, code):
        if code not in TaxHelper._rates_by_code:
            TaxHelper._rates_by_code[code] = Plan.objects.get(code=code).tax
        return TaxHelper._rates_by_code[code]


@receiver(post_save, sender=Plan)
def forget_rate(sender, instance, **kwargs):
    # Runs only in the process that saved the plan.
    TaxHelper._rates_by_code.pop(instance.code, None)  # expect: cache (the clear, related)
