"""horizontal/audit/field_paths.py: where models store uploads on the default storage."""

from __future__ import annotations

from pathlib import Path

from horizontal.audit import field_paths
from tests.audit.test_outside_measurements import scan

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


SCRIPTS = """\
from django.core.files.storage import default_storage
from django.db import models


class Script(models.Model):
    script_path = models.FileField()

    def get_script_path(self):
        return default_storage.path(self.script_path.path)
"""


def test_two_local_path_uses_on_one_line_are_one_related_place(tmp_path: Path) -> None:
    files = {"proj/settings.py": "INSTALLED_APPS = ['app']\nMEDIA_ROOT = '/srv/media'\n"}
    files["app/models.py"] = SCRIPTS
    [finding] = scan(tmp_path, files)
    assert finding.message.endswith("(and 1 place in code that uses uploads by their local path)")
    assert [(r.path, r.line) for r in finding.related] == [
        ("app/models.py", 9),
        ("app/models.py", 6),
    ]
