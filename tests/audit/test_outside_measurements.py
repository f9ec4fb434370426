"""The classes of false positive and miss that measuring the audit on code nobody tuned it
on found (issue 14): each with a true case that must be found and a safe twin that must
stay silent. Files are written to a temporary tree and scanned with ``scan_paths``."""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from horizontal.audit import Finding, scan_paths
from horizontal.audit.formats import render
from horizontal.audit.memo_clears import NEVER_CLEARED

FS = "django.core.files.storage.FileSystemStorage"


def scan(tmp_path: Path, files: dict[str, str], category: str | None = None) -> list[Finding]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
    # A category asked for by name is scanned for even when it is opt-in (module-state).
    chosen = None if category is None else [category]
    if category == "cache":
        # What the memo detectors find: a memo nothing clears is module-state, opt-in
        # (memo_clears.py); test_memo_clears.py tests that judgement.
        chosen = ["cache", "module-state"]
    found = scan_paths([tmp_path], base=tmp_path, categories=chosen).findings
    return [f for f in found if category is None or _of_category(f, category)]


def _of_category(finding: Finding, category: str) -> bool:
    if category == "cache" and finding.message.endswith(NEVER_CLEARED):
        return True
    return finding.category == category


def where(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(f.path, f.line) for f in findings]


# -- settings read as Python runs them -------------------------------------------------------

SETTINGS_HEAD = (
    "INSTALLED_APPS = []\nCACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
)


