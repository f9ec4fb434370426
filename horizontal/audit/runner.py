"""Walk a project tree, send each file to the scanners for its kind, apply suppressions.

Python files are parsed once and handed to every Python detector. Files whose text
cannot contain any finding (no trigger word at all) are not parsed: parsing is most of
the cost, and most modules in a large tree are models, forms and tests of pure logic.
What needs every file read (commands' writes spared, memos judged, one finding per cause,
the settings) is judged after the walk, in ``project_pass``.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from horizontal.audit import (
    boot_threads,
    caches,
    concurrency,
    cron_jobs,
    datadirs,
    field_paths,
    files,
    import_admins,
    importers,
    in_process_locks,
    migrate_commands,
    repeating_commands,
    services,
    state,
    task_results,
)
from horizontal.audit import compose as compose_rules
from horizontal.audit.cache_backends import cache_subclasses
from horizontal.audit.cache_wipes import find_startup_cache_wipes
from horizontal.audit.code_uses import note_uses
from horizontal.audit.compressor import is_template
from horizontal.audit.file_kinds import (
    is_compose_file,
    is_provisioning,
    is_python_template,
    text_detector,
)
from horizontal.audit.findings import (
    DEFAULT_CATEGORIES,
    SETTINGS_CATEGORIES,
    AuditResult,
    Finding,
    Location,
    merged_results,
)
from horizontal.audit.prefilter import hot_lines
from horizontal.audit.project_context import ProjectContext
from horizontal.audit.python_starts import (
    execs_a_server,
    find_in_python_start,
    find_migrate_then_serve,
    is_python_start,
)
from horizontal.audit.row_resets import find_startup_row_resets
from horizontal.audit.settings_classes import CONFIGURATION_BASES, production_configuration
from horizontal.audit.settings_files import (
    DEV_FILE,
    TEMPLATE_SUFFIX,
    TEST_RUNNER_CONFIGS,
    is_settings_path,
    looks_like_settings,
    served_settings,
    settings_template_module,
    started_settings,
    tested_settings,
)
from horizontal.audit.settings_secrets import find_config_secret_keys
from horizontal.audit.source import PythonModule, run_by_hand
from horizontal.audit.storage_classes import (
    STORAGE_BUILT,
    storage_class_findings,
    storage_subclasses,
)
from horizontal.audit.suppress import is_suppressed
from horizontal.audit.tree import iter_files, module_file, projects_of, read_text, relative

if TYPE_CHECKING:
    from horizontal.audit import settings_helpers

# A migration outside a migrations/ folder (MIGRATION_MODULES = {"app": "app.db_migrations"}).
MIGRATION_MODULE = "(migrations.Migration)"
PythonDetector = Callable[[PythonModule], Iterable[Finding]]
PYTHON_DETECTORS: tuple[PythonDetector, ...] = (
    state.find_module_state,
    caches.find_memoised_reads,
    files.find_file_writes,
    in_process_locks.find_in_process_locks,
    concurrency.find_timer_threads,
    concurrency.find_schedulers,
    concurrency.find_startup_migrate,
    find_startup_cache_wipes,
    find_startup_row_resets,
    services.find_local_services,
    task_results.find_task_returned_paths,
    find_config_secret_keys,
)


# The upload fields shown beside the media setting's finding, the first few.
UPLOAD_FIELDS_SHOWN = 10


def scan_paths(
    paths: Sequence[str | Path],
    *,
    categories: Collection[str] | None = None,
    base: str | Path | None = None,
    exclude: Collection[str] = (),
) -> AuditResult:
    """Audit files and trees; finding paths are relative to ``base`` (default: cwd).
    ``categories`` None: every category but the opt-in ones (``DEFAULT_CATEGORIES``)."""
    wanted = set(categories) if categories is not None else set(DEFAULT_CATEGORIES)
    groups = projects_of(paths)
    results = []
    for group in groups:
        scan = Scan(os.path.abspath(base or os.getcwd()), wanted)
        seen: set[str] = set()
        for root in group:
            for path in iter_files(Path(root), exclude):
                absolute = os.path.abspath(path)
                if absolute not in seen:
                    seen.add(absolute)
                    scan.file(path, relative(absolute, scan.base))
        results.append(scan.finish())
    return merged_results(results)


class Scan:
    """One audit run: what was read (for suppressions) and what settings were seen."""

    def __init__(self, base: str, wanted: set[str]) -> None:
        self.base = base
        self.wanted = wanted
        self.result = AuditResult()
        self.texts: dict[str, list[str]] = {}
        self.python_texts: list[tuple[str, str]] = []  # every module's, for command_callers
        self.compress_tag: Location | None = None  # a template's {% compress %}
        self.private_media_uses: list[Location] = []  # django-privates' fields, storages
        self.import_admins: list[import_admins.ImportAdmin] = []  # django-import-export's
        self.import_confirm_skipped = False  # IMPORT_EXPORT_SKIP_ADMIN_CONFIRM = True
        self.settings_groups: dict[str, list[PythonModule]] = {}
        # Dotted paths of the project's own FileSystemStorage subclasses (app.storage.Media).
        self.local_storages: set[str] = set()
        # Dotted paths of the project's own LocMem or file cache backends, to what they extend.
        self.local_caches: dict[str, str] = {}
        # Data folders (settings.X_DIR) written and read, paired once every module is read.
        self.data_writes: list[datadirs.Use] = []
        self.data_reads: list[datadirs.Use] = []
        self.media_folders: set[str] = set()
        # Uploads read by local path (x.document.path), kept once a model declares the field.
        self.field_names = field_paths.FieldNames()
        # Their declarations on the default storage, related to the media setting's finding.
        self.upload_fields: list[Location] = []
        self.field_path_uses: list[field_paths.PathUse] = []
        # Settings modules wsgi.py/asgi.py default to (DJANGO_SETTINGS_MODULE's setdefault).
        self.served_settings: set[str] = set()
        self.started_settings: set[str] = set()  # named by manage.py, a console script, ...
        self.tested_settings: set[str] = set()  # named by pytest.ini, tox.ini, ...
        # Project modules each file imports, and the commands and scripts (importers.py).
        self.imports: dict[str, set[str]] = {}
        self.by_hand: set[str] = set()
        self.command_only: set[str] = set()  # modules only commands import, once all are read
        # Lines of project code that write through Django's cache (feature_use.WRITE_METHODS).
        self.cache_writes: list[Location] = []
        # The project's FileSystemStorage subclasses defined in code (name to the class
        # line) and the storage classes code instantiates (``data = DataStorage()``).
        self.storage_classes: dict[str, Finding] = {}
        self.storages_built: set[str] = set()
        # Looping thread classes (dotted path to the class line) and the threads start-up
        # code of other modules starts (boot_threads.py).
        self.looping_threads: dict[str, Location] = {}
        self.boot_starts: list[boot_threads.BootStart] = []
        # Functions other modules' start-up code calls, and those that start looping threads.
        # (read only once a starter is known: most projects have none).
        self.boot_texts: list[tuple[str, str]] = []
        self.looping_starters: dict[str, list[boot_threads.LoopingStarter]] = {}
        # Service addresses a project helper defaults to this host, and what settings read
        # through helpers (settings_helpers.py).
        self.host_defaults: list[settings_helpers.HostDefault] = []
        self.helper_uses: list[settings_helpers.HelperUses] = []
        # Project commands that run migrate with no lock: name to the line (deploy.py).
        self.migrate_commands: dict[str, Location] = {}
        self.settings_read: set[str] = set()  # upper-case names code reads off settings
        # Project commands that sleep between runs, by name (repeating jobs when supervised).
        self.sleeping_commands: dict[str, repeating_commands.SleepingCommand] = {}
        # What the project as a whole says about findings (project_context.py).
        self.context = ProjectContext()
        # Every file read, by its path in the tree (the programs start lines run).
        self.paths: set[str] = set()
        # Template files, read only when a settings module installs django-compressor.
        self.templates: list[Path] = []
        # Project modules parsed on request by dotted name (settings' helpers), or None.
        self.modules_named: dict[str, PythonModule | None] = {}

    def file(self, path: Path, name: str) -> None:
        self.result.files += 1
        self.paths.add(name)
        if posixpath.basename(name) == "Vagrantfile" and (text := read_text(path)):
            self.context.note_vagrantfile(name, text)
        if name.endswith(".py"):
            findings = () if is_provisioning(name) else self.python(path, name)
            if is_python_start(name) and (text := read_text(path)) is not None:
                findings = chain(findings, find_in_python_start(name, text))
        elif TEMPLATE_SUFFIX.search(name):
            self.settings_template(path, name)
            findings = ()
        else:
            if is_template(name):
                self.templates.append(path)
            findings = self.other(path, name)
        for finding in findings:
            self.keep(finding)

    def finish(self) -> AuditResult:
        """Judge what needs every file read (``project_pass``), and return the result."""
        from horizontal.audit.project_pass import judge_project

        return judge_project(self)

    def module_named(self, dotted: str) -> PythonModule | None:
        """The scanned module a dotted import name means (``horizon.utils.secret_key``:
        the one file of the tree at ``…/horizon/utils/secret_key.py`` or its package's
        ``__init__.py``), parsed once; None when it is not in the tree or is ambiguous."""
        if dotted not in self.modules_named:
            name = module_file(self.paths, dotted)
            text = read_text(Path(self.base, name)) if name else None
            self.modules_named[dotted] = PythonModule.parse(name, text) if name and text else None
        return self.modules_named[dotted]

    def keep(self, finding: Finding, judged: bool = False) -> None:
        if is_suppressed(finding, self.texts.get(finding.path, [])) and (
            judged or finding.category != "cache"  # a memo's, once judged (memo_clears.py)
        ):
            self.result.suppressed += 1
        else:
            self.result.findings.append(finding)

    def other(self, path: Path, name: str) -> Iterator[Finding]:
        if posixpath.basename(name) in TEST_RUNNER_CONFIGS and (text := read_text(path)):
            self.tested_settings |= tested_settings(name, text)
        detector = text_detector(name)
        if detector is None and is_compose_file(name):
            compose = read_text(path)
            if compose is not None:  # read for the scripts it starts (starts.py)
                self.texts[name] = compose.splitlines()
                if self.wanted & {"boot-migrate", "boot-reset", "scheduler", "settings"}:
                    found = compose_rules.find_in_compose(name, self.texts[name])
                    yield from (f for f in found if f.category in self.wanted)
            return
        if detector is None and cron_jobs.may_be_installed_crontab(name):
            # ``scripts/app-crontasks``: no rule of its own, but a hook that installs it
            # as ``/etc/cron.d/app-crontasks`` is judged by its jobs (cron_jobs.py).
            if (crontab := read_text(path)) is not None:
                self.texts[name] = crontab.splitlines()
            return
        text = read_text(path) if detector else None
        if detector is None or text is None:
            return
        self.texts[name] = text.splitlines()
        yield from (f for f in detector(name, text) if f.category in self.wanted)

    def settings_template(self, path: Path, name: str) -> None:
        """``conf_templates/docker.py.template``, ``settings.py.tpl``: a settings module an
        image copies into place or an installer renders, judged with the settings when it
        is Python as written (a Jinja template with ``{{ }}`` in code is not)."""
        if not self.wanted & SETTINGS_CATEGORIES or is_provisioning(name):
            return
        if (module := settings_template_module(path, name)) is not None:
            self.texts[name] = module.lines
            self.settings_groups.setdefault(posixpath.dirname(name), []).append(module)

    def python(self, path: Path, name: str) -> Iterator[Finding]:
        text = read_text(path)
        if text is None or MIGRATION_MODULE in text:
            return  # unreadable, or a migration: it runs once, in migrate
        by_hand = run_by_hand(name, text)
        self.python_texts.append((name, text))
        note_uses(self, name, text, by_hand)
        if "Storage(" in text and not by_hand:
            self.storages_built.update(STORAGE_BUILT.findall(text))
        if "import" in text:
            self.imports[name] = importers.imported_names(name, text)
        if by_hand:
            self.by_hand.add(name)
            if command := migrate_commands.migrate_wrapper(name, text):
                self.migrate_commands[command[0]] = Location(name, command[1])
            if sleeping := repeating_commands.sleeping_command(name, text):
                self.sleeping_commands[sleeping.name] = sleeping
        self.served_settings |= served_settings(name, text)
        self.started_settings |= started_settings(name, text)
        if "LocMemCache" in text or "FileBasedCache" in text:
            self.local_caches.update(cache_subclasses(name, text))
        self.context.note_python(name, text)
        if not is_python_start(name) and execs_a_server(text) and not by_hand:
            # A console script's entry function that ends as the server (``squad``); a
            # ``__main__`` program is one by its name only (``docker-entrypoint.py``).
            yield from find_in_python_start(name, text)
        if "boot-migrate" in self.wanted:
            # A program that migrates and then serves in its own process (``openslides
            # start``), whether or not it is run by hand: it is how replicas start.
            yield from find_migrate_then_serve(name, text)
        self.field_names.note(name, text)
        room = UPLOAD_FIELDS_SHOWN - len(self.upload_fields)
        if room > 0 and not by_hand:
            self.upload_fields += field_paths.upload_field_lines(name, text)[:room]
        if not by_hand:
            self.field_path_uses += field_paths.path_uses(name, text)
        # Settings modules are read for the file-write category too: a data folder's
        # finding names where its setting is assigned.
        settings = bool(self.wanted & (SETTINGS_CATEGORIES | {"file-write"})) and (
            is_settings_path(name) or looks_like_settings(text)
        )
        lines = hot_lines(text)
        threads = not by_hand and boot_threads.may_involve_threads(text)
        if not by_hand and boot_threads.may_call_at_boot(text):
            self.boot_texts.append((name, text))
        if lines is None and not settings and not threads:
            return
        module = PythonModule.parse(name, text, lines or ())
        if module is None:
            # A template with a ``.py`` name (Sphinx's ``conf.tpl.py``) is rendered before
            # Python reads it: no Python left unaudited.
            if not is_python_template(text):
                self.result.unparsed.append(name)
            return
        self.texts[name] = module.lines
        if "FileSystemStorage" in text:
            self.local_storages.update(storage_subclasses(module, name))
            if not settings and not by_hand:
                self.storage_classes.update(storage_class_findings(module))
        if "settings" in self.wanted:  # read for the settings category alone
            self._note_helpers(module, name, text, settings)
        if settings:
            self.settings_groups.setdefault(posixpath.dirname(name), []).append(
                production_configuration(module)
                if any(base in text for base in CONFIGURATION_BASES)
                else module
            )
            self.media_folders |= datadirs.media_folders(module)
        if threads:
            self.looping_threads.update(boot_threads.looping_threads(module))
            self.boot_starts += boot_threads.boot_starts(module)
            self.looping_starters.update(boot_threads.looping_starters(module))
        writes, reads = datadirs.data_folder_uses(module)
        self.data_writes += writes
        self.data_reads += reads
        yield from self.detect(module)

    def _note_helpers(self, module: PythonModule, name: str, text: str, settings: bool) -> None:
        """What settings read through the project's helpers, and the service addresses
        helpers default to this host (settings_helpers.py)."""
        from horizontal.audit import settings_helpers

        if settings and not DEV_FILE.search(name):
            self.helper_uses.append(settings_helpers.uses_of_helpers(module))
        if settings_helpers.may_hold_host_defaults(text):
            self.host_defaults += settings_helpers.host_defaults(module)

    def detect(self, module: PythonModule) -> Iterator[Finding]:
        seen: set[tuple[int, str]] = set()  # two detectors may agree on a line
        for detector in PYTHON_DETECTORS:
            for finding in detector(module):
                key = (finding.line, finding.category)
                # A memo is judged once every module is read (memo_clears.py): kept as
                # cache, or module-state when nothing clears it.
                wanted = finding.category in self.wanted or (
                    finding.category == "cache" and "module-state" in self.wanted
                )
                if wanted and key not in seen:
                    seen.add(key)
                    yield finding
