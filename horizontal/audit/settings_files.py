"""Which files are Django settings modules, and which of those are not production's.

A settings module is named so (``settings.py``, ``settings/prod.py``,
``celery_settings.py``) or assigns core settings at column 0 whatever its name. One for
development, tests or a demo is named so (``settings/dev.py``, ``test_settings.py``) or
sets ``DEBUG = True`` literally; the audit leaves those out. The runner asks here which
files to read as settings, the services detector which to leave to them. Paths, text and
parsed source only.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Set as AbstractSet
from pathlib import Path

from horizontal.audit.patterns import lazy_compile
from horizontal.audit.source import PythonModule
from horizontal.audit.tree import read_text

__all__ = [
    "KNOWN_SETTINGS",
    "is_dev_module",
    "is_dev_settings",
    "is_served",
    "is_settings_path",
    "looks_like_settings",
    "only_tested",
    "served_settings",
    "settings_template_module",
    "started_settings",
    "tested_settings",
]

# settings.py, prod_settings.py, settings/prod.py and the modules of a settings package's
# subfolders (settings/abstract_base/django.py, settings/components/database.py).
SETTINGS_FILE = lazy_compile(r"(^|/)(settings[^/]*|[^/]*_settings|settings/([^/]+/)*[^/]+)\.py$")
DEV_FILE = lazy_compile(
    r"(^\.?|[/_])(dev|develop|development|local|test|tests|testing|loadtest|integration(?![a-z])|smoke|ci|debug|demo|example"
    # CI settings named for the CI service that runs the tests (settings/github.py); a
    # template an operator copies (secret_template.py); the documentation build's (sphinx.py,
    # docs.py); an image build step's (compress_production.py, collectstatic.py): no request
    # runs it.
    r"|sample|github|gitlab|travis|circleci|jenkins|tox|template|sphinx|docs|compress|collectstatic)"
    # ... and the hidden form (.ci.settings.py), or joined by a hyphen (travis-local.py).
    r"([\w-]*|\.settings)\.py$"
)
SETTINGS_MARKERS = (
    "INSTALLED_APPS",
    "DATABASES",
    "SECRET_KEY",
    "MIDDLEWARE",
    "ALLOWED_HOSTS",
    "DEFAULT_FILE_STORAGE",
    "STORAGES",
    "CACHES",
)
# A module that assigns none of these is no Django settings module, whatever its name.
KNOWN_SETTINGS = (*SETTINGS_MARKERS, "ROOT_URLCONF")


# ``\nINSTALLED_APPS =``, ``\nCACHES: dict = …``, ``\nINSTALLED_APPS += […]`` at column 0.
CORE_SETTING_ASSIGNED = lazy_compile(r"\n(" + "|".join(KNOWN_SETTINGS) + r")(?: =|:| \+=)")


def is_settings_path(path: str) -> bool:
    return bool(SETTINGS_FILE.search(path))


def looks_like_settings(text: str) -> bool:
    """A module that assigns two or more core Django settings at column 0, whatever its
    name (``docker/config.py``, ``conf/production.py``); extending a base's list
    (``INSTALLED_APPS += [...]``) and naming the URLconf count, as in a module that
    star-imports its base (``conf/caseworker.py``)."""
    # One pattern for the nine names (27 substring scans of every module cost 7% of a scan).
    found = set(CORE_SETTING_ASSIGNED.findall(text))
    if len(found) >= 2:
        return True
    # ``conf/production.py``: ``from .base import *``, then the deployment's own tweaks
    # (``SESSION_ENGINE``, ``SECURE_PROXY_SSL_HEADER``): a settings module of its package.
    # ``staging.py``: ``os.environ.setdefault(…)`` for the base to read, then the import.
    # (``str.find`` first: the multiline pattern over every module costs 5% of a scan.)
    star = "import *" in text and bool(RELATIVE_STAR_IMPORT.search(text))
    return star and (
        "\nos.environ.setdefault(" in text
        or any(f"\n{name} =" in text for name in (*SETTINGS_MARKERS, *DEPLOYMENT_TWEAKS))
    )


RELATIVE_STAR_IMPORT = lazy_compile(r"^from[ \t]+\.[\w.]*[ \t]+import[ \t]+\*", re.M)
DEPLOYMENT_TWEAKS = (
    "DEBUG",
    "SESSION_ENGINE",
    "STATICFILES_STORAGE",
    "SECURE_PROXY_SSL_HEADER",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "EMAIL_BACKEND",
)


# A project folder named for development (devproject/settings.py, demo_site/settings.py).
DEV_PROJECT = lazy_compile(
    r"(^|/)(dev|development|demo|example|sample|test)[-_]?(project|site|app)?/"
    # A development folder that holds the settings themselves (``project/develop/settings/``;
    # not any folder named ``develop/``, which may be a git-flow checkout's own name).
    r"|(^|/)(develop|devel)/settings(/|\.py$)"
)


def is_dev_settings(path: str) -> bool:
    name = TEMPLATE_SUFFIX.sub("", posixpath.basename(path))  # local.py.template: local.py
    return bool(DEV_FILE.search(name) or DEV_PROJECT.search(path))


# The words that name a module an operator copies rather than one a developer runs.
COPY_WORD = lazy_compile(r"[_-]?(template|sample|example)(?=[\w-]*\.py$)")


def is_copy_named(path: str) -> bool:
    """Development-named only by a word for a copy (``settings_template.py``): such a module
    that another settings module star-imports is no copy but their base."""
    folder, name = posixpath.split(path)
    stripped = posixpath.join(folder, COPY_WORD.sub("", name, count=1))
    return is_dev_settings(path) and not is_dev_settings(stripped)


# A Python module's template: ``docker.py.template``, ``settings.py.tpl``, ``….py.j2``, and
# the copy an operator or an image makes of ``environment_settings.py.dist`` (``local.py-dist``,
# ``settings.py.sample``, ``settings_deployment.py.example``).
TEMPLATE_SUFFIX = lazy_compile(r"(?<=\.py)(\.(template|tpl|tmpl|j2)|[.-](dist|sample|example))$")
# A copy's suffix: the module it makes, when the tree has it too, is what runs.
COPY_SUFFIX = lazy_compile(r"(?<=\.py)[.-](dist|sample|example)$")
# An example's or a sample's: read only inside one of the project's packages.
SAMPLE_SUFFIX = lazy_compile(r"(?<=\.py)[.-](sample|example)$")
TEMPLATE_TAG = lazy_compile(r"\{%.*?%\}")
TEMPLATE_PLACEHOLDER = lazy_compile(r"\{\{.*?\}\}")
# A template filled with Python's ``%`` operator: ``DEBUG = %(debug)s``.
PERCENT_PLACEHOLDER = lazy_compile(r"%\(\w+\)[sdr]")


def settings_template_module(path: Path, name: str) -> PythonModule | None:
    """A settings template or copy read as the module it becomes, or None: not when the
    module it makes (or a settings package) is in the tree, which is what runs; not an
    example outside the project's packages (documentation); not Python as written."""
    if (made := COPY_SUFFIX.sub("", path.name)) != path.name and (
        path.with_name(made).exists() or path.with_name(made.removesuffix(".py")).is_dir()
    ):
        return None
    if SAMPLE_SUFFIX.search(name) and not path.with_name("__init__.py").exists():
        return None
    text = read_text(path)
    if text is None or not looks_like_settings(text):
        return None
    return PythonModule.parse(name, untemplated(text))


