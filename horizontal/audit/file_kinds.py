"""Which scanner reads a non-Python file, chosen by its name and place.

Dockerfiles, crontabs, shell start scripts (and the ``.profile`` a platform runs at each
start), Procfiles, uWSGI and supervisor files, nginx and Caddy sites, Kubernetes
manifests; files named for a test run, examples under ``docs/``, files in a development
folder (``compose/local/``), files of a project template
(``{{ cookiecutter.project_slug }}/``) and web server sites named for development
(``Caddyfile.dev``) are read by none. Paths only (``shell_if_shebang`` also reads the
first line).
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable, Iterable

from horizontal.audit import deploy, dockerfiles, manifests, platform_files, web_servers
from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.script_names import ENTRYPOINT_NAME

TextDetector = Callable[[str, str], Iterable[Finding]]

# nginx's own folders: site files there often have no extension (sites-enabled/default).
NGINX_DIR = lazy_compile(r"/nginx[\w.-]*/(.+/)?[^/]+$|/(sites-enabled|sites-available)/[^/]+$")
DOCUMENTATION = lazy_compile(r"/(docs?|documentation)/")
# A folder named by a template variable: {{ cookiecutter.project_slug }}/, {{project}}/.
TEMPLATED = lazy_compile(r"\{\{|\{%")
# A line a template's block tag opens (``{% if first %}``, ``{%- for … -%}``): no Python.
TEMPLATE_BLOCK_LINE = lazy_compile(r"^[ \t]*\{%[^\n]*", re.M)


def is_python_template(text: str) -> bool:
    """A ``.py`` file that is a template (Sphinx's ``conf.tpl.py``): it parses once the
    lines its block tags open are blanked. Broken Python that holds a template in a
    string (``Template(\"\"\"{% load static %}…\"\"\")``) still does not."""
    if not TEMPLATE_BLOCK_LINE.search(text):
        return False
    try:
        ast.parse(TEMPLATE_BLOCK_LINE.sub("", text))
    except (SyntaxError, ValueError, RecursionError):
        return False
    return True


DEVELOPMENT_CONFIG = lazy_compile(r"(^|[-_.])(dev|development|local)([-_.]|$)")
RENDERED_SUFFIX = lazy_compile(r"\.(j2|jinja2?|tpl|tmpl|template)$", re.I)
# mySociety's deploy hooks, run on every server of the site (not once per deploy, as a
# platform's ``post_deploy.sh`` is).
EVERY_HOST_HOOK = lazy_compile(r"^(pre|post)_deploy_actions\.bash$")
# A folder of the developer's environment (``compose/local/``, ``docker/dev/``, a local
# Kubernetes's ``tools/minikube/``), beside the production one; not an image's ``usr/local/``.
DEVELOPMENT_FOLDER = lazy_compile(r"/(?<!usr/)(local|dev|development|minikube)/")
PROVISIONING = lazy_compile(r"/ansible/")
# Tools' own ini files: never a server's configuration.
NOT_UWSGI_INI = frozenset({"tox.ini", "pytest.ini", "setup.cfg", "mypy.ini", "alembic.ini"})
# ``dockerfile_exec_gunicorn.sh``, ``Dockerfile.md``: named for an image, but a script or
# a page (``Dockerfile.prod`` and ``Dockerfile-web`` are images).
NOT_DOCKERFILE = (".sh", ".bash", ".py", ".md", ".rst", ".txt", ".json", ".yml", ".yaml")
# A start script, image or manifest for tests: entrypoint-unit-tests.sh, Dockerfile.test,
# start-e2e.sh.
TEST_START_FILE = lazy_compile(
    r"(^|[-_.])((unit|integration|e2e|smoke)[-_]?)?tests?([-_.]|$)|(^|[-_.])(testing|e2e)([-_.]|$)"
)


def text_detector(path: str) -> TextDetector | None:
    """The scanner for a non-Python file, chosen by its name, or None."""
    # ``nginx-site.conf.j2``, ``crontab.tpl``: a file a deploy renders, read as what it
    # renders to (a Jinja expression in it reads as an unknown word).
    name = RENDERED_SUFFIX.sub("", posixpath.basename(path)) or posixpath.basename(path)
    lower = name.lower()
    parent = posixpath.basename(posixpath.dirname(path))
    if TEST_START_FILE.search(lower):
        return None  # what a test run starts, not a replica
    if TEMPLATED.search(path):
        return None  # a project template's file (cookiecutter, copier): rendered elsewhere
    if DEVELOPMENT_FOLDER.search(f"/{path}"):
        return None  # compose/local/django/start, docker/dev/Dockerfile: a developer's
    if DOCUMENTATION.search(f"/{path}"):
        return None  # examples a reader adapts, not what this project deploys
    if is_provisioning(path):
        # A role is applied by hand; only the cron jobs and timers it installs keep
        # running, on every host it provisions.
        return manifests.find_provisioned_jobs if lower.endswith((".yaml", ".yml")) else None
    if (
        lower.startswith(("dockerfile", "containerfile")) and not lower.endswith(NOT_DOCKERFILE)
    ) or lower.endswith(".dockerfile"):
        return dockerfiles.find_in_dockerfile

    if lower.startswith("crontab") or lower.endswith((".crontab", ".cron")):
        # ``crontab-example``, ``crontab.sample``: a reader adapts it; nothing installs it.
        return None if EXAMPLE_FILE.search(lower) else deploy.find_in_crontab
    if parent in {"cron.d", "crontabs"} and "." not in name:
        return deploy.find_in_crontab
    if name == ".profile" or (parent == ".profile.d" and lower.endswith(".sh")):
        return platform_files.find_in_platform_profile  # Heroku's and Cloud Foundry's start hook
    if EVERY_HOST_HOOK.match(lower):
        return platform_files.find_in_every_host_hook  # run on each server a deploy reaches
    if lower.endswith((".sh", ".bash")):
        return deploy.find_in_shell
    if lower.endswith((".service", ".service.j2", ".service.tpl", ".service.in")):
        return platform_files.find_in_systemd_unit
    if lower in {"heroku.yml", "heroku.yaml"}:
        return platform_files.find_in_heroku_yml  # Heroku's container stack: its run: section
    if lower.startswith("procfile"):
        # ``Procfile.dev``: the processes a developer runs (honcho, foreman).
        return None if DEVELOPMENT_CONFIG.search(lower) else platform_files.find_in_procfile
    server_config = "uwsgi" in lower or "supervisor" in lower
    if lower.endswith((".ini", ".conf")) and server_config and DEVELOPMENT_CONFIG.search(lower):
        return None  # supervisord-dev.conf, uwsgi.local.ini: a developer's processes
    if lower.endswith((".ini", ".conf")) and server_config:
        return deploy.find_in_server_config
    if lower.endswith(".ini") and lower not in NOT_UWSGI_INI:
        return deploy.find_in_uwsgi_section  # cashbook.ini: a uWSGI config by its [uwsgi]
    if lower.endswith(".env") and "uwsgi" in lower:  # UWSGI_STATIC_MAP=…: uWSGI's env form
        return deploy.find_in_server_config
    if DEVELOPMENT_CONFIG.search(lower) and (lower.startswith("caddyfile") or "nginx" in path):
        return None  # Caddyfile.dev, nginx.local.conf: the development server's site
    if (lower.endswith(".conf") and "nginx" in lower) or NGINX_DIR.search(f"/{path}"):
        return web_servers.find_in_nginx
    if APACHE_SITE.search(lower) and not DEVELOPMENT_CONFIG.search(lower):
        return web_servers.find_in_apache  # apache2-vhost.conf.example: the site it ships
    if lower.endswith(".conf") and not DEVELOPMENT_CONFIG.search(lower):
        return nginx_if_server_block  # default.conf: the name nginx's image gives a site
    if lower.startswith("caddyfile"):
        return web_servers.find_in_caddyfile
    if lower.endswith((".yaml", ".yml")) and not COMPOSE_NAME.search(lower):
        return manifest_or_uwsgi
    if "." not in name and ENTRYPOINT_NAME.search(name):
        return shell_if_shebang
    return None


# uWSGI's YAML form: a top-level ``uwsgi:`` mapping of the same options as the ini's.
UWSGI_YAML = lazy_compile(r"^uwsgi:\s*$", re.M)
YAML_OPTION = lazy_compile(r"^\s*([\w-]+):\s*(\S.*?)\s*$")


def manifest_or_uwsgi(path: str, text: str) -> Iterable[Finding]:
    """A YAML file is a Kubernetes (or other) manifest, or uWSGI's config in YAML."""
    if "uwsgi:" in text and UWSGI_YAML.search(text):
        return deploy.find_in_server_config(path, _yaml_as_ini(text))
    return manifests.find_in_manifest(path, text)


def _yaml_as_ini(text: str) -> str:
    """``  static-map: /media=/app/media`` read as ``static-map = /media=/app/media``, line
    for line (the findings keep the YAML's line numbers)."""
    lines = []
    for line in text.splitlines():
        option = YAML_OPTION.match(line)
        lines.append(f"{option[1]} = {option[2]}" if option else line)
    return "\n".join(lines)


# A file named as an example of itself (``crontab-example``, ``crontab.sample``).
EXAMPLE_FILE = lazy_compile(r"[._-](example|examples|sample|dist)([._-]|$)")


def is_provisioning(path: str) -> bool:
    """A file of an Ansible tree: provisioning an operator applies."""
    return "ansible" in path and bool(PROVISIONING.search(f"/{path}"))


# An Apache site the project ships (``apache.conf``, ``httpd-vhost.conf.example``).
APACHE_SITE = lazy_compile(r"(apache|httpd|vhost)[\w.-]*\.conf([._-](example|sample|dist))?$")


# An nginx site, whatever the file is called: ``server {`` at the start of a line.
NGINX_SERVER_BLOCK = lazy_compile(r"^\s*server\s*\{", re.M)


def nginx_if_server_block(path: str, text: str) -> Iterable[Finding]:
    if "server" in text and NGINX_SERVER_BLOCK.search(text):
        return web_servers.find_in_nginx(path, text)
    return ()


def shell_if_shebang(path: str, text: str) -> Iterable[Finding]:
    first = text.split("\n", 1)[0]
    if first.startswith("#!") and ("sh" in first or "bash" in first):
        return deploy.find_in_shell(path, text)
    return ()


def is_compose_file(path: str) -> bool:
    """``docker-compose.yml``, ``compose.override.yaml``: not scanned (what a compose
    file starts is a development stack as often as not), but read for what it starts."""
    return bool(COMPOSE_NAME.search(posixpath.basename(path)))


# ``docker-compose.yml``, ``compose.prod.yaml``, and the stack named first
# (``minimal.docker-compose.yml``, ``prod-compose.yml``).
COMPOSE_NAME = lazy_compile(r"(^|[._-])(docker-)?compose([._-][\w.-]*)?\.ya?ml$", re.I)


def is_dockerfile(path: str) -> bool:
    return text_detector(path) is dockerfiles.find_in_dockerfile
