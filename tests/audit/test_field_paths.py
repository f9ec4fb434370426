"""horizontal/audit/field_paths.py: where models store uploads on the default storage."""

from __future__ import annotations

from horizontal.audit import field_paths

MODELS = """\
from django.db import models


class TestRun(models.Model):
    log_file_storage = models.FileField(null=True)
    storage = models.FileField(null=True)
    signed = models.FileField(storage=private_storage, upload_to="signed")
    scan = models.ImageField(
        upload_to="scans",
        storage=remote_storage,
    )
"""


def test_a_field_named_for_storage_is_on_the_default_storage() -> None:
    # ``log_file_storage`` and ``storage`` name the field; only ``storage=`` among the
    # arguments gives it a storage of its own.
    lines = [place.line for place in field_paths.upload_field_lines("runs/models.py", MODELS)]
    assert lines == [5, 6]


def test_a_form_module_declares_no_stored_field() -> None:
    assert field_paths.upload_field_lines("runs/forms.py", MODELS) == []
