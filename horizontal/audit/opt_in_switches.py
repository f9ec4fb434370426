"""What a start script runs only when a deployment turns a switch on.

``if [ "$APPLY_MIGRATIONS" = "1" ]; then manage.py migrate; fi``: a migrate (or a scheduler)
behind a switch named for it is the deployment's choice, as a setting left to its default
is judged; an image of the tree that sets the switch (``ENV APPLY_MIGRATIONS=1``) turns it
on for every replica. Shell text only.
"""

from __future__ import annotations

import re

from horizontal.audit.file_kinds import is_dockerfile
from horizontal.audit.findings import Finding
from horizontal.audit.patterns import lazy_compile

__all__ = ["without_opt_in_starts"]


# ``if [ "$APPLY_MIGRATIONS" = "1" ]``, ``if [[ "${RUN_MIGRATIONS:-"0"}" = 1 ]]``: a switch
# that a deployment turns on; ``${VAR:-1}`` is a default that is on. It is an opt-in for
# what its name says: migrating, or starting the scheduler. A scheduler's switch may be
# any value (``if [ -n "$CELERY_BEAT" ]``); a migrate behind a switch that any value
# turns on is read as on, as the labels read it (platforms set such a variable for the
# whole app, and ``RUN_MIGRATIONS=false`` still migrates).
OPT_IN_TEST = lazy_compile(
    r"^\s*(?:el)?if\s+\[\[?\s*(?:-n\s+)?[\"']?X?\$\{?(\w+)"
    r"(?::?-[\"']?([^}\"'\s]*)[\"']?)?\}?[\"']?"
    r"\s*(==?\s*[\"']?X?(?:1|true|yes|on)[\"']?\s*)?\]",
    re.I,
)
OPT_IN_NAMES = {
    "boot-migrate": lazy_compile(r"MIGRAT", re.I),
    "scheduler": lazy_compile(r"BEAT|SCHEDUL|CRON|CLOCK|PERIODIC", re.I),
}
ANY_VALUE_OPT_IN = frozenset({"scheduler"})
TRUTHY = lazy_compile(r"^[\"']?(1|true|yes|on)[\"']?$", re.I)
SHELL_IF = lazy_compile(r"^\s*if\b")
SHELL_FI = lazy_compile(r"^\s*fi\b")


def without_opt_in_starts(findings: list[Finding], texts: dict[str, list[str]]) -> list[Finding]:
    """``migrate`` or a scheduler behind a switch named for it that is off unless a
    deployment sets it (``if [ "$APPLY_MIGRATIONS" = "1" ]``, ``if [ -n "$CELERY_BEAT"
    ]``) runs where someone chose to run it, as a setting left to its default is judged:
    not reported, unless an image of the tree turns the switch on (``ENV
    ENABLE_MIGRATIONS=yes``, which every replica of that image inherits). A compose file
    that sets it for one service is that stack's choice."""
    kept = []
    for finding in findings:
        names = OPT_IN_NAMES.get(finding.category)
        switch = None
        if names is not None and finding.path in texts:
            switch = _opt_in_switch(
                texts[finding.path], finding.line, finding.category in ANY_VALUE_OPT_IN
            )
        if switch is None or names is None or not names.search(switch):
            kept.append(finding)  # not behind a switch for what it starts
        elif _switched_on(switch, texts):
            kept.append(finding)  # an image of the tree turns the switch on
    return kept


def _opt_in_switch(lines: list[str], line: int, any_value: bool) -> str | None:
    """The variable of the ``if`` around ``line``, when it is an opt-in test whose
    default is off (``any_value``: a test that any value passes counts)."""
    depth = 0
    for text in reversed(lines[: line - 1]):
        if SHELL_FI.match(text):
            depth += 1
        elif SHELL_IF.match(text):
            if depth:
                depth -= 1
                continue
            test = OPT_IN_TEST.match(text)
            if test is None or TRUTHY.match(test.group(2) or ""):
                return None
            if not test.group(3) and not any_value:
                return None  # ``[ -n "$X" ]``: any value, ``false`` too, turns it on
            return test.group(1)
    return None


def _switched_on(variable: str, texts: dict[str, list[str]]) -> bool:
    setting = re.compile(rf"\b{re.escape(variable)}[\"']?\s*[=:\s]\s*[\"']?(1|true|yes|on)\b", re.I)
    return any(
        setting.search(line)
        for path, lines in texts.items()
        if is_dockerfile(path)
        for line in lines
    )
