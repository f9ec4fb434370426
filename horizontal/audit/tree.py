"""The files an audit reads: the walk of a project tree and what it leaves out.

Kept apart from the scanners so that ``check --deploy`` can ask whether a project uses
django.tasks (``uses_tasks``) without importing every detector.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path

from horizontal.audit.patterns import lazy_compile

__all__ = [
    "examples_skipped",
    "is_project_root",
    "iter_files",
    "module_file",
    "projects_of",
    "read_text",
    "relative",
    "release_folders",
    "uses_tasks",
]

# Folders ``iter_files`` skips as a project's examples or demos, named in the summary so
# that a user who deploys one knows it was not read.
EXAMPLE_NAMES = frozenset({"demo", "demos", "example", "examples", "sample", "samples"})
# Never ours to audit: dependencies, build output, VCS, caches; migrations run once.
EXCLUDED_DIRS = EXAMPLE_NAMES | frozenset(
    {
        ".git",
        ".hg",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "env",
        ".env",
        "node_modules",
        "site-packages",
        "dist-packages",
        # Third-party code kept in the tree (``vendor-local/lib/python``): its authors'.
        "vendor",
        "vendor-local",
        "vendored",
        "third_party",
        "thirdparty",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "dist",
        "migrations",
        "tests",
        "test",
        "static",
        "staticfiles",
        "media",
        "locale",
        "fixtures",  # data for loaddata; code there generates it, run by hand
        # Test and demo support that does not live under tests/, and provisioning run by
        # hand (Vagrant; Ansible trees are read for their cron tasks alone, file_kinds):
        # neither is what a replica runs.
        "testing",
        "test_utils",
        "testutils",
        "systemtests",
        "system_tests",
        "integration_tests",
        "functional_tests",
        "acceptance_tests",
        "e2e",
        "e2e_tests",
        "cypress",  # the end-to-end test runners' own trees (their servers' configs too)
        "playwright",
        "loadtests",
        "load_tests",
        "vagrant",
        "provisioning",
        "localdev",
    }
)
# Folders of what runs beside the app, not in it: a documentation folder is a docs build's
# (mkdocs hooks, a Sphinx extension, scripts that fetch the API schema), a notebooks
# folder an analyst's (Jupyter, jupytext scripts run by hand), a monitoring server's
# folder its check plugins (``nagios/commands/check_rabbitmq.py``, run by that host);
# unless it is a Django app of its own (djangoproject.com's ``docs`` serves the
# documentation, django-munin's ``munin`` is an app): then it has the files an app has.
SUPPORT_DIRS = frozenset(
    {"doc", "docs", "documentation", "notebooks", "nagios", "icinga", "icinga2", "munin", "zabbix"}
)
APP_FILES = ("apps.py", "models.py", "views.py", "urls.py")
# ``build/`` is a build's output (setuptools' ``build/lib``), unless the project keeps its
# image there: a Dockerfile in it or one folder down (``build/app/Dockerfile``).
BUILD_DIR = "build"
# Hidden folders that hold what production runs (``.prod/uwsgi.ini``, Elastic
# Beanstalk's ``.platform/`` and ``.ebextensions/``, the ``.profile.d/`` scripts Heroku
# and Cloud Foundry run at each start); other dot folders are tools' own.
DEPLOYMENT_DOT_DIRS = frozenset(
    {
        ".prod",
        ".production",
        ".deploy",
        ".docker",
        ".platform",
        ".ebextensions",
        ".k8s",
        ".helm",
        ".profile.d",
    }
)
# Folders of examples named for what they hold (``local.d.examples``, ``conf-samples``,
# ``sample_conf_files``).
EXAMPLE_DIR = lazy_compile(r"[._-](examples?|samples?)$|^(examples?|samples?)[._-]")
# Folders of tests and their support named as such (``test_framework``, ``tests_e2e``,
# ``shuup_tests``, ``selenium-tests``), as test files are (``TEST_FILE``).
TEST_DIR = lazy_compile(r"^tests?[_-]|[_-]tests?$")
# A Django project kept to test or demonstrate the app (``testproject``, ``demo_project``,
# ``example_site``): its settings and URLs are a developer's, as ``demo/`` is.
DEMO_PROJECT_DIR = lazy_compile(r"^(tests?|demo|example|sample|dev)[-_]?(project|site)s?$")
# An unpacked release of another project kept in the tree (``py-mysql2pgsql-0.1.5``,
# ``jquery-ui-1.12.1``): its author's code, as site-packages is.
VENDORED_RELEASE = lazy_compile(r"^[A-Za-z][\w.]*(-[A-Za-z][\w.]*)*-v?\d+(\.\d+)+([.-]?\w+)?$")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip", ".whl")
# Tests and their support: test_x.py, tests_x.py, x_tests.py, conftest.py, a pytest plugin
# module (pytest_plugin.py, pytest_fixtures.py).
TEST_FILE = lazy_compile(r"(^tests?_.*|.*_tests?|^tests?|^conftest|^pytest_\w+)\.py$")

# Code that defines or enqueues django.tasks tasks (or the django-tasks backport's): a
# module that imports the framework (a docstring that names it is no import) and
# decorates, builds or enqueues a task, also as ``@django_tasks.task``, through a module
# alias (``import django_tasks as dt`` … ``@dt.task``, ``from django import tasks as dj``
# … ``@dj.task``) or under another name (``from django_tasks import task as background``
# … ``@background``).
TASK_FRAMEWORKS = ("django.tasks", "django_tasks")
TASK_USE = ("@task", ".enqueue(", ".aenqueue(", "task(", "tasks.task")


def uses_tasks(paths: Iterable[str | Path], exclude: Collection[str] = ()) -> bool:
    """Whether any Python file under ``paths`` imports django.tasks (or django_tasks) and
    defines or enqueues a task: only then does the tasks backend matter. Only files that
    name the framework are parsed, for their imports."""
    for root in paths:
        for path in iter_files(Path(root), exclude):
            if path.suffix != ".py":
                continue
            text = read_text(path)
            if text is None or not _may_import_tasks(text):
                continue
            spellings = _task_spellings(text)
            if spellings is not None and any(use in text for use in (*TASK_USE, *spellings)):
                return True
    return False


# ``from django import tasks`` (also among other names, or in parentheses): the package.
TASKS_FROM_DJANGO = lazy_compile(
    r"^[ \t]*from[ \t]+django[ \t]+import[ \t]+(\([^)]*|[^\n]*)\btasks\b", re.M
)


def _may_import_tasks(text: str) -> bool:
    """The framework named in the text: ``django.tasks``, ``django_tasks``, or the
    package imported from Django (``from django import tasks``; not ``from django import
    forms`` in a module that also imports ``.tasks``, which is most of a Celery project)."""
    return any(name in text for name in TASK_FRAMEWORKS) or (
        "from django import" in text and TASKS_FROM_DJANGO.search(text) is not None
    )


def _task_spellings(text: str) -> list[str] | None:
    """How this module writes the framework's ``task`` beyond ``TASK_USE`` (``@background``,
    ``dt.task``), or None when it does not import the framework."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    spellings: list[str] = []
    imported = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(TASK_FRAMEWORKS):
            imported = True
            for alias in node.names:
                if alias.name == "task" and alias.asname:
                    spellings += [f"@{alias.asname}", f"{alias.asname}("]
        elif isinstance(node, ast.ImportFrom) and node.module == "django" and not node.level:
            for alias in node.names:  # ``from django import tasks`` … ``@tasks.task``
                if alias.name == "tasks":
                    imported = True
                    spellings.append(f"{alias.asname or alias.name}.task")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(TASK_FRAMEWORKS):
                    imported = True
                    if alias.asname:
                        spellings.append(f"{alias.asname}.task")
    return spellings if imported else None


