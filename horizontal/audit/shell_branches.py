"""Which process type a line of a start script belongs to.

An entrypoint that dispatches on its argument (``if [ "$1" = "web" ] … elif [ "$1" =
"beat" ]``, or ``case "$1" in web) … ;; beat) … ;; esac``) starts one process type per
container: a scheduler in the ``beat`` arm runs once, where the operator starts that type,
not beside the web server of the ``web`` arm. A single ``if [ "$X" = "true" ]`` is a toggle,
not a dispatch: two arms on the same variable at least, unless it switches between
``runserver`` and another start (a development/production switch).
"""

from __future__ import annotations

from horizontal.audit.patterns import lazy_compile

__all__ = ["leader_only", "process_arms"]

# if [ "$1" == "web" ]; / elif [[ ${ROLE} = worker ]]: a test of one variable against a word.
ARM_TEST = lazy_compile(
    r"^(el)?if\s+\[\[?\s+\"?\$\{?(\w+)\}?\"?\s+==?\s+[\"']?[\w.:-]+[\"']?\s*\]\]?"
)
IF_START = lazy_compile(r"^if\b")
IF_END = lazy_compile(r"(^|;\s*)fi\s*(;|$)")
CASE_START = lazy_compile(r"^case\s+\"?\$\{?(\w+)\}?\"?\s+in\b")
CASE_ARM = lazy_compile(r"^\(?\s*[\w\"'.|*-]+(\s*\|\s*[\w\"'.*-]+)*\s*\)")
CASE_END = lazy_compile(r"(^|;\s*)esac\b")
RUNSERVER = lazy_compile(r"\brunserver(_plus)?\b")
# if [ $CF_INSTANCE_INDEX = "0" ]: a test that only the first instance passes (Cloud
# Foundry's and most platforms' instance index, Heroku's first web dyno).
LEADER_TEST = lazy_compile(
    r"^if\b.*\$\{?(CF_INSTANCE_INDEX|INSTANCE_INDEX|REPLICA_INDEX|POD_INDEX|"
    r"JOB_COMPLETION_INDEX|DYNO)\}?\"?\s*(==?|-eq)\s*[\"']?(0|web\.1)\b"
)


def process_arms(lines: list[str]) -> list[str | None]:
    """For each logical line, the dispatch arm it is in (``"if3:web"``-like keys, stable
    within one script), or None for a line every process type runs."""
    arms: list[str | None] = [None] * len(lines)
    _if_chains(lines, arms)
    _case_arms(lines, arms)
    return arms


def leader_only(lines: list[str]) -> set[int]:
    """Indexes of the lines only the first instance runs: the body of an ``if`` whose test
    is the instance index against 0 (up to its ``else``/``elif`` or ``fi``)."""
    found: set[int] = set()
    depth = 0
    guarded_at: int | None = None  # the depth of the open leader branch
    for index, text in enumerate(lines):
        one_line = IF_START.match(text) and IF_END.search(text)
        if IF_START.match(text) and not one_line:
            depth += 1
            if guarded_at is None and LEADER_TEST.match(text):
                guarded_at = depth
                continue
        elif guarded_at == depth and (text.startswith(("else", "elif"))):
            guarded_at = None
        elif IF_END.search(text) and not one_line:
            if guarded_at == depth:
                guarded_at = None
            depth -= 1
            continue
        if guarded_at is not None:
            found.add(index)
    return found


def _if_chains(lines: list[str], arms: list[str | None]) -> None:
    depth = 0
    chain: tuple[int, str, int] | None = None  # (depth, variable, first line)
    arm_count: dict[int, int] = {}
    current: str | None = None
    members: dict[int, list[int]] = {}
    for index, text in enumerate(lines):
        test = ARM_TEST.match(text)
        one_line = IF_START.match(text) and IF_END.search(text)
        if IF_START.match(text) and not one_line:
            depth += 1
            if test and chain is None:
                chain = (depth, test.group(2), index)
                current = f"if{index}:{index}"
                arm_count[index] = 1
                members[index] = []
                continue
        if chain is not None and depth == chain[0]:
            if text.startswith("elif") and test and test.group(2) == chain[1]:
                current = f"if{chain[2]}:{index}"
                arm_count[chain[2]] += 1
                continue
            if text.startswith("else"):
                current = f"if{chain[2]}:else"
                continue
        if IF_END.search(text) and not one_line:
            if chain is not None and depth == chain[0]:
                chain, current = None, None
                depth -= 1
                continue
            depth -= 1
        if chain is not None and current is not None:
            arms[index] = current
            members[chain[2]].append(index)
    for start, count in arm_count.items():
        if count >= 2:
            continue
        # A toggle, not a dispatch; but a development/production switch (``if [
        # "$LOCAL_DEV" == "true" ]; then … runserver; else … gunicorn``) keeps its arms.
        inside = members[start]
        switch = any(arms[i] == f"if{start}:else" for i in inside) and any(
            RUNSERVER.search(lines[i]) for i in inside
        )
        if not switch:
            for index in inside:
                arms[index] = None


def _case_arms(lines: list[str], arms: list[str | None]) -> None:
    index = 0
    while index < len(lines):
        start = CASE_START.match(lines[index])
        if not start:
            index += 1
            continue
        first = index
        current: str | None = None
        keys: set[str] = set()
        inside: list[int] = []
        index += 1
        while index < len(lines) and not CASE_END.match(lines[index]):
            text = lines[index]
            if current is None and CASE_ARM.match(text):
                current = f"case{first}:{index}"
                keys.add(current)
            if current is not None:
                arms[index] = current
                inside.append(index)
                if text.rstrip().endswith(";;") or ";;" in text:
                    current = None
            index += 1
        if len(keys) < 2:
            for line in inside:
                arms[line] = None
        index += 1