def untemplated(text: str) -> str:
    """A settings template read as Python: its tags out, its placeholders a word (Jinja's
    ``{{ name }}``, ``%``-formatting's ``%(name)s``); the line numbers are kept."""
    text = TEMPLATE_PLACEHOLDER.sub("x", TEMPLATE_TAG.sub("", text))
    return PERCENT_PLACEHOLDER.sub("x", text) if "%(" in text else text


# os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evap.settings") in wsgi.py / asgi.py.
# A commented-out line serves nothing.
SERVED_SETTINGS = lazy_compile(
    r"""^[^#\n]*setdefault\(\s*["']DJANGO_SETTINGS_MODULE["']\s*,\s*["']([\w.]+)["']\s*\)""",
    re.M,
)


def served_settings(name: str, text: str) -> set[str]:
    """The settings modules a ``wsgi.py`` or ``asgi.py`` serves when nothing is set."""
    if posixpath.basename(name) not in {"wsgi.py", "asgi.py"}:
        return set()
    return set(SERVED_SETTINGS.findall(text))


def started_settings(name: str, text: str) -> set[str]:
    """The settings modules any other program of the project defaults to (``manage.py``,
    a console script's ``server.py``, ``celery.py``): what its commands and workers run.
    Not production's by that alone (``manage.py`` often names the developer's module),
    but not the test runner's alone either. A test runner's own script (``runtests.py``)
    starts nothing."""
    if "DJANGO_SETTINGS_MODULE" not in text or "test" in posixpath.basename(name):
        return set()
    return set(SERVED_SETTINGS.findall(text))


def only_tested(tested: AbstractSet[str], started: AbstractSet[str]) -> frozenset[str]:
    """The modules a test runner names that no program of the project starts with:
    pytest.ini's ``core.settings.label_studio`` is production's too where ``manage.py``
    and the console script default to it."""
    return frozenset(
        t
        for t in tested
        if not any(s == t or s.endswith("." + t) or t.endswith("." + s) for s in started)
    )


def is_served(path: str, served: AbstractSet[str]) -> bool:
    """Whether ``wsgi.py``/``asgi.py`` default to the module at ``path``."""
    dotted = path[: -len(".py")].removesuffix("/__init__").replace("/", ".")
    return any(dotted == s or dotted.endswith("." + s) for s in served)


