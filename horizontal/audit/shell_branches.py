"""Which process type a line of a start script belongs to.

An entrypoint that dispatches on its argument (``if [ "$1" = "web" ] … elif [ "$1" =
"beat" ]``, or ``case "$1" in web) … ;; beat) … ;; esac``) starts one process type per
container: a scheduler in the ``beat`` arm runs once, where the operator starts that type,
not beside the web server of the ``web`` arm. A single ``if [ "$X" = "true" ]`` is a toggle,
not a dispatch: two arms on the same variable at least, unless it switches between
``runserver`` and another start (a development/production switch).
"""

from __future__ import annotations

import re

from horizontal.audit.patterns import lazy_compile

__all__ = [
    "CALLED_BY_THE_SOURCING_SCRIPT",
    "function_callers",
    "leader_only",
    "process_arms",
    "python_secret_heredocs",
    "without_string_bodies",
]

# if [ "$1" == "web" ]; / elif [[ ${ROLE} = worker ]]: a test of one variable against a word.
ARM_TEST = lazy_compile(
    r"^(el)?if\s+\[\[?\s+\"?\$\{?(\w+)\}?\"?\s+==?\s+[\"']?([\w.:-]+)[\"']?\s*\]\]?"
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


# A shell function's definition: ``run_server() {``, ``function run_server {``.
FUNCTION_START = lazy_compile(r"^(?:function\s+)?([A-Za-z_][\w-]*)\s*(?:\(\s*\))?\s*\{\s*$")
FUNCTION_KEYWORD = lazy_compile(r"^function\s")
# Where a command starts on a line: its beginning, after ``;``/``&&``/``|``/``(``/``{``, or
# after a keyword that takes a command.
CALL_PREFIX = r"(^\s*|[;&|({]\s*|\b(exec|then|do|else|time)\s+)"
# ``cat <<EOF``, ``<<-'EOF'`` (not ``<<<``, a here-string on one line).
HEREDOC = lazy_compile(r"(?<!<)<<-?\s*([\"']?)([A-Za-z_]\w*)\1")
# A heredoc fed to a shell runs its body: ``bash <<EOF``, ``su app -c sh <<EOF``.
SHELL_READER = lazy_compile(r"\b(ba|da|z)?sh\b|\bsu\b|\bssh\b")


def without_string_bodies(lines: list[str]) -> list[str]:
    """``lines`` with the inside of multi-line quoted strings and of heredocs blanked
    (line numbers kept): the help text of ``show_help() { echo "… celery-beat : start
    beat …" }`` or ``cat <<EOF`` is printed, not run. A heredoc fed to a shell
    (``bash <<EOF``) is run, and kept."""
    out = list(lines)
    quote: str | None = None
    heredoc: str | None = None
    for index, raw in enumerate(lines):
        if heredoc is not None:
            out[index] = ""
            if raw.strip() == heredoc:
                heredoc = None
            continue
        started_inside = quote is not None
        quote = _quote_after(raw, quote)
        if started_inside:
            out[index] = ""  # the string's body (its closing line holds no command)
            continue
        opened = HEREDOC.search(raw)
        if quote is None and opened and not SHELL_READER.search(raw[: opened.start()]):
            heredoc = opened.group(2)
    return out


# A heredoc fed to Python (``python <<EOF``, ``python3 - <<'PY'``, ``manage.py shell
# <<EOF``): its body is Python, run at start.
PYTHON_READER = lazy_compile(r"\bpython[\d.]*\b|\bmanage\.py\s+shell\b")
# In such a body: a fresh random value, and a file written.
PYTHON_RANDOM = lazy_compile(
    r"\brandom\.|\bsecrets\.|SystemRandom|get_random_s(ecret_key|tring)|token_(hex|urlsafe|bytes)"
    r"|urandom|uuid4"
)
PYTHON_FILE_WRITE = lazy_compile(r"""open\([^)]*,\s*['"][wax]|\.write_(text|bytes)\(""")


def python_secret_heredocs(text: str) -> set[int]:
    """The lines that open a heredoc fed to Python whose body writes a fresh random value
    into a file (a key generated at first boot, as ``openssl rand … > file`` is)."""
    found: set[int] = set()
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opened = HEREDOC.search(lines[index])
        if opened is None or not PYTHON_READER.search(lines[index][: opened.start()]):
            index += 1
            continue
        end = next(
            (i for i in range(index + 1, len(lines)) if lines[i].strip() == opened.group(2)),
            len(lines),
        )
        body = "\n".join(lines[index + 1 : end])
        if PYTHON_RANDOM.search(body) and PYTHON_FILE_WRITE.search(body):
            found.add(index + 1)
        index = end + 1
    return found


def _quote_after(line: str, quote: str | None) -> str | None:
    """The quote still open at the end of ``line`` (``'`` or ``"``), given the one open at
    its start; a ``#`` outside quotes ends the line."""
    escaped = False
    for position, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote is None:
            if char == "#" and (position == 0 or line[position - 1] in " \t;"):
                return None
            if char in "\"'":
                quote = char
        elif char == quote:
            quote = None
    return quote


# The caller of a function that a script sourcing this one calls (``source lib.sh`` then
# ``run_migrations``): it runs wherever the sourcing script's own lines run.
CALLED_BY_THE_SOURCING_SCRIPT = -1


def function_callers(
    lines: list[str], called_elsewhere: frozenset[str] = frozenset()
) -> dict[int, set[int | None]]:
    """For each line inside a shell function's body, the lines that call the function
    (None: the function is never called here). A body runs where it is called, not
    where it is defined; a call from another function counts as that function's callers."""
    bodies: dict[str, list[int]] = {}
    index = 0
    while index < len(lines):
        start = FUNCTION_START.match(lines[index])
        if not start or (FUNCTION_KEYWORD.match(lines[index]) is None and "(" not in lines[index]):
            index += 1
            continue
        depth, body = 1, []
        index += 1
        while index < len(lines) and depth > 0:
            text = lines[index]
            depth += text.count("{") - text.count("}")
            if depth > 0:
                body.append(index)
            index += 1
        bodies[start.group(1)] = body
    owner = {line: name for name, body in bodies.items() for line in body}
    calls: dict[str, set[int]] = {name: set() for name in bodies}
    for name in bodies:
        call = re.compile(rf"{CALL_PREFIX}{re.escape(name)}(\s|$|;)")
        calls[name] = {
            i for i, text in enumerate(lines) if owner.get(i) != name and call.search(text)
        }
        if name in called_elsewhere:
            calls[name].add(CALLED_BY_THE_SOURCING_SCRIPT)
    found: dict[int, set[int | None]] = {}
    for name, body in bodies.items():
        callers: set[int | None] = set()
        pending, seen = list(calls[name]), {name}
        while pending:  # a caller inside another function: that function's callers
            caller = pending.pop()
            inner = owner.get(caller)
            if inner is None:
                callers.add(caller)
            elif inner not in seen:
                seen.add(inner)
                pending.extend(calls[inner])
        for line in body:
            found[line] = callers or {None}
    return found


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
    # The words each variable is tested against, over all chains: ``if [ "$1" == "migrate" ]
    # … fi`` then ``if [ "$1" == "run" ] … fi`` are one dispatch, as an elif chain is.
    words: dict[str, set[str]] = {}
    variable_of: dict[int, str] = {}
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
                variable_of[index] = test.group(2)
                words.setdefault(test.group(2), set()).add(test.group(3))
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
        if count >= 2 or len(words[variable_of[start]]) >= 2:
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
