"""Classes of the thirty-fifth round (issue 14), each with a true case and a safe twin.

They came from the sixty-first and sixty-second labelled groups
(market-access-python-frontend, manchester_traffic_offences_pleas, writeinpublic,
mozmoderator; Aidants_Connect, la-communaute, owning-a-home-api, youth-membership),
each measured once before any of these was written.

- Heroku and Cloud Foundry run an app's ``.profile`` in every instance as it starts.
- A start script in a development folder (``docker/local/``) is a developer's.
- ``if "SECRET_KEY" not in locals():`` under an assignment that always binds the name
  never runs, nor the key file it would write.
- A file written only to be handed to a storage's ``save()`` in the same function is a
  staging copy.
- A subclass of Django's file-based e-mail backend is a developer's outbox.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

PROFILE = """\
#!/usr/bin/env bash
echo "release tasks"
python manage.py migrate
python manage.py collectstatic --noinput
"""


def test_a_platform_profile_that_migrates_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {".profile": PROFILE, "manage.py": ""}, "boot-migrate")
    assert where(found) == [(".profile", 3)]


def test_a_profile_d_script_that_migrates_is_found(tmp_path: Path) -> None:
    found = scan(tmp_path, {".profile.d/release.sh": PROFILE}, "boot-migrate")
    assert where(found) == [(".profile.d/release.sh", 3)]


def test_a_profile_that_only_prepares_the_shell_is_silent(tmp_path: Path) -> None:
    profile = '#!/bin/bash\nmkdir -p ~/.ssh\necho "$SSH_KEY" > ~/.ssh/id_rsa\n'
    assert scan(tmp_path, {".profile": profile}) == []


ENTRYPOINT = """\
#!/usr/bin/env bash
python manage.py migrate
exec "$@"
"""


def test_a_start_script_in_a_local_folder_is_not_read(tmp_path: Path) -> None:
    files = {"docker/local/entrypoint.sh": ENTRYPOINT, "compose/dev/start": ENTRYPOINT}
    assert scan(tmp_path, files, "boot-migrate") == []


def test_the_same_script_in_the_production_folder_is_found(tmp_path: Path) -> None:
    files = {
        "docker/production/entrypoint.sh": ENTRYPOINT,
        "rootfs/usr/local/bin/entrypoint.sh": ENTRYPOINT,
    }
    found = scan(tmp_path, files, "boot-migrate")
    assert sorted(where(found)) == [
        ("docker/production/entrypoint.sh", 2),
        ("rootfs/usr/local/bin/entrypoint.sh", 2),
    ]


SECRET_FALLBACK = """\
import os
import random

SECRET_KEY = os.environ.get("SECRET_KEY", "")
{before}
if "SECRET_KEY" not in locals():
    secret_file = os.path.join(os.path.dirname(__file__), ".django_secret")
    try:
        with open(secret_file) as f:
            SECRET_KEY = f.read().strip()
    except IOError:
        SECRET_KEY = "".join(random.SystemRandom().choice("abcdef0123456789") for _ in range(50))
        with open(secret_file, "w") as f:
            f.write(SECRET_KEY)
"""


def test_a_fallback_under_a_name_already_bound_never_runs(tmp_path: Path) -> None:
    settings = SECRET_FALLBACK.format(before="")
    assert scan(tmp_path, {"app/settings.py": settings}) == []


def test_the_fallback_runs_when_nothing_bound_the_name(tmp_path: Path) -> None:
    # The environment read sits in a branch: the name is bound only when it is set.
    settings = SECRET_FALLBACK.replace(
        'SECRET_KEY = os.environ.get("SECRET_KEY", "")',
        'if os.environ.get("SECRET_KEY"):\n    SECRET_KEY = os.environ["SECRET_KEY"]',
    ).format(before="")
    found = scan(tmp_path, {"app/settings.py": settings})
    assert [f.category for f in found] == ["settings"]
    assert found[0].message.startswith("SECRET_KEY is generated at start-up")


STAGED = """\
from django.core.files import File
from django.db import models


class Certificate(models.Model):
    pdf = models.FileField(upload_to="certificates")

    def render(self, writer):
        output_name = f"attestation/certificate_{self.pk}.pdf"
        with open(output_name, "wb") as f:
            writer.write(f)
        {after}
"""


def test_a_file_written_then_saved_into_a_storage_is_a_staging_copy(tmp_path: Path) -> None:
    after = 'with open(output_name, "rb") as f:\n            self.pdf.save("c.pdf", File(f))'
    models = STAGED.replace("{after}", after)
    assert scan(tmp_path, {"app/models.py": models}, "file-write") == []


def test_a_file_written_and_kept_where_it_is_is_found(tmp_path: Path) -> None:
    models = STAGED.replace("{after}", "self.pdf.name = output_name")
    found = scan(tmp_path, {"app/models.py": models}, "file-write")
    assert where(found) == [("app/models.py", 10)]


OUTBOX = """\
from pathlib import Path

from django.core.mail.backends.filebased import EmailBackend as FileBasedEmailBackend


class {name}({base}):
    def write_message(self, message):
        path = Path(self._get_filename()).resolve()
        with open(path.parent / "last.html", "w") as f:
            f.write(message.body)
"""


def test_an_extended_file_mail_backend_is_a_developers_outbox(tmp_path: Path) -> None:
    backend = OUTBOX.format(name="DebugEmailBackend", base="FileBasedEmailBackend")
    assert scan(tmp_path, {"app/email_backend.py": backend}, "file-write") == []


def test_another_class_that_writes_the_same_file_is_found(tmp_path: Path) -> None:
    backend = OUTBOX.format(name="Archive", base="object")
    found = scan(tmp_path, {"app/archive.py": backend}, "file-write")
    assert where(found) == [("app/archive.py", 9)]