def iter_files(root: Path, exclude: Collection[str] = ()) -> Iterator[Path]:
    """Files under ``root`` (or ``root`` itself), skipping dependency and test trees."""
    if root.is_file():
        yield root
        return
    names_excluded, paths_excluded = _excluded(exclude)
    for directory, subdirs, names in os.walk(root):
        # A release vendored into a project sits beside the project's own files; a folder
        # that holds only folders and archives (sdists unpacked side by side) holds what
        # was asked for.
        releases_vendored = directory != str(root) or any(
            not n.startswith(".") and not n.endswith(ARCHIVE_SUFFIXES) for n in names
        )
        subdirs[:] = sorted(
            d
            for d in subdirs
            if d not in EXCLUDED_DIRS
            and d not in names_excluded
            and not (paths_excluded and _excluded_path(root, Path(directory, d), paths_excluded))
            and (not d.startswith(".") or d in DEPLOYMENT_DOT_DIRS)
            and not EXAMPLE_DIR.search(d)
            and not TEST_DIR.search(d)
            and not DEMO_PROJECT_DIR.match(d)
            and not (releases_vendored and VENDORED_RELEASE.match(d))
            and (d not in SUPPORT_DIRS or _is_an_app(Path(directory, d)))
            and (d != BUILD_DIR or _holds_an_image(Path(directory, d)))
        )
        for name in sorted(names):
            if name.endswith(".py") and TEST_FILE.match(name):
                continue
            yield Path(directory, name)


