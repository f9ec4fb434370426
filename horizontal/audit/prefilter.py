"""Which lines of a Python file can hold a finding, found before parsing.

Parsing and walking every module of a large tree costs seconds, and most modules cannot
produce a finding at all. The needles here are necessary conditions of the detectors (a
call to ``open``, a lock, a thread; a mutation of a name that is bound to a container at
module or class level), so a file without any is skipped unparsed, and in a file with
some only the matching lines get their expressions indexed.

Everything is ``str.find`` plus a regex on single lines: Python's ``re`` tries a large
alternation at every character of a file, which costs more than the parse it saves.
"""

from __future__ import annotations

from collections.abc import Iterable

from horizontal.audit.patterns import find_all, lazy_compile


def is_data_setting(name: str) -> bool:
    from horizontal.audit.served_folders import is_data_setting as judged

    return judged(name)


# A database helper's table of engines, picked by name (``engines["sqlite"]``): the helper
# module must be parsed for settings_helpers.py to read it.
SQLITE_TABLE_NEEDLES = ("['sqlite", '["sqlite')
HOT_NEEDLES = (
    "open(",
    "write_text",
    "write_bytes",
    "to_csv",
    "to_excel",
    "to_parquet",
    "savefig",
    "ZipFile",
    "shutil.",
    "os.rename",
    "os.replace",
    "FileSystemStorage",
    "storage.path",
    "Lock(",
    "Semaphore(",
    "Condition(",
    "flock",
    "lockf",
    "SingleInstance",
    "InterProcess",
    "portalocker",
    "PidFile",
    "LockFile(",
    "Thread(",
    "Timer(",
    "Process(",
    "start_new_thread",
    "Scheduler(",
    "every(",
    "scheduler(",
    "CronTab(",
    # A Celery worker with beat inside it (concurrency.find_embedded_beats).
    "beat=True",
    "beat = True",
    "worker_main(",
    '"-B"',
    "'-B'",
    "--beat",
    "call_command(",
    "MEDIA_ROOT",
    "document_root",
    "sendfile(",
    "private_storage.urls",
    "Huey(",
    "periodic_task",
    "localhost",
    "127.0.0.1",
    *SQLITE_TABLE_NEEDLES,
    "SECRET_KEY",
    "mktemp(",
    "mkdtemp(",
    "mkstemp(",
    # A lock taken without ``with`` (in_process_locks.find_in_process_locks).
    ".acquire(",
    # Django's cache wiped at start-up (cache_wipes.py).
    "cache.clear()",
    "].clear()",
    ".reset_all()",
)
# Methods that mutate a container in place; state.py judges the same calls on the AST.
CONTAINER_MUTATORS = (
    "append",
    "appendleft",
    "extend",
    "insert",
    "add",
    "update",
    "setdefault",
    "pop",
    "popleft",
    "popitem",
    "remove",
    "discard",
    "clear",
)
CONTAINER_NEEDLES = (
    "= {",
    "={",
    "= [",
    "=[",
    "dict(",
    "Dict(",
    "set(",
    "Set(",
    "list(",
    "deque(",
    "Counter(",
    "ChainMap(",
)
CONTAINER_LINE = lazy_compile(
    r"([ \t]*)([A-Za-z_]\w*)(?:\s*:[^=\n]+)?\s*=\s*(?:\{|\[|(?:collections\.)?"
    r"(?:dict|list|set|defaultdict|OrderedDict|Counter|deque|ChainMap|Weak\w+)\()"
)
MUTATION_AFTER_NAME = lazy_compile(
    r"\s*\[[^\n]*\]\s*[-+|&]?=(?!=)|\.(?:" + "|".join(CONTAINER_MUTATORS) + r")\("
)
TEMP_FACTORIES = ("mkdtemp", "mkstemp", "NamedTemporaryFile")
MEMO_DECORATORS = frozenset(
    {"lru_cache", "cache", "memoize", "memoized", "cached", "ttl_cache", "lfu_cache"}
)
# A project's own wrapper of one (``@lang_lru_cache``) keeps the name's ending.
MEMO_SUFFIXES = ("_lru_cache", "_ttl_cache")
# open() only matters with a literal write mode somewhere in its first three lines.
WRITE_MODE = lazy_compile(r"[\"'](?:[rbt]*[wax]|[rwabt]*\+)")
# Start-up code of an app, a server or a Celery worker (row_resets.py), found with
# ``str.find``: a regex alternation over every file with ``.objects`` costs a parse.
STARTUP_NEEDLES = (
    "def ready(",
    "def on_starting(",
    "def when_ready(",
    "def pre_fork(",
    "def post_fork(",
    "def post_worker_init(",
    "worker_ready.connect",
    "worker_init.connect",
    "celeryd_init.connect",
    "worker_process_init.connect",
)
THREAD_CLASS = lazy_compile(r"[ \t]*class[ \t]+(\w+)\([^)]*Thread\b")
# settings.DOCS_ROOT, settings.DATA_DIR: a data folder (datadirs.py judges the name).
DATA_FOLDER = lazy_compile(r"settings\.([A-Z][A-Z0-9_]*_(?:ROOT|DIRS?|DIRECTORY|FOLDER|PATH))\b")