# The test runner's own configuration files, and how they name the settings it runs
# (pytest-django's ``DJANGO_SETTINGS_MODULE = app.settings.djangotest``, ``--ds=...``).
TEST_RUNNER_CONFIGS = frozenset({"pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"})
TESTED_SETTINGS = lazy_compile(
    r"""(?:\bDJANGO_SETTINGS_MODULE\s*=\s*|--ds[= ])["']?([\w.]+)""", re.M
)
# The names a production module goes by: a test runner pointed at one of these (many are,
# ``bookwyrm.settings``) runs production's settings, which says nothing of them.
PRODUCTION_NAMES = lazy_compile(
    r"^(settings|__init__|base|common|default|defaults|prod|production|live|deploy|"
    r"deployed|server|staging|docker|heroku|main|core|global|conf|config)\.py$"
)


def tested_settings(name: str, text: str) -> set[str]:
    """The settings modules a test runner's configuration file points at."""
    if posixpath.basename(name) not in TEST_RUNNER_CONFIGS or "DJANGO_SETTINGS" not in text:
        return set()
    return set(TESTED_SETTINGS.findall(text))


def is_test_runners(path: str, tested: AbstractSet[str], served: AbstractSet[str]) -> bool:
    """A module only the test runner is pointed at (``settings/djangotest.py``): named
    by pytest's or tox's configuration, served by no ``wsgi.py``, and not named as
    production's modules are."""
    if not tested or PRODUCTION_NAMES.match(posixpath.basename(path)):
        return False
    return is_served(path, tested) and not is_served(path, served)


def _extends_a_dev_module(module: PythonModule) -> bool:
    """A module whose base, its first star import, is a development or test module by its
    name (``from app.settings.testing import *``). An override star-imported later
    (``from .local_settings import *`` at the end) is the operator's, not the base."""
    for node in module.tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            base = (node.module or "").rsplit(".", 1)[-1] + ".py"
            return is_dev_settings(base) and not is_copy_named(base)
    return False


def is_dev_module(
    module: PythonModule,
    children: dict[str, list[PythonModule]],
    served: AbstractSet[str] = frozenset(),
    tested: AbstractSet[str] = frozenset(),
) -> bool:
    """A development, test or demo module: named so, or setting ``DEBUG = True`` literally
    (unless a production module star-imports it: then it is a base, overridden there; or
    ``wsgi.py`` serves it when nothing is set: then it is what a deployment gets, its
    overrides kept outside the repository). ``children``: for each module's path, the
    modules that star-import it; ``served``: the dotted modules the wsgi files default to;
    ``tested``: those the test runner's configuration names."""
    # ``settings_ecs.py``: ``from .settings_template import *``: no copy but a base.
    copied_base = is_copy_named(module.path) and any(
        not is_dev_settings(c.path) for c in children.get(module.path, [])
    )
    if not copied_base and (
        _dev_named(module, children, served, tested) or is_test_runners(module.path, tested, served)
    ):
        return True
    if _extends_a_dev_module(module):
        return True  # ``from app.settings.testing import *``: the tests' settings, amended
    if is_served(module.path, served):
        return False
    if _literal_debug(module) is not True:
        return False
    importers = children.get(module.path, [])
    return not any(not _dev_named(c, children, served, tested) for c in importers)


# ``local`` names a developer's module (``settings/local.py``) and as often a deployment's
# own overrides (``local_settings.py`` beside production's base).
LOCAL_WORD = lazy_compile(r"local(?=[\w-]*\.py$)")


def _dev_named(
    module: PythonModule,
    children: dict[str, list[PythonModule]],
    served: AbstractSet[str],
    tested: AbstractSet[str],
) -> bool:
    """Named for development, unless ``local`` is its only such word, it turns ``DEBUG``
    off literally and it is a layer of production's settings: a production module
    star-imports it (``from .local_settings import *`` at the end), or it is the only
    module beside development ones that extends its base (allianceauth's
    ``settings/local.py``: ``from .base import *``, ``DEBUG = False``). One the test runner
    is pointed at, one beside a ``production.py`` that extends the same base, and a
    standalone one (a build step's: ``DEBUG = False``, ``SECRET_KEY = '1234'``) are not."""
    if not is_dev_settings(module.path):
        return False
    folder, name = posixpath.split(module.path)
    unnamed = posixpath.join(folder, LOCAL_WORD.sub("", name, count=1))
    if is_dev_settings(unnamed) or _literal_debug(module) is not False:
        return True
    if is_test_runners(module.path, tested, served):
        return True
    if any(not is_dev_settings(c.path) for c in children.get(module.path, [])):
        return False  # production's module extends it
    bases = [path for path, importers in children.items() if module in importers]
    beside = (c for base in bases for c in children[base] if c is not module and c.path != base)
    return not bases or any(not is_dev_settings(c.path) for c in beside)


def _literal_debug(module: PythonModule) -> object:
    """The value of the module's last top-level ``DEBUG = <literal>``, else None."""
    debug = [
        s
        for s in module.tree.body
        if isinstance(s, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "DEBUG" for t in s.targets)
    ]
    if not debug or not isinstance(debug[-1].value, ast.Constant):
        return None
    return debug[-1].value.value