EXAMPLES_NAMED = 3


def examples_skipped(paths: Iterable[str | Path]) -> list[str]:
    """The example and demo folders (``example_project/``, ``demo/``) in the first two
    levels under each folder of ``paths``, which the walk leaves out, relative to the
    current folder."""
    found: list[str] = []
    for root in map(Path, paths):
        levels = [root] if root.is_dir() else []
        for depth in range(2):
            below: list[Path] = []
            for folder in levels:
                try:
                    children = sorted(p for p in folder.iterdir() if p.is_dir())
                except OSError:
                    continue
                for child in children:
                    if _is_example(child.name):
                        found.append(relative(os.path.abspath(child), os.getcwd()) + "/")
                    elif depth == 0 and not (
                        child.name in EXCLUDED_DIRS
                        or child.name in SUPPORT_DIRS
                        or child.name.startswith(".")
                        or TEST_DIR.search(child.name)
                    ):
                        below.append(child)  # a folder the walk reads
            levels = below
    return found


def _is_example(name: str) -> bool:
    return (
        name in EXAMPLE_NAMES
        or EXAMPLE_DIR.search(name) is not None
        or (DEMO_PROJECT_DIR.match(name) is not None and not name.startswith("test"))
    )


def _excluded(exclude: Collection[str]) -> tuple[set[str], list[str]]:
    """``--exclude`` values: folder names (``legacy``), and paths (``app/legacy``,
    ``./legacy``), which name one folder, not every folder called ``legacy``."""
    names: set[str] = set()
    paths: list[str] = []
    for value in exclude:
        cleaned = value.strip().rstrip("/")
        if "/" in cleaned:
            paths.append(cleaned.removeprefix("./"))
        else:
            names.add(cleaned)
    return names, paths


def _excluded_path(root: Path, folder: Path, paths: list[str]) -> bool:
    """``folder`` is one of ``paths``: from the current directory (as the shell completes
    it), or from the audited folder (``horizontal-audit project --exclude app/legacy``)."""
    absolute = os.path.abspath(folder)
    inside = folder.relative_to(root).as_posix()
    return any(absolute == os.path.abspath(path) or inside == path for path in paths)


def projects_of(paths: Iterable[str | Path]) -> list[list[str | Path]]:
    """``paths`` as the projects to judge apart, so that one's code never decides
    another's settings: releases unpacked side by side (``pretix-2026.8.0/``,
    ``weblate-5.9/``) one by one; so are several paths given that are each a project's
    root (``horizontal-audit shop/ billing/``, each with its ``manage.py`` or packaging);
    every other path together, as one project (``backend/ deploy/``)."""
    together: list[str | Path] = []
    alone: list[list[str | Path]] = []
    for root in paths:
        releases = release_folders(Path(root))
        if releases is None:
            together.append(root)
        else:
            alone += [[release] for release in releases]
    roots = [path for path in together if is_project_root(Path(path))]
    if len(roots) >= 2:
        alone = [[root] for root in roots] + alone
        together = [path for path in together if path not in roots]
    return [together, *alone] if together or not alone else alone


# What a project's root holds: its Django entry point, or its packaging.
PROJECT_ROOT_FILES = ("manage.py", "pyproject.toml", "setup.py", "setup.cfg")


def is_project_root(folder: Path) -> bool:
    """A folder that holds a project of its own at its top (``manage.py``, packaging)."""
    return folder.is_dir() and any((folder / name).is_file() for name in PROJECT_ROOT_FILES)


