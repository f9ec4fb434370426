"""The project pass of a scan: what is judged once every file is read.

The per-file pass (``runner.Scan``) notes what each file holds; here the notes are put
together: a write only commands call is spared, a memo is kept where nothing clears it,
a data folder is reported where no process reads it back, a start line that runs a
project command is judged by what the command does, one cause keeps one finding, and the
settings are judged last (``settings_pass``), with what the code does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from horizontal.audit import (
    boot_threads,
    command_callers,
    cron_jobs,
    datadirs,
    field_paths,
    files,
    import_admins,
    importers,
    private_media,
    repeating_commands,
    services,
    starts,
)
from horizontal.audit.findings import (
    CATEGORIES,
    SETTINGS_CATEGORIES,
    AuditResult,
    Finding,
    Location,
    with_distinct_related,
)
from horizontal.audit.local_storage import (
    storage_with_its_consequences,
    storage_with_its_setting,
)
from horizontal.audit.repeated_starts import one_per_start_line
from horizontal.audit.served_folders import (
    PRIVATE_STORAGE_SERVED,
    one_served_folder_per_module,
)
from horizontal.audit.settings_values import top_level_settings
from horizontal.audit.started_programs import migrations_through_commands, with_command_run
from horizontal.audit.storage_classes import storage_builds, writes_in_their_class
from horizontal.audit.suppress import unknown_ignored
from horizontal.audit.uncalled import without_uncalled_writers
from horizontal.audit.web_servers import one_media_server

if TYPE_CHECKING:
    from horizontal.audit.runner import Scan

__all__ = ["judge_project"]

# What a command's process keeps ends with its run: not reported in commands and scripts,
# nor in the modules only they import (their locks are).
RUN_BY_HAND_SPARES = frozenset({"file-write", "cache", "module-state", "timer-thread", "scheduler"})


def judge_project(scan: Scan) -> AuditResult:
    for finding in command_callers.writes_of_commands_views_run(
        scan.python_texts, scan.by_hand, scan.detect
    ):
        scan.keep(finding)
    # Settings are judged per package, after every module of it has been read.
    through_commands = migrations_through_commands(scan)
    for finding in starts.scripts_run_by_start_scripts(scan.texts):
        if finding.category in scan.wanted:
            scan.keep(finding)
    scan.result.findings = _without_command_only_code(scan, scan.result.findings)
    if any(f.category == "cache" for f in scan.result.findings):
        # Imported here: a project with no memo (check --deploy's usual case) skips it.
        from horizontal.audit.memo_clears import judge_memos

        spared = scan.by_hand | scan.command_only
        found = judge_memos(scan.result.findings, scan.python_texts, spared, scan.wanted)
        scan.result.findings = []  # memos are kept (suppressed) as what they end as
        for finding in found:
            scan.keep(finding, judged=True)
    # One cause, one finding; and what does not run in every replica is dropped.
    findings = cron_jobs.without_host_housekeeping(scan.result.findings, scan.texts)
    findings = one_media_server(
        findings, stores_files=scan.result.stores_files or not scan.result.read_models
    )
    findings = scan.context.without_what_no_replica_runs(
        findings, scan.texts, scan.paths, scan.base
    )
    scan.result.findings = starts.judged_as_started(findings, scan.texts)
    if "file-write" in scan.wanted:
        # A module only commands import reads a folder for an operator's run, not a request.
        reads = [use for use in scan.data_reads if use.path not in scan.command_only]
        for folder in datadirs.unread_folders(scan.data_writes, reads, scan.media_folders):
            scan.keep(datadirs.folder_finding(folder, _setting_lines(scan, folder.setting)))
        for finding in field_paths.local_path_reads(
            scan.field_path_uses, scan.field_names.uploads()
        ):
            scan.keep(finding)
        served = (
            [(n, t) for n, t in scan.python_texts if n not in scan.by_hand]
            if scan.storage_classes
            else []
        )
        for storage, finding in scan.storage_classes.items():
            if storage in scan.storages_built:
                scan.keep(finding)
            elif builds := storage_builds(storage, served):
                scan.keep(finding._replace(related=(*finding.related, *builds)))
    if _private_storage_is_remote(scan):
        scan.result.findings = [
            f for f in scan.result.findings if f.message != PRIVATE_STORAGE_SERVED
        ]
    if "scheduler" in scan.wanted:
        for finding in repeating_commands.repeating_programs(scan.texts, scan.sleeping_commands):
            scan.keep(finding)
    if "timer-thread" in scan.wanted:
        for finding in boot_threads.boot_thread_findings(
            scan.boot_starts, scan.looping_threads, scan.texts
        ):
            scan.keep(finding)
        for finding in boot_threads.started_through_boot_calls(
            scan.looping_starters, scan.boot_texts, scan.texts
        ):
            scan.keep(finding)
    if "settings" in scan.wanted:
        from horizontal.audit.settings_helpers import helper_findings

        found_at = {(f.path, f.line) for f in scan.result.findings if f.category == "settings"}
        for finding in helper_findings(scan.host_defaults, scan.helper_uses):
            if (finding.path, finding.line) not in found_at:  # a client's own finding
                scan.keep(finding)
    if scan.wanted & SETTINGS_CATEGORIES:
        # Imported here: check --deploy scans code only and leaves settings to the W0xx
        # checks, so it never loads the settings scan.
        from horizontal.audit.settings_pass import judge_settings

        judge_settings(scan)
    scan.result.findings = [with_command_run(f, through_commands) for f in scan.result.findings]
    scan.result.findings = storage_with_its_consequences(
        storage_with_its_setting(writes_in_their_class(scan.result.findings, scan.python_texts)),
        scan.upload_fields,
    )
    scan.result.findings = private_media.with_private_media_uses(
        scan.result.findings, scan.private_media_uses
    )
    scan.result.findings = import_admins.with_import_admins(
        scan.result.findings,
        scan.import_admins,
        scan.result.read_models,
        scan.import_confirm_skipped,
    )
    scan.result.findings = files.secret_with_its_file(scan.result.findings)
    scan.result.findings = services.one_huey_schedule(scan.result.findings, scan.texts)
    scan.result.findings = one_per_start_line(scan.result.findings)
    scan.result.findings = one_served_folder_per_module(scan.result.findings)
    scan.result.findings = without_uncalled_writers(
        scan.result.findings,
        scan.python_texts,
        ("\n".join(t) for name, t in scan.texts.items() if not name.endswith(".py")),
    )
    scan.result.findings = [with_distinct_related(f) for f in scan.result.findings]
    scan.result.findings.sort()
    scan.result.unknown_ignores = [
        (f.path, f.line, names)
        for f in scan.result.findings
        if (names := unknown_ignored(f, scan.texts.get(f.path, []), CATEGORIES))
    ]
    return scan.result


def _private_storage_is_remote(scan: Scan) -> bool:
    """A settings module chose django-private-storage's class, and not its default
    ``PrivateFileSystemStorage``: its URLs serve the shared storage."""
    return any(
        "PRIVATE_STORAGE_CLASS" in line and "FileSystem" not in line
        for modules in scan.settings_groups.values()
        for module in modules
        for line in module.lines
        if not line.lstrip().startswith("#")
    )


def _without_command_only_code(scan: Scan, findings: list[Finding]) -> list[Finding]:
    """What commands and scripts are spared (their writes, memos, state, threads and
    schedulers), spared in the modules only they import too."""
    only = scan.command_only = importers.command_only_modules(scan.imports, scan.by_hand)
    kept = [f for f in findings if f.category not in RUN_BY_HAND_SPARES or f.path not in only]
    return command_callers.without_what_only_commands_call(
        kept, RUN_BY_HAND_SPARES, scan.python_texts, scan.by_hand
    )


def _setting_lines(scan: Scan, setting: str) -> list[Location]:
    """Where the settings modules assign ``setting`` (the last assignment of each)."""
    return [
        Location(module.path, statements[-1].lineno)
        for group in scan.settings_groups.values()
        for module in group
        if (statements := top_level_settings(module).get(setting))
    ]
