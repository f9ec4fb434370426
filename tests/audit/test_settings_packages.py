"""Settings split over a package (``horizontal/audit/settings_modules.settings_packages``):
a production module that star-imports a subpackage of bases, a module that imports the
production one, and a base value the production module sets again."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

BASE = (
    "INSTALLED_APPS = []\nMIDDLEWARE = []\nALLOWED_HOSTS = []\n"
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': 'db.sqlite3'}}\n"
    "MEDIA_ROOT = 'media'\n"
)
PROD = (
    "from .abstract_base import *\n"
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'HOST': 'db'}}\n"
    "MEDIA_ROOT = '/srv/media'\n"
)
PACKAGE = {
    "site/settings/abstract_base/__init__.py": "from .django import *\n",
    "site/settings/abstract_base/django.py": BASE,
    "site/settings/prod.py": PROD,
    "site/settings/beta.py": "from .prod import *\nSITE_URL = 'https://beta.example'\n",
}


def test_a_base_in_a_subpackage_is_replaced_by_the_production_module(tmp_path: Path) -> None:
    found = scan(tmp_path, PACKAGE, "settings")
    # SQLite is replaced in prod.py (and so for beta.py, which imports prod.py); MEDIA_ROOT
    # without a storage is decided where production sets it, the base's line related.
    assert where(found) == [("site/settings/prod.py", 3)]
    assert found[0].message.startswith("MEDIA_ROOT with no STORAGES")
    assert [(r.path, r.line) for r in found[0].related] == [
        ("site/settings/abstract_base/django.py", 5)
    ]


def test_a_base_the_production_module_does_not_replace_is_found_in_the_base(
    tmp_path: Path,
) -> None:
    files = dict(PACKAGE, **{"site/settings/prod.py": PROD.replace("DATABASES", "OTHER")})
    found = scan(tmp_path, files, "settings")
    assert ("site/settings/abstract_base/django.py", 4) in where(found)


def test_a_module_of_a_settings_subfolder_is_read_whatever_it_assigns(tmp_path: Path) -> None:
    # No core Django setting in it: read because it lives in the settings package.
    search = "SEARCH_CONNECTION = {'nodes': [{'host': 'localhost', 'port': '8108'}]}\n"
    files = dict(PACKAGE, **{"site/settings/abstract_base/search.py": search})
    files["site/settings/abstract_base/__init__.py"] += "from .search import *\n"
    found = scan(tmp_path, files, "settings")
    assert ("site/settings/abstract_base/search.py", 1) in where(found)
    elsewhere = {"site/search/search.py": search}
    assert scan(tmp_path / "b", elsewhere, "settings") == []


SERVED = (
    "DEBUG = True\nINSTALLED_APPS = []\nMIDDLEWARE = []\n"
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache', "
    "'LOCATION': 'redis://127.0.0.1:6379/0'}}\n"
    "try:\n    from site.localsettings import *\nexcept ImportError:\n    pass\n"
)
WSGI = (
    "import os\nfrom django.core.wsgi import get_wsgi_application\n"
    'os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site.settings")\n'
    "application = get_wsgi_application()\n"
)


def test_a_debug_module_that_wsgi_serves_by_default_is_production(tmp_path: Path) -> None:
    # Its overrides live in a localsettings.py outside the repository: what is here is
    # what a deployment gets.
    found = scan(tmp_path, {"site/settings.py": SERVED, "site/wsgi.py": WSGI}, "settings")
    assert where(found) == [("site/settings.py", 4)]
    other = WSGI.replace("site.settings", "site.production")
    assert (
        scan(tmp_path / "b", {"site/settings.py": SERVED, "site/wsgi.py": other}, "settings") == []
    )


def test_settings_in_a_project_folder_named_for_development_are_silent(tmp_path: Path) -> None:
    production = SERVED.replace("DEBUG = True\n", "")
    assert scan(tmp_path, {"devproject/settings.py": production}, "settings") == []
    assert where(scan(tmp_path / "b", {"devices/settings.py": production}, "settings")) == [
        ("devices/settings.py", 3)
    ]


def test_a_served_module_keeps_what_the_modules_importing_it_replace(tmp_path: Path) -> None:
    # wsgi.py serves site/settings.py when nothing is set; docker_settings.py replaces its
    # DATABASES, but a deployment that sets nothing still gets settings.py's localhost.
    settings = (
        "import os\nINSTALLED_APPS = []\nMIDDLEWARE = []\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql',\n"
        "    'HOST': os.environ.get('DB_HOST', 'localhost')}}\n"
    )
    docker = (
        "from .settings import *\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
        "'HOST': 'localhost', 'PORT': '5434'}}\n"
    )
    files = {"site/settings.py": settings, "site/docker_settings.py": docker, "site/wsgi.py": WSGI}
    found = scan(tmp_path, files, "settings")
    places = {(f.path, f.line) for f in found} | {
        (r.path, r.line) for f in found for r in f.related
    }
    assert ("site/settings.py", 5) in places
    # Served elsewhere: the importing module decides, and the base's value is not run.
    other = dict(files, **{"site/wsgi.py": WSGI.replace("site.settings", "site.docker_settings")})
    found = scan(tmp_path / "b", other, "settings")
    assert ("site/settings.py", 5) not in {(f.path, f.line) for f in found} | {
        (r.path, r.line) for f in found for r in f.related
    }


def test_a_commented_out_setdefault_serves_nothing(tmp_path: Path) -> None:
    settings = (
        "INSTALLED_APPS = []\nMIDDLEWARE = []\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql',\n"
        "    'HOST': 'localhost'}}\n"
    )
    docker = "from .settings import *\nDATABASES = {'default': {'HOST': 'db.internal'}}\n"
    wsgi = WSGI.replace(
        'os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site.settings")',
        '# os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site.settings")\n'
        'os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site.docker_settings")',
    )
    files = {"site/settings.py": settings, "site/docker_settings.py": docker, "site/wsgi.py": wsgi}
    assert ("site/settings.py", 4) not in where(scan(tmp_path, files, "settings"))


APP_SETTINGS = (
    "from core.settings.base import *\n"
    "from django.core.management.utils import get_random_secret_key\n"
    "SECRET_KEY = get_random_secret_key()\n"
)


def _app_tree(manage_names: str) -> dict[str, str]:
    return {
        "app/pytest.ini": "[pytest]\nDJANGO_SETTINGS_MODULE = core.settings.app\n",
        "app/manage.py": (
            f"import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', '{manage_names}')\n"
        ),
        "app/core/settings/base.py": "INSTALLED_APPS = []\n",
        "app/core/settings/app.py": APP_SETTINGS,
    }


def test_a_module_the_test_runner_and_manage_py_both_name_is_read(tmp_path: Path) -> None:
    # pytest.ini points at the module production runs too: not the test runner's alone.
    found = scan(tmp_path, _app_tree("core.settings.app"), "settings")
    assert where(found) == [("app/core/settings/app.py", 3)]


def test_a_module_only_the_test_runner_names_is_silent(tmp_path: Path) -> None:
    found = scan(tmp_path, _app_tree("core.settings.base"), "settings")
    assert where(found) == []