def release_folders(root: Path) -> list[Path] | None:
    """The folders of a folder that holds unpacked releases side by side and nothing else
    (every folder named for a release, or every one a project's root; every file an
    archive or hidden), each a project of its own; None for any other path."""
    try:
        entries = list(os.scandir(root)) if root.is_dir() else []
    except OSError:
        return None
    if any(
        entry.is_file()
        and not entry.name.startswith(".")
        and not entry.name.endswith(ARCHIVE_SUFFIXES)
        for entry in entries
    ):
        return None
    folders = sorted(
        Path(entry.path)
        for entry in entries
        if entry.is_dir() and not entry.name.startswith(".") and entry.name not in EXCLUDED_DIRS
    )
    # Every folder a release: a repository whose root holds folders only (``backend/``,
    # ``deploy/``, ``tools-1.2/``) is one project.
    if folders and all(VENDORED_RELEASE.match(f.name) for f in folders):
        return folders
    # Or every folder a project's root (``wafer/``, ``devilry/``, each with its
    # ``manage.py`` or packaging): checkouts or sdists unpacked side by side.
    if len(folders) >= 2 and all(is_project_root(f) for f in folders):
        return folders
    return None


def _is_an_app(folder: Path) -> bool:
    return any(folder.joinpath(name).is_file() for name in APP_FILES)


def _holds_an_image(folder: Path) -> bool:
    return any(
        path.name == "Dockerfile" or path.name.endswith(".Dockerfile")
        for pattern in ("*", "*/*")
        for path in folder.glob(pattern)
    )


def relative(absolute: str, base: str) -> str:
    """``absolute`` relative to ``base`` with forward slashes (string work for the common
    case of a file under ``base``; ``../`` paths for one outside it)."""
    prefix = base.rstrip(os.sep) + os.sep
    if absolute.startswith(prefix):
        inside = absolute[len(prefix) :]
    else:
        try:
            inside = os.path.relpath(absolute, base)
        except ValueError:  # another drive on Windows
            inside = absolute
    return inside.replace(os.sep, "/")


# What marks a repository's root: its paths there are what a baseline and SARIF use.
REPOSITORY_MARKERS = (".git", ".hg", ".svn")


def repository_paths(paths: Collection[str], base: str | None = None) -> Callable[[str], str]:
    """How a file given relative to ``base`` (default: the working directory) is named
    for baselines and SARIF: relative to the root of the repository that holds it (the
    nearest folder above it with a ``.git``, ``.hg`` or ``.svn``; a submodule's own), or,
    outside any repository, to the audited ``paths`` entry that holds it. The same file
    gets the same name from any working directory, in any order of ``paths``:
    ``horizontal-audit ..`` run from ``src/``, ``horizontal-audit .`` at the root and
    ``horizontal-audit repo`` above it key it alike."""
    base = os.path.abspath(base or os.getcwd())
    given = sorted((os.path.realpath(p) for p in paths), key=lambda p: len(p), reverse=True)
    roots: dict[str, str | None] = {}  # folder -> its repository root

    def repository_root(folder: str) -> str | None:
        if folder not in roots:
            if any(os.path.exists(os.path.join(folder, m)) for m in REPOSITORY_MARKERS):
                roots[folder] = folder
            else:
                parent = os.path.dirname(folder)
                roots[folder] = None if parent == folder else repository_root(parent)
        return roots[folder]

    def rebase(name: str) -> str:
        absolute = os.path.realpath(os.path.join(base, name))
        root = repository_root(os.path.dirname(absolute))
        if root is None:
            holders = [p for p in given if absolute == p or absolute.startswith(p + os.sep)]
            root = holders[0] if holders else None
            if root is not None and not os.path.isdir(root):
                root = os.path.dirname(root)
        return relative(absolute, root) if root is not None else name

    return rebase


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def module_file(paths: Iterable[str], dotted: str) -> str | None:
    """The one path of ``paths`` a dotted module name means (``a.b``: ``…/a/b.py`` or
    ``…/a/b/__init__.py``; the tree may be scanned from above the import root), or None
    when none or several do."""
    stem = dotted.replace(".", "/")
    tails = (f"{stem}.py", f"{stem}/__init__.py")
    matches = [
        path for path in paths if any(path == tail or path.endswith(f"/{tail}") for tail in tails)
    ]
    return matches[0] if len(matches) == 1 else None