def test_a_storage_literal_replaced_later_in_the_module_is_not_reported(tmp_path: Path) -> None:
    source = SETTINGS_HEAD + (
        f"STORAGES = {{'default': {{'BACKEND': '{FS}'}}}}\n"
        "from horizontal.storage import storages_from_env\n"
        "STORAGES = storages_from_env()\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []


def test_a_storage_literal_that_stands_is_reported_with_its_own_fix(tmp_path: Path) -> None:
    source = SETTINGS_HEAD + f"STORAGES = {{'default': {{'BACKEND': '{FS}'}}}}\n"
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert finding.line == 3
    assert "S3Storage" in finding.fix and "storages_from_env" in finding.fix


def test_a_value_replaced_only_in_one_branch_still_stands(tmp_path: Path) -> None:
    source = SETTINGS_HEAD + (
        f"STORAGES = {{'default': {{'BACKEND': '{FS}'}}}}\n"
        "import os\n"
        "if os.environ.get('BUCKET'):\n"
        "    STORAGES['default']['BACKEND'] = 'storages.backends.s3.S3Storage'\n"
    )
    assert where(scan(tmp_path, {"app/settings.py": source}, "settings")) == [
        ("app/settings.py", 3)
    ]


def test_a_base_value_every_production_module_replaces_is_not_reported(tmp_path: Path) -> None:
    base = (
        SETTINGS_HEAD
        + "CACHES = {'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}\n"
    )
    prod = (
        "from .base import *\nCACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    )
    files = {"app/settings/base.py": base, "app/settings/production.py": prod}
    assert scan(tmp_path, files, "settings") == []


def test_a_base_value_a_production_module_keeps_is_reported_in_the_base(tmp_path: Path) -> None:
    base = (
        SETTINGS_HEAD
        + "CACHES = {'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}\n"
    )
    files = {"app/settings/base.py": base, "app/settings/production.py": "from .base import *\n"}
    assert where(scan(tmp_path, files, "settings")) == [("app/settings/base.py", 3)]


def test_one_setting_set_in_a_base_and_again_in_production_is_one_finding(tmp_path: Path) -> None:
    random_key = (
        "from django.core.management.utils import get_random_secret_key\n"
        "SECRET_KEY = get_random_secret_key()\n"
    )
    files = {
        "app/settings/base.py": SETTINGS_HEAD + random_key,
        "app/settings/production.py": "from .base import *\nimport os\n"
        "if not os.environ.get('K'):\n    SECRET_KEY = get_random_secret_key()\n",
    }
    [finding] = scan(tmp_path, files, "settings")
    assert (finding.path, finding.line) == ("app/settings/production.py", 4)
    # The base that sets it too, then the branch that makes it production's fallback.
    assert [(r.path, r.line) for r in finding.related] == [
        ("app/settings/base.py", 4),
        ("app/settings/production.py", 3),
    ]
    sarif = json.loads(render([finding], "sarif"))
    [result] = sarif["runs"][0]["results"]
    related, _ = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "app/settings/base.py"
    assert related["physicalLocation"]["region"]["startLine"] == 4


def test_demo_settings_that_set_debug_literally_are_not_production(tmp_path: Path) -> None:
    demo = (
        SETTINGS_HEAD
        + "DEBUG = True\nDATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3'}}\n"
    )
    assert scan(tmp_path, {"shop/settings.py": demo}, "settings") == []
    # ...unless production star-imports it and keeps the value.
    files = {
        "shop/settings/base.py": demo,
        "shop/settings/prod.py": "from .base import *\nDEBUG = False\n",
    }
    assert where(scan(tmp_path, files, "settings")) == [("shop/settings/base.py", 4)]


@pytest.mark.parametrize(
    "expression",
    [
        "''.join(random.SystemRandom().choice(string.printable) for _ in range(50))",
        "''.join(random.choices(string.ascii_letters, k=50))",
        "secrets.token_urlsafe(50)",
        "os.urandom(32).hex()",
        "str(uuid.uuid4())",
        "get_random_string(50)",
    ],
)
def test_secret_key_randomness_in_every_form_is_found(tmp_path: Path, expression: str) -> None:
    source = SETTINGS_HEAD + (
        "import os, random, secrets, string, uuid\n"
        "from django.utils.crypto import get_random_string\n"
        "SECRET_KEY = os.environ.get('SECRET_KEY')\n"
        f"if not SECRET_KEY:\n    SECRET_KEY = {expression}\n"
    )
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert finding.message.startswith("SECRET_KEY is generated")
    assert "environment" in finding.fix


def test_a_secret_key_generated_once_into_a_local_file_is_found(tmp_path: Path) -> None:
    source = SETTINGS_HEAD + dedent(
        """\
        from pathlib import Path
        from django.core.management.utils import get_random_secret_key
        def _load_or_create(path):
            if not path.exists():
                path.write_text(get_random_secret_key())
            return path.read_text()
        SECRET_KEY = _load_or_create(Path('secret.txt'))
        """
    )
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert finding.line == 9


def test_a_secret_key_from_the_environment_or_a_constant_is_silent(tmp_path: Path) -> None:
    source = (
        SETTINGS_HEAD + "import os\nSECRET_KEY = os.environ.get('SECRET_KEY', 'dev-only-key')\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []


# -- user files on the local disk that switching STORAGES does not fix -------------------------


def test_serving_media_root_from_disk_is_found(tmp_path: Path) -> None:
    urls = dedent(
        """\
        from django.conf import settings
        from django.urls import path, re_path
        from django.views.static import serve
        urlpatterns = [
            re_path(r"^media/(?P<path>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
        ]
        """
    )
    assert where(scan(tmp_path, {"shop/urls.py": urls}, "file-write")) == [("shop/urls.py", 5)]


def test_serving_media_only_under_debug_or_through_static_is_silent(tmp_path: Path) -> None:
    urls = dedent(
        """\
        from django.conf import settings
        from django.conf.urls.static import static
        from django.urls import re_path
        from django.views.static import serve
        urlpatterns = []
        if settings.DEBUG:
            media = {"document_root": settings.MEDIA_ROOT}
            urlpatterns += [re_path(r"^m/(?P<path>.*)$", serve, media)]
        urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
        """
    )
    assert scan(tmp_path, {"shop/urls.py": urls}, "file-write") == []


def test_a_uwsgi_static_map_of_media_is_found_and_of_static_is_not(tmp_path: Path) -> None:
    ini = "[uwsgi]\nstatic-map = /static=/app/static\nstatic-map = /media=/app/media\n"
    assert where(scan(tmp_path, {"uwsgi.ini": ini})) == [("uwsgi.ini", 3)]


def test_a_filesystemstorage_subclass_configured_for_uploads_is_found(tmp_path: Path) -> None:
    storage = (
        "from django.core.files.storage import FileSystemStorage\n\n"
        "class UploadStorage(FileSystemStorage):\n    pass\n"
    )
    settings = SETTINGS_HEAD + "STORAGES = {'default': {'BACKEND': 'shop.storage.UploadStorage'}}\n"
    files = {"shop/storage.py": storage, "shop/settings.py": settings}
    assert where(scan(tmp_path, files, "settings")) == [("shop/settings.py", 3)]


def test_a_storage_subclass_that_is_not_local_is_silent(tmp_path: Path) -> None:
    storage = (
        "from storages.backends.s3 import S3Storage\n\nclass UploadStorage(S3Storage):\n    pass\n"
    )
    settings = SETTINGS_HEAD + "STORAGES = {'default': {'BACKEND': 'shop.storage.UploadStorage'}}\n"
    files = {"shop/storage.py": storage, "shop/settings.py": settings}
    assert scan(tmp_path, files, "settings") == []


# -- test, demo and provisioning support; code that already knows -----------------------------


def test_test_and_demo_support_outside_tests_is_not_scanned(tmp_path: Path) -> None:
    writer = "def dump(data):\n    with open('/srv/out.json', 'w') as fh:\n        fh.write(data)\n"
    files = {"shop/testing/helpers.py": writer, "shop/demo/seed.py": writer}
    assert scan(tmp_path, files) == []
    assert where(scan(tmp_path, {"shop/export.py": writer})) == [("shop/export.py", 2)]


def test_provisioning_and_upgrade_scripts_run_by_hand_are_not_boot_steps(tmp_path: Path) -> None:
    script = "#!/bin/sh\npython manage.py migrate\nsystemctl restart gunicorn\n"
    files = {"install.sh": script, "upgrade.sh": script, "vagrant/provision.sh": script}
    assert scan(tmp_path, files) == []
    assert where(scan(tmp_path, {"start.sh": script})) == [("start.sh", 2)]


def test_code_guarded_by_a_local_storage_test_is_silent(tmp_path: Path) -> None:
    code = dedent(
        """\
        from django.core.files.storage import FileSystemStorage, default_storage
        def thumbnail(name, data):
            if isinstance(default_storage, FileSystemStorage):
                with open(default_storage.path(name), "wb") as fh:
                    fh.write(data)
            else:
                default_storage.save(name, data)
        """
    )
    assert scan(tmp_path, {"shop/thumbs.py": code}, "file-write") == []
    unguarded = code.replace(
        "    if isinstance(default_storage, FileSystemStorage):\n", "    if data:\n"
    )
    assert where(scan(tmp_path, {"shop/thumbs.py": unguarded}, "file-write")) == [
        ("shop/thumbs.py", 4)
    ]


def test_a_storage_opened_only_to_read_files_shipped_in_the_image_is_silent(
    tmp_path: Path,
) -> None:
    code = dedent(
        """\
        from pathlib import Path
        from django.core.files.storage import FileSystemStorage, default_storage
        FIXTURES = Path(__file__).parent / "fixtures"
        def load():
            shipped = FileSystemStorage(FIXTURES / "media")
            for name in shipped.listdir("")[1]:
                with shipped.open(name) as fh:
                    default_storage.save(name, fh)
        """
    )
    assert scan(tmp_path, {"shop/loader.py": code}, "file-write") == []
    writing = code.replace("default_storage.save(name, fh)", "shipped.save(name, fh)")
    assert where(scan(tmp_path, {"shop/loader.py": writing}, "file-write")) == [
        ("shop/loader.py", 5)
    ]


# -- shared services addressed as this host, read from settings source (W004/W048's rule) ----


@pytest.mark.parametrize(
    "assignment",
    [
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': os.environ.get('REDIS_URL', 'redis://localhost:6379/0')}}",
        "CELERY_BROKER_URL = 'amqp://guest@127.0.0.1//'",
        "CHANNEL_LAYERS = {'default': {'BACKEND': 'channels_redis.core.RedisChannelLayer', "
        "'CONFIG': {'hosts': ['redis://[::1]:6379']}}}",
    ],
)
def test_a_shared_service_on_this_host_in_settings_is_found(
    tmp_path: Path, assignment: str
) -> None:
    source = "import os\nINSTALLED_APPS = []\nSECRET_KEY = os.environ['K']\n" + assignment + "\n"
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert "is this host" in finding.message and "sidecar" in finding.fix


@pytest.mark.parametrize("name", ["BROKER_URL", "CELERY_BROKER_URL"])
def test_a_broker_on_this_host_is_named_as_the_settings_module_writes_it(
    tmp_path: Path, name: str
) -> None:
    # Celery's pre-4.0 name is read as the new one, and reported as written.
    source = f"INSTALLED_APPS = []\n{name} = 'redis://localhost:6379/0'\n"
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert finding.message.startswith(f"{name}: redis://localhost:6379/0 is this host")


@pytest.mark.parametrize("password", ["s3cr3t", "s3c@r3t"])
def test_a_service_on_this_host_is_named_without_its_password(
    tmp_path: Path, password: str
) -> None:
    url = f"amqp://shop:{password}@localhost:5672//"
    source = f"INSTALLED_APPS = []\nCELERY_BROKER_URL = '{url}'\n"
    [finding] = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert "amqp://shop:***@localhost:5672//" in finding.message
    assert "r3t" not in render([finding], "json")


def test_a_helpers_default_on_this_host_is_named_without_its_password(tmp_path: Path) -> None:
    files = {
        "shop/config.py": 'DEFAULTS = {"REDIS_URL": "redis://:s3cr3t@localhost:6379/0"}\n',
        "shop/settings.py": "from shop import config\nINSTALLED_APPS = []\n"
        'REDIS_URL = config.DEFAULTS["REDIS_URL"]\n',
    }
    findings = scan(tmp_path, files, "settings")
    assert findings, "the helper's default is a finding"
    assert all("s3cr3t" not in f.message for f in findings)


@pytest.mark.parametrize(
    ("test", "found"),
    [
        ('"collectstatic" in sys.argv', False),
        ('sys.argv[1:2] == ["compilemessages"]', True),  # not a form read: kept
        ('"runserver" in sys.argv', True),
    ],
)
def test_a_random_key_only_for_a_build_step_is_not_production_s(
    tmp_path: Path, test: str, found: bool
) -> None:
    source = (
        "import os, sys\nfrom django.core.management.utils import get_random_secret_key\n"
        "INSTALLED_APPS = []\nSECRET_KEY = os.environ['DJANGO_SECRET_KEY']\n"
        f"if {test}:\n    SECRET_KEY = get_random_secret_key()\n"
    )
    findings = scan(tmp_path, {"app/settings.py": source}, "settings")
    assert any("SECRET_KEY" in f.message for f in findings) is found


def test_a_shared_service_on_its_own_host_in_settings_is_silent(tmp_path: Path) -> None:
    source = (
        "import os\nINSTALLED_APPS = []\nSECRET_KEY = os.environ['K']\n"
        "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
        "'LOCATION': os.environ.get('REDIS_URL', 'redis://redis:6379/0')}}\n"
        "CELERY_BROKER_URL = 'amqp://guest@rabbitmq//'\n"
        "ALLOWED_HOSTS = ['localhost']\n"
    )
    assert scan(tmp_path, {"app/settings.py": source}, "settings") == []


# -- one finding per root cause: an image's cron; a temp file the caller removes ---------------


def test_an_images_cron_is_one_finding_at_the_dockerfile(tmp_path: Path) -> None:
    files = {
        "Dockerfile": (
            'FROM python:3.12\nCOPY crontab /etc/cron.d/app\nCMD ["gunicorn", "app.wsgi"]\n'
        ),
        "crontab": "*/5 * * * * python manage.py send_mail\n0 3 * * * python manage.py cleanup\n",
    }
    [finding] = scan(tmp_path, files, "image-cron")
    assert (finding.path, finding.line) == ("Dockerfile", 2)
    assert [(r.path, r.line) for r in finding.related] == [("crontab", 1), ("crontab", 2)]


def test_a_crontab_alone_is_one_finding_with_its_other_lines_related(tmp_path: Path) -> None:
    files = {"crontab": "*/5 * * * * python manage.py a\n0 3 * * * python manage.py b\n"}
    [finding] = scan(tmp_path, files, "image-cron")
    assert (finding.line, [r.line for r in finding.related]) == (1, [2])


def test_a_temp_file_removed_in_the_callers_finally_is_silent(tmp_path: Path) -> None:
    code = dedent(
        """\
        import os
        import tempfile
        def render(data):
            fd, path = tempfile.mkstemp(suffix=".pdf")
            with open(path, "wb") as fh:
                fh.write(data)
            return path
        def send(data, mail):
            path = render(data)
            try:
                mail.attach_file(path)
            finally:
                os.remove(path)
        """
    )
    assert scan(tmp_path, {"shop/pdf.py": code}, "file-write") == []
    # Left behind and used only here: this host's litter, read by no other request.
    leaked = code.replace(
        "    finally:\n        os.remove(path)\n", "    except OSError:\n        pass\n"
    )
    assert scan(tmp_path / "b", {"shop/pdf.py": leaked}, "file-write") == []
    # Left behind and handed to a task by path: the worker may run on another host.
    handed = leaked.replace("mail.attach_file(path)", "send_mail_later.delay(path)")
    assert where(scan(tmp_path / "c", {"shop/pdf.py": handed}, "file-write")) == [
        ("shop/pdf.py", 5)
    ]