def line_of(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return text[start : end if end != -1 else len(text)]


def line_numbers(text: str, positions: Iterable[int]) -> list[int]:
    """1-based line numbers of sorted character positions, counting incrementally."""
    numbers: list[int] = []
    line, last = 1, 0
    for position in sorted(positions):
        line += text.count("\n", last, position)
        last = position
        numbers.append(line)
    return numbers


def container_names(text: str) -> tuple[set[str], set[str]]:
    """Names bound to a container at column 0, and in a class body."""
    module_level: set[str] = set()
    class_level: set[str] = set()
    for needle in CONTAINER_NEEDLES:
        for position in find_all(text, needle):
            match = CONTAINER_LINE.match(line_of(text, position))
            if match is None:
                continue
            if not match.group(1):
                module_level.add(match.group(2))
            elif in_class_body(text, position, len(match.group(1))):
                class_level.add(match.group(2))
    return module_level, class_level - module_level


def in_class_body(text: str, position: int, indent: int) -> bool:
    """Is the line at ``position`` (indented ``indent``) directly under a ``class``?

    Walks back to the nearest less-indented code line: ``class`` means a class attribute,
    anything else (``def``, ``if``, a bracket) a local or nested value.
    """
    end = text.rfind("\n", 0, position)
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        stripped = line.lstrip()
        if stripped and not stripped.startswith(("#", "@")) and len(line) - len(stripped) < indent:
            return stripped.startswith("class ")
        end = start - 1
    return False


def mutation_positions(text: str) -> list[int]:
    """Where a module-level container is mutated by name, or a class-level one via ``.``."""
    module_level, indented = container_names(text)
    positions: list[int] = []
    for names, attribute in ((module_level, False), (indented, True)):
        for name in names:
            for position in find_all(text, name):
                before = text[position - 1] if position else "\n"
                if attribute != (before == ".") or (
                    not attribute and (before.isalnum() or before == "_")
                ):
                    continue
                if MUTATION_AFTER_NAME.match(text, position + len(name)):
                    positions.append(position)
    return positions


def statement_triggers(text: str) -> bool:
    """``global`` rebinding, memo decorators, uWSGI timers: seen on statements, not lines."""
    if "uwsgidecorators" in text:
        return True
    for position in find_all(text, "global "):
        if line_of(text, position).lstrip().startswith("global "):
            return True
    for position in find_all(text, "@"):
        line = line_of(text, position).strip()
        if line.startswith("@"):
            name = line[1:].split("(", 1)[0].strip().rsplit(".", 1)[-1]
            if name in MEMO_DECORATORS or name.endswith(MEMO_SUFFIXES):
                return True
    return False


def _read_only_open(text: str, position: int) -> bool:
    if not text.startswith("open(", position):
        return False
    end = position
    for _ in range(3):
        following = text.find("\n", end + 1)
        end = following if following != -1 else len(text)
    return not WRITE_MODE.search(text, position, end)


def _has_startup_code(text: str) -> bool:
    return any(needle in text for needle in STARTUP_NEEDLES)


def hot_lines(text: str) -> list[int] | None:
    """Lines whose expressions the detectors need; None when the file needs no parse."""
    positions = [p for needle in HOT_NEEDLES for p in find_all(text, needle)]
    positions = [p for p in positions if not _read_only_open(text, p)]
    if any(factory in text for factory in TEMP_FACTORIES):
        # obj.save(path) into a temp dir that outlives the function, and a temp file
        # kept (delete=False) that may be handed on (see files.py)
        positions += find_all(text, ".save(")
        positions += find_all(text, "delete=False")
    positions += mutation_positions(text)
    for position in find_all(text, "settings."):
        match = DATA_FOLDER.match(text, position)
        if match and is_data_setting(match.group(1)):
            positions.append(position)
    if (".objects" in text or "._default_manager" in text) and _has_startup_code(text):
        # A queryset's update or delete in start-up code (row_resets.py): the call's line
        # is where its chain starts, ``Job.objects…``.
        positions += [*find_all(text, ".objects"), *find_all(text, "._default_manager")]
    for position in find_all(text, "Thread"):
        match = THREAD_CLASS.match(line_of(text, position))
        if match:
            positions += find_all(text, f"{match.group(1)}(")
    if not positions and not statement_triggers(text):
        return None
    return line_numbers(text, positions)
