"""``horizontal-audit`` (horizontal/audit/cli.py): the console script runs without a Django
project, takes ``manage.py audit``'s options, counts in the singular and prints paths
relative to the current directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"


def horizontal_audit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The console script's entry point in a fresh interpreter with no Django settings."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    code = "import sys; from horizontal.audit.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_console_script_is_declared_in_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["horizontal-audit"] == "horizontal.audit.cli:main"


def test_one_finding_is_singular_and_fails_the_run(tmp_path: Path) -> None:
    (tmp_path / "entrypoint.sh").write_text(
        "#!/bin/sh\npython manage.py migrate\nexec gunicorn app.wsgi\n"
    )
    done = horizontal_audit(".", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("entrypoint.sh:2: boot-migrate: ")
    assert "1 finding in 1 file (" in done.stderr
    assert "1 finding at or above 'warning'." in done.stderr
    assert "findings" not in done.stderr


def test_no_finding_exits_0_without_django(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def add(a, b):\n    return a + b\n")
    done = horizontal_audit(str(tmp_path), "--format", "json", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "[]\n")
    assert "0 findings in 1 file (" in done.stderr


def test_paths_outside_the_current_directory_are_relative_to_it(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = horizontal_audit("../project", "--fail-on", "never", cwd=elsewhere)
    assert done.returncode == 0
    assert done.stdout.startswith("../project/entrypoint.sh:2: boot-migrate: ")


def test_the_options_are_the_management_commands(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    deploy = str(CORPUS / "deploy")
    written = horizontal_audit(deploy, "--write-baseline", str(baseline), cwd=tmp_path)
    assert written.returncode == 0 and baseline.exists()
    done = horizontal_audit(
        deploy, "--baseline", str(baseline), "--category", "boot-migrate", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    broken = horizontal_audit(deploy, "--baseline", str(tmp_path / "missing.json"), cwd=tmp_path)
    assert broken.returncode == 2
    assert "Cannot read baseline" in broken.stderr


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("[1, 2]", "not a horizontal audit baseline"),
        ("not json", "Cannot read baseline"),
        ('{"version": 1}', "'findings' must be a list of entries"),
        ('{"version": 1, "findings": "abc"}', "'findings' must be a list of entries"),
        ('{"version": 1, "findings": [{"category": "x"}]}', "each with a 'fingerprint'"),
        ('{"version": 1, "findings": [{"fingerprint": "a", "related": 3}]}', "'findings'"),
    ],
)
def test_a_malformed_baseline_is_bad_input_not_a_traceback(
    tmp_path: Path, content: str, said: str
) -> None:
    (tmp_path / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
    (tmp_path / "baseline.json").write_text(content)
    done = horizontal_audit(".", "--baseline", "baseline.json", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr


def test_a_baseline_that_cannot_be_written_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
    done = horizontal_audit(".", "--write-baseline", "missing/baseline.json", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Cannot write baseline:" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        # A name: every folder so named.
        ("legacy", []),
        # A path, from the audited folder or the current one: that folder alone, not
        # another whose path ends the same way.
        ("app/legacy", ["project/other/app/legacy/entrypoint.sh"]),
        ("./project/app/legacy/", ["project/other/app/legacy/entrypoint.sh"]),
        ("project/app/legacy", ["project/other/app/legacy/entrypoint.sh"]),
        # ``./legacy`` is a path: the folder legacy/ of the current directory, none here.
        (
            "./legacy",
            ["project/app/legacy/entrypoint.sh", "project/other/app/legacy/entrypoint.sh"],
        ),
    ],
)
def test_exclude_takes_a_folder_name_or_a_path(tmp_path: Path, given: str, kept: list[str]) -> None:
    for folder in ("project/app/legacy", "project/other/app/legacy"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
    (tmp_path / "project" / "app" / "views.py").write_text("def home(request):\n    pass\n")
    done = horizontal_audit("project", "--exclude", given, "--format", "json", cwd=tmp_path)
    found = sorted(finding["path"] for finding in json.loads(done.stdout))
    assert found == kept, done.stderr


def test_the_pre_commit_hook_runs_the_console_script() -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "id: horizontal-audit" in hooks
    assert "entry: horizontal-audit" in hooks
    assert "pass_filenames: false" in hooks


def test_a_file_this_python_cannot_parse_is_named_as_not_audited(tmp_path: Path) -> None:
    # A write the audit would report, in a file with a syntax error (as newer syntax
    # looks to an older interpreter): the summary names it instead of passing in silence.
    (tmp_path / "views.py").write_text("def export(:\n    open('/data/x', 'w')\n")
    (tmp_path / "ok.py").write_text("def add(a, b):\n    return a + b\n")
    done = horizontal_audit(".", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 file not audited: Python 3." in done.stderr
    assert "(views.py)" in done.stderr
    (tmp_path / "views.py").write_text("def export():\n    return 1\n")
    assert "not audited" not in horizontal_audit(".", cwd=tmp_path).stderr


def test_a_template_named_py_is_not_named_as_not_audited(tmp_path: Path) -> None:
    # Sphinx's ``conf.tpl.py``: Jinja tags make it no Python until it is rendered.
    template = '{% if first %}\ntitle = "{{ site.title }}"\n{% endif %}\nopen("/data/x", "w")\n'
    (tmp_path / "conf.tpl.py").write_text(template)
    (tmp_path / "ok.py").write_text("def add(a, b):\n    return a + b\n")
    done = horizontal_audit(".", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "not audited" not in done.stderr
    # An f-string's doubled brace in a file that does not parse is no template.
    broken = 'label = f"{{x}}"\ndef export(:\n    open("/data/x", "w")\n'
    (tmp_path / "conf.tpl.py").write_text(broken)
    assert "1 file not audited" in horizontal_audit(".", cwd=tmp_path).stderr
    # Nor is a template held in a string of broken Python.
    inline = 'T = """\n{% load static %}\n"""\ndef export(:\n    open("/data/x", "w")\n'
    (tmp_path / "conf.tpl.py").write_text(inline)
    assert "1 file not audited" in horizontal_audit(".", cwd=tmp_path).stderr


def test_the_summary_names_the_example_folders_left_out(tmp_path: Path) -> None:
    # A user who deploys ``example_project/`` learns that it was not read, and how to.
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "views.py").write_text("def add(a, b):\n    return a + b\n")
    assert "Not audited" not in horizontal_audit(".", cwd=tmp_path).stderr
    for folder in ("example_project", "shop/demo", "docs/examples", "tests/demo"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "settings.py").write_text("DEBUG = True\n")
    done = horizontal_audit(".", cwd=tmp_path)
    assert (
        "Not audited, as examples, demos or a developer's project: example_project/, "
        "shop/demo/; to read one, give its folder as a PATH." in done.stderr
    ), done.stderr


@pytest.mark.parametrize(
    ("production", "named"),
    [(None, True), ("from .base import *\nDEBUG = False\n", False)],
    ids=["every-module-a-developers", "a-production-module-beside"],
)
def test_the_summary_says_when_no_settings_module_was_judged(
    tmp_path: Path, production: str | None, named: bool
) -> None:
    """allianceauth's template once gave "0 findings" and no word why: its only settings
    were read as a developer's. The summary names them; with a production module beside
    them it says nothing."""
    settings = tmp_path / "proj" / "settings"
    settings.mkdir(parents=True)
    (settings / "base.py").write_text("DEBUG = True\nINSTALLED_APPS = []\nROOT_URLCONF = 'u'\n")
    if production is not None:
        (settings / "production.py").write_text(production)
    done = horizontal_audit(".", cwd=tmp_path)
    said = "Settings not judged: proj/settings/base.py read as development or test settings"
    assert (said in done.stderr) is named, done.stderr


REGISTRY = "_ACTIVE = {}\ndef remember(key, value):\n    _ACTIVE[key] = value\n"
LOG_SETTINGS = (
    "INSTALLED_APPS = []\nMIDDLEWARE = []\n"
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    "LOGGING = {'version': 1, 'handlers': {'file': {'class': 'logging.FileHandler', "
    "'filename': '/var/log/app.log'}}}\n"
)


@pytest.mark.parametrize(
    ("category", "path", "source", "first_line"),
    [
        ("module-state", "app/registry.py", REGISTRY, "app/registry.py:1: module-state:"),
        ("log-file", "site/settings.py", LOG_SETTINGS, "site/settings.py:4: log-file: LOGGING:"),
    ],
)
def test_an_opt_in_category_is_reported_only_when_asked_for(
    tmp_path: Path, category: str, path: str, source: str, first_line: str
) -> None:
    folder = path.split("/", 1)[0]
    (tmp_path / folder).mkdir()
    (tmp_path / path).write_text(source)
    default = horizontal_audit(folder, cwd=tmp_path)
    assert default.returncode == 0, default.stdout
    extended = horizontal_audit(folder, "--extend-category", category, cwd=tmp_path)
    assert extended.returncode == 1
    assert extended.stdout.startswith(first_line)
    only = horizontal_audit(folder, "--category", category, cwd=tmp_path)
    assert only.stdout == extended.stdout


def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path: Path) -> None:
    # A mistyped path audits nothing: "0 findings in 0 files" must not pass a CI job.
    (tmp_path / "app.py").write_text("def add(a, b):\n    return a + b\n")
    done = horizontal_audit(".", "nonexistent_dir", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "No such file or directory: nonexistent_dir" in done.stderr
    assert done.stdout == ""


COMPRESS_SETTINGS = 'INSTALLED_APPS = ["compressor"]\nCOMPRESS_ENABLED = True\n'


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_a_template_found_by_a_relative_path_is_named_relative_to_the_base(
    tmp_path: Path, where: str
) -> None:
    # The template that asks for compression is related to the setting's finding; it
    # was named by the path the walk gave, and a relative one stopped the run.
    project = tmp_path / "project"
    (project / "templates").mkdir(parents=True)
    (project / "settings.py").write_text(COMPRESS_SETTINGS)
    (project / "templates" / "base.html").write_text("{% load compress %}\n{% compress css %}\n")
    cwd = project if where == "inside" else tmp_path / "elsewhere"
    cwd.mkdir(exist_ok=True)
    path = "." if where == "inside" else "../project"
    done = horizontal_audit(path, "--fail-on", "never", cwd=cwd)
    assert done.returncode == 0, done.stderr
    prefix = "" if where == "inside" else "../project/"
    assert done.stdout.startswith(f"{prefix}settings.py:2: settings: COMPRESS_OFFLINE is off")
    assert f"also: {prefix}templates/base.html:2" in done.stdout


def test_unpacked_releases_side_by_side_are_audited(tmp_path: Path) -> None:
    # A folder named for a release (``shop-2.1.0``) inside a project is a vendored copy
    # of someone else's code; a folder holding only such folders holds the projects.
    for release in ("shop-2.1.0", "billing-1.0.3"):
        (tmp_path / release).mkdir()
        (tmp_path / release / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
        (tmp_path / f"{release}.tar.gz").write_bytes(b"")
    done = horizontal_audit(".", "--fail-on", "never", cwd=tmp_path)
    assert done.stderr.startswith("2 findings in 2 files"), done.stderr
    (tmp_path / "manage.py").write_text("import django\n")
    done = horizontal_audit(".", "--fail-on", "never", cwd=tmp_path)
    assert done.stderr.startswith("0 findings in 3 files"), done.stderr


def test_releases_side_by_side_are_judged_one_by_one(tmp_path: Path) -> None:
    # shop's settings leave CACHES unset; only billing's code keeps a counter in the
    # cache. Audited together, billing's code would decide shop's settings.
    shop, billing = tmp_path / "shop-2.1.0" / "shop", tmp_path / "billing-1.0.3" / "billing"
    shop.mkdir(parents=True)
    billing.mkdir(parents=True)
    (shop / "settings.py").write_text("INSTALLED_APPS = ['shop']\n")
    (shop / "models.py").write_text("from django.db import models\n")
    (billing / "settings.py").write_text(
        "INSTALLED_APPS = ['billing']\nCACHES = {'default': {'BACKEND': 'x.Redis'}}\n"
    )
    (billing / "views.py").write_text(
        "from django.core.cache import cache\n\n\ndef pay(request):\n    cache.incr('payments')\n"
    )
    (billing / "models.py").write_text("from django.db import models\n")
    done = horizontal_audit(".", "--fail-on", "never", cwd=tmp_path)
    assert "CACHES is not set" not in done.stdout, done.stdout
    # The same two apps in one project: the counter is the project's.
    done = horizontal_audit(".", "--fail-on", "never", cwd=tmp_path / "billing-1.0.3")
    assert done.returncode == 0
    linked = tmp_path / "links"
    linked.mkdir()
    (linked / "billing-1.0.3").symlink_to(tmp_path / "billing-1.0.3")
    done = horizontal_audit(".", "--fail-on", "never", cwd=linked)
    assert done.stderr.startswith("0 findings in 3 files"), done.stderr


def _shop_and_billing(root: Path, marker: str, marker_text: str) -> None:
    """Two projects under ``root``, each with ``marker`` at its top: shop leaves CACHES
    unset, billing sets it and keeps a counter in the cache."""
    for name, settings, code in (
        ("shop", "INSTALLED_APPS = ['shop']\n", "from django.db import models\n"),
        (
            "billing",
            "INSTALLED_APPS = ['billing']\nCACHES = {'default': {'BACKEND': 'x.Redis'}}\n",
            "from django.core.cache import cache\n\n\ndef pay(request):\n"
            "    cache.incr('payments')\n",
        ),
    ):
        package = root / name / name
        package.mkdir(parents=True)
        (root / name / marker).write_text(marker_text)
        (package / "settings.py").write_text(settings)
        (package / "views.py").write_text(code)


def test_project_folders_side_by_side_are_judged_one_by_one(tmp_path: Path) -> None:
    # Checkouts unpacked into one folder with no version in their names, each with its
    # own packaging: billing's cache counter must not decide shop's unset CACHES.
    _shop_and_billing(tmp_path / "src", "pyproject.toml", "[project]\n")
    done = horizontal_audit(".", "--fail-on", "never", cwd=tmp_path / "src")
    assert "CACHES is not set" not in done.stdout, done.stdout
    # Its twin: a folder beside them that is no project's root makes the whole one project.
    (tmp_path / "src" / "deploy").mkdir()
    (tmp_path / "src" / "deploy" / "Procfile").write_text("web: gunicorn shop.wsgi\n")
    done = horizontal_audit(".", "--fail-on", "never", cwd=tmp_path / "src")
    assert "CACHES is not set" in done.stdout, done.stdout


def test_projects_given_side_by_side_are_judged_one_by_one(tmp_path: Path) -> None:
    # Two projects named on one command line, each with its own manage.py: billing's
    # cache counter must not decide shop's unset CACHES.
    _shop_and_billing(tmp_path, "manage.py", "import django\n")
    done = horizontal_audit("shop", "billing", "--fail-on", "never", cwd=tmp_path)
    assert "CACHES is not set" not in done.stdout, done.stdout
    # Its twin: one project's code and its deploy folder, given apart, are one project.
    (tmp_path / "billing" / "manage.py").unlink()
    (tmp_path / "shop" / "shop" / "views.py").write_text(
        "from django.core.cache import cache\n\n\ndef pay(request):\n    cache.incr('n')\n"
    )
    (tmp_path / "shop" / "shop" / "views.py").rename(tmp_path / "billing" / "billing" / "pay.py")
    done = horizontal_audit("shop", "billing", "--fail-on", "never", cwd=tmp_path)
    assert "CACHES is not set" in done.stdout, done.stdout


def test_a_folder_with_nothing_to_audit_is_bad_input(tmp_path: Path) -> None:
    # A folder of links to folders (not followed), or of tests only: nothing read, no pass.
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "test_views.py").write_text("open('x', 'w')\n")
    done = horizontal_audit("app", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("Nothing to audit in app:"), done.stderr


@pytest.mark.parametrize("marker", [".git", None])
def test_a_baseline_matches_from_any_folder(tmp_path: Path, marker: str | None) -> None:
    # Written at the repository's root, read from a subfolder and from above it: the
    # fingerprints name the file from the root, whatever the working directory.
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    if marker:
        (repo / marker).mkdir()
    (repo / "src" / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
    baseline = tmp_path / "baseline.json"
    written = horizontal_audit(".", "--write-baseline", str(baseline), cwd=repo)
    assert written.returncode == 0, written.stderr
    for path, cwd in (("..", repo / "src"), ("repo", tmp_path), (str(repo), tmp_path / "repo")):
        done = horizontal_audit(path, "--baseline", str(baseline), cwd=cwd)
        assert (done.returncode, done.stderr) == (
            0,
            "0 findings in 1 file (0 suppressed inline, 1 in the baseline).\n",
        ), (path, cwd)


def test_sarif_locations_are_relative_to_the_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "deploy").mkdir()
    (repo / "deploy" / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = horizontal_audit("../repo", "--format", "sarif", "--fail-on", "never", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    # Text and JSON name it from the working directory; SARIF from %SRCROOT%, the root.
    [result] = json.loads(done.stdout)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "deploy/entrypoint.sh", "uriBaseId": "%SRCROOT%"}


def test_a_baseline_keyed_from_the_folder_it_was_written_in_still_matches_there(
    tmp_path: Path,
) -> None:
    # Written before fingerprints named files from the repository's root: ``manage.py``
    # in ``site/`` below the root, the baseline's paths relative to ``site/``.
    (tmp_path / ".git").mkdir()
    site = tmp_path / "site"
    site.mkdir()
    (site / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
    from horizontal.audit.runner import scan_paths
    from horizontal.audit.suppress import write_baseline

    baseline = tmp_path / "old-baseline.json"
    write_baseline(baseline, scan_paths([site], base=site).findings)
    done = horizontal_audit(".", "--baseline", str(baseline), cwd=site)
    assert done.returncode == 0, done.stderr
    assert "1 in the baseline" in done.stderr


def test_a_baseline_of_several_trees_matches_in_any_order(tmp_path: Path) -> None:
    # Each file is named from its own repository's root (a submodule's own), whatever
    # order the trees are given in and wherever the audit runs.
    for repo in ("shop", "shop/billing"):
        (tmp_path / repo / ".git").mkdir(parents=True)
        (tmp_path / repo / "entrypoint.sh").write_text("#!/bin/sh\npython manage.py migrate\n")
    baseline = tmp_path / "baseline.json"
    done = horizontal_audit("shop", "shop/billing", "--write-baseline", str(baseline), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for args, cwd in (
        (("shop/billing", "shop"), tmp_path),
        (("billing",), tmp_path / "shop"),
        ((".",), tmp_path / "shop"),
    ):
        done = horizontal_audit(*args, "--baseline", str(baseline), cwd=cwd)
        assert done.returncode == 0, (args, cwd, done.stdout)
