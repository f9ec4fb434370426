"""Classes of the thirty-second round (issue 14), each with a true case and a safe twin.

They came from the fifty-fifth to fifty-seventh labelled groups (lite-exporter-frontend,
invest-ui, firefox-flicks, mittaridatapumppu, learn-ai; lite-internal-frontend,
badges.mozilla.org, palautebot, unified-ecommerce; directory-ui-buyer, input.mozilla.org,
mozilla-ignite, moj-product-dashboard), measured once after the thirty-first round and
before any of these was written.

- A file field named in a comment (``# the Django ImageField max path size``) declares
  nothing: the project stores no uploads, and its ``MEDIA_ROOT`` is unused.
- What a ``Vagrantfile`` provisions the developer's VM from (``puppet/modules``) is not
  what production runs.
- ``manage.py syncdb`` (Django before 1.7) creates the schema as ``migrate`` does; a
  set-up script with no extension (``scripts/bootstrap``) runs it once.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_deploy import NGINX
from tests.audit.test_outside_measurements import scan, where

SETTINGS = 'INSTALLED_APPS = ["app"]\nMEDIA_ROOT = "/var/media/"\n'
MODELS = """\
from django.db import models
{comment}


class Report(models.Model):
    {field}
"""


def _media(found: list) -> list:
    return [f for f in found if f.message.startswith("MEDIA_ROOT")]


def test_a_file_field_named_only_in_a_comment_stores_nothing(tmp_path: Path) -> None:
    models = MODELS.format(
        comment="# 100 is the Django ImageField max path size", field="name = models.TextField()"
    )
    files = {"app/settings.py": SETTINGS, "app/models.py": models}
    assert _media(scan(tmp_path, files, "settings")) == []


def test_a_declared_file_field_stores_uploads(tmp_path: Path) -> None:
    models = MODELS.format(comment="", field='scan = models.FileField(upload_to="scans")')
    files = {"app/settings.py": SETTINGS, "app/models.py": models}
    assert where(_media(scan(tmp_path, files, "settings"))) == [("app/settings.py", 2)]


VAGRANTFILE = """\
Vagrant.configure("2") do |config|
  config.vm.provision :puppet do |puppet|
    puppet.manifests_path = "puppet/manifests"
    puppet.module_path = "puppet/modules"
  end
end
"""


def test_a_web_server_the_vagrant_box_is_provisioned_with_is_not_read(tmp_path: Path) -> None:
    files = {"Vagrantfile": VAGRANTFILE, "puppet/modules/nginx/templates/nginx.conf": NGINX}
    assert scan(tmp_path, files, "file-write") == []


def test_the_same_web_server_config_for_production_is_found(tmp_path: Path) -> None:
    files = {"Vagrantfile": VAGRANTFILE, "deploy/nginx/nginx.conf": NGINX}
    assert where(scan(tmp_path, files, "file-write")) == [("deploy/nginx/nginx.conf", 6)]


def test_syncdb_at_every_start_is_found(tmp_path: Path) -> None:
    script = "#!/bin/bash\n./manage.py syncdb --noinput\nexec gunicorn app.wsgi\n"
    found = scan(tmp_path, {"bin/docker-entrypoint.sh": script}, "boot-migrate")
    assert where(found) == [("bin/docker-entrypoint.sh", 2)]


def test_syncdb_in_an_installer_run_by_hand_is_not_reported(tmp_path: Path) -> None:
    script = "#!/bin/bash\n./manage.py syncdb --noinput\n"
    assert scan(tmp_path, {"bin/install.sh": script}, "boot-migrate") == []


def test_syncdb_in_a_setup_script_with_no_extension_is_not_reported(tmp_path: Path) -> None:
    script = "#!/bin/bash\nvirtualenv venv\n./manage.py syncdb\n"
    assert scan(tmp_path, {"scripts/bootstrap": script}, "boot-migrate") == []
