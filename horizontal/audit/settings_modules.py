"""W109: the deploy checks' single-instance settings, read from every settings module.

``check --deploy`` (horizontal.W0xx) sees the settings of the process it runs in. The audit
reads every settings module in the tree instead, including production modules that CI
never imports, and the implicit defaults a module leaves in place (no ``CACHES`` means
``LocMemCache``). ``find_settings_problems`` is what the runner calls, once for each
folder of settings modules; it decides which findings production keeps. The work is
split by job:

- ``settings_files``: which files are settings modules, which are development or tests;
- ``settings_values``: what a module gives production, read as Python runs it;
- ``settings_branches``: the branches production does not take when nothing is set;
- ``settings_defaults``: what the top-level names hold when nothing is set (for those);
- ``settings_rules``: the per-setting rules and their fix texts (``settings_secrets``:
  values generated at start-up);
- ``settings_imported``: the same rules over the imported settings, for ``check --deploy``.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping

from horizontal.audit.findings import Finding, Location
from horizontal.audit.settings_branches import off_by_default_statements
from horizontal.audit.settings_dynamic import names_set_at_run_time
from horizontal.audit.settings_engines import sqlite_by_default
from horizontal.audit.settings_files import (
    KNOWN_SETTINGS,
    is_dev_module,
    is_served,
)
from horizontal.audit.settings_library_files import (
    private_media_root,
    translations_edited_on_this_host,
)
from horizontal.audit.settings_rules import (
    bad_backends,
    crontab_jobs,
    django_defaults_copied,
    implicit_defaults,
    option_places,
)
from horizontal.audit.settings_secrets import (
    HelperModules,
    generated_secret_key,
    generated_shared_secret,
    is_shared_secret_setting,
)
from horizontal.audit.settings_services import databases_without_host, services_on_this_host
from horizontal.audit.settings_setdefaults import apply_env_setdefaults, setdefaults_on_this_host
from horizontal.audit.settings_star_imports import (
    absolute_import_name,
    has_star_import,
    served_reexport,
    star_imported_below,
    star_imported_settings,
    star_importers,
)
from horizontal.audit.settings_values import (
    apply_env_schema,
    env_schemas,
    imported_env_schemas,
    mutated_in_place,
    replacement_check,
    top_level_settings,
)
from horizontal.audit.source import PythonModule
from horizontal.audit.storage_settings import one_local_storage

__all__ = ["find_settings_problems", "project_settings_names", "settings_packages"]


def find_settings_problems(
    modules: list[PythonModule],
    *,
    uses_cache: bool = True,
    gates_in_cache: bool = True,
    local_storages: frozenset[str] = frozenset(),
    local_caches: Mapping[str, str] | None = None,
    unused: frozenset[str] = frozenset(),
    served: frozenset[str] = frozenset(),
    tested: frozenset[str] = frozenset(),
    elsewhere: Mapping[str, frozenset[str]] | None = None,
    compresses: bool = True,
    helpers: HelperModules | None = None,
    verdicts: dict[str, bool] | None = None,
) -> Iterator[Finding]:
    """Findings for one settings package (or one settings file) read together, the way
    Python runs it: a value a later statement of the same module replaces, or that every
    production module importing this one with ``*`` replaces, is not production's; the
    same problem set in a base and again in the module that imports it is one finding,
    at the importing module (the one that decides), with the base as a related location.

    ``uses_cache``: whether the project's code keeps shared state in Django's cache
    (``feature_use.keeps_state_in_cache``); without it the implicit ``LocMemCache``
    default only recomputes memos per process. ``gates_in_cache``: whether it takes gates
    or counts there (``add``, ``incr``, a rate limit), which a ``DummyCache`` breaks.
    ``local_storages``: dotted paths of the project's own ``FileSystemStorage``
    subclasses; ``local_caches``: those of its own ``LocMemCache`` and ``FileBasedCache``
    subclasses, to the backend each extends.
    ``unused``: settings (as findings
    name them) whose feature the project's code never uses: not reported. ``served``:
    the settings modules the project's ``wsgi.py``/``asgi.py`` default to; ``tested``: those
    its test runner's configuration names. ``elsewhere``:
    the names each other settings module of the project assigns, by dotted module name
    (``project_settings_names``), for the star imports that reach outside the package.
    ``compresses``: whether a template uses django-compressor's ``{% compress %}`` (or
    none could be read): without one, compression on request writes nothing.
    ``helpers``: the parsed source of another project module by its dotted name, for a
    ``SECRET_KEY`` a helper function makes. ``verdicts``: filled with each settings
    module's path and whether it was read as production's.
    """
    elsewhere = elsewhere or {}
    built = {module.path: env_schemas(module) for module in modules}
    for module in modules:
        apply_env_schema(module, imported_env_schemas(module, modules, built))
    assigned = [(m, top_level_settings(m)) for m in modules]
    # A module that only re-exports another (``from .base import *`` in the package's
    # ``__init__.py`` that wsgi.py serves) sets nothing, but production runs it: it keeps
    # the base's values, whatever a sibling (``docker.py``) sets.
    assigned = [(m, a) for m, a in assigned if a or served_reexport(m, served)]
    # A setting assigned only in a branch that is off when nothing is set (``if
    # env("CACHE_URL"):``) is left at Django's default in production.
    conditional = {m.path: a for m, a in assigned}  # before the branches are dropped
    assigned = [(m, _by_default(m, a)) for m, a in assigned]
    if not any(k in a for _, a in assigned for k in KNOWN_SETTINGS):
        return  # a file named *settings* that is not a Django settings module
    children = star_importers(modules)
    production = [m for m, _ in assigned if not is_dev_module(m, children, served, tested)]
    if verdicts is not None:  # for the summary: which modules were read as production's
        verdicts.update((m.path, m in production) for m, _ in assigned)
    apply_env_setdefaults(modules, children, production)
    # What production sees: development and test modules do not count as "set"; names a
    # module binds at run time (``setattr(sys.modules[__name__], …)``) do.
    everything: set[str] = set().union(
        *(a.keys() | names_set_at_run_time(m) for m, a in assigned if m in production)
    )
    found: list[Finding] = []
    mutated = mutated_in_place(production)
    for module, settings in assigned:
        if module not in production:
            continue
        replaced = replacement_check(
            module,
            # What wsgi.py serves when nothing is set runs as written, whatever the
            # modules that import it replace (``docker_settings.py`` over it).
            [] if is_served(module.path, served) else _nearest(module, children, production),
            mutated,
            star_imported_below(module, modules) if has_star_import(module) else (),
        )
        for finding in bad_backends(module, local_storages, local_caches or {}, gates_in_cache):
            if not replaced(finding.line):
                found.append(finding)
        for finding in databases_without_host(module):
            # Found at the alias's line, which holds no string: judged by the setting.
            if not replaced(finding.line, "DATABASES"):
                found.append(finding)
        for finding in (
            *services_on_this_host(module),
            *sqlite_by_default(module),
            *django_defaults_copied(module, settings),
            *private_media_root(module, settings),
            *translations_edited_on_this_host(module, settings),
            *setdefaults_on_this_host(module, modules),
        ):
            if not replaced(finding.line):
                found.append(finding)
        for statement in settings.get("SECRET_KEY", []):
            if not replaced(statement.lineno, "SECRET_KEY"):
                found.extend(generated_secret_key(module, statement, helpers))
        for name, statements in settings.items():
            if is_shared_secret_setting(name) and not replaced(statements[-1].lineno, name):
                found.extend(generated_shared_secret(module, name, statements[-1], helpers))
        for statement in settings.get("CRONJOBS", []):
            found.append(crontab_jobs(module, statement))
        # What a star import brings in counts as set; an import the scan cannot read may
        # set anything, and the module's defaults are not judged.
        imported = (
            star_imported_settings(module, modules, elsewhere) if has_star_import(module) else set()
        )
        judged = _decided_in_branch(settings, conditional[module.path])
        if imported is not None or judged:
            nearest = _nearest(module, children, production)
            found.extend(
                _with_importers_storage_options(
                    _at_decider(finding, replaced, nearest), nearest, conditional
                )
                for finding in implicit_defaults(
                    module,
                    settings,
                    everything | (imported or set()),
                    uses_cache,
                    conditional[module.path],
                    compresses,
                )
                if imported is not None or finding.message.split(None, 1)[0] in judged
            )
    for module in modules:
        # ``staging.py`` that only sets the environment and imports production: it
        # assigns nothing, and its defaults are what a staging deployment gets.
        if module not in production and not is_dev_module(module, children, served, tested):
            found.extend(setdefaults_on_this_host(module, modules))
    found = [f for f in found if f.message.split(":", 1)[0].split(" ", 1)[0] not in unused]
    found = _one_crontab(one_local_storage(_one_upload_storage(found), modules))
    for finding in _one_per_cause(found, children):
        # A file log handler is its own (opt-in) category: split logs, not broken state.
        log_file = finding.message.startswith("LOGGING:")
        yield finding._replace(category="log-file") if log_file else finding


# A setting a module assigns only in a branch that is off when nothing is set is decided
# there, whatever a star import the scan cannot read brings in: the module's author chose
# Django's default for production (``if USE_S3: STORAGES = …`` below ``from vendor import
# *``). By setting, the finding that names Django's default.
DECIDED_DEFAULTS = {
    "CACHES": "CACHES",
    "STORAGES": "MEDIA_ROOT",
    "DEFAULT_FILE_STORAGE": "MEDIA_ROOT",
}


def _decided_in_branch(
    settings: dict[str, list[ast.stmt]], every_assignment: dict[str, list[ast.stmt]]
) -> set[str]:
    """The implicit-default findings this module decides (see ``DECIDED_DEFAULTS``)."""
    only_in_branch = every_assignment.keys() - settings.keys()
    return {DECIDED_DEFAULTS[name] for name in only_in_branch if name in DECIDED_DEFAULTS}


def _one_upload_storage(found: list[Finding]) -> list[Finding]:
    """A local ``FileSystemStorage`` named in a settings value and ``MEDIA_ROOT`` with no
    ``STORAGES`` are one cause (uploads on this host's disk): the named storage is the
    finding, ``MEDIA_ROOT``'s line related."""
    return _folded(found, "STORAGES['default']:", "MEDIA_ROOT with no STORAGES")


def _folded(found: list[Finding], keeper: str, folded: str) -> list[Finding]:
    """The findings whose message starts with ``folded`` become related locations of the
    first that starts with ``keeper`` (one cause), when both are there."""
    keepers = [f for f in found if f.message.startswith(keeper)]
    others = [f for f in found if f.message.startswith(folded)]
    if not keepers or not others:
        return found
    first = keepers[0]
    merged = first._replace(related=(*first.related, *(Location(f.path, f.line) for f in others)))
    return [merged if f is first else f for f in found if f not in others]


def _one_crontab(found: list[Finding]) -> list[Finding]:
    """django-crontab installed and its ``CRONJOBS`` are one cause (every host that runs
    ``crontab add`` runs the jobs): the ``CRONJOBS`` finding, the app's entry related."""
    return _folded(found, "CRONJOBS (django-crontab)", "INSTALLED_APPS: django_crontab")


# A finding named for one setting whose outcome another decides: ``COMPRESS_OFFLINE`` left
# off matters where ``COMPRESS_ENABLED = True`` turns compression on.
DECIDED_ELSEWHERE = {"COMPRESS_OFFLINE": "COMPRESS_ENABLED"}


def _at_decider(
    finding: Finding, replaced: Callable[..., bool], importers: list[PythonModule]
) -> Finding:
    """A base's ``MEDIA_ROOT`` that the production modules importing it assign again: the
    problem is decided there (``prod.py``'s ``MEDIA_ROOT``), the base's line related."""
    setting = finding.message.split(None, 1)[0].rstrip(":")
    if setting in DECIDED_ELSEWHERE:
        # django-compressor's output is decided where a production module turns it on.
        setting = DECIDED_ELSEWHERE[setting]
    elif not setting.isupper() or not replaced(finding.line, setting):
        return finding
    places = [
        (child, top_level_settings(child)[setting][-1].lineno)
        for child in importers
        if setting in top_level_settings(child)
    ]
    if not places:
        return finding
    (child, line), others = places[0], places[1:]
    related = (Location(finding.path, finding.line), *(Location(m.path, n) for m, n in others))
    return finding._replace(
        path=child.path, line=line, source=child.lines[line - 1].strip(), related=related
    )


def _with_importers_storage_options(
    finding: Finding,
    importers: list[PythonModule],
    conditional: Mapping[str, dict[str, list[ast.stmt]]],
) -> Finding:
    """A base's media root whose production module chooses a shared storage only when an
    option is given (``prod.py``: ``if AZURE_ACCOUNT_NAME and …: DEFAULT_FILE_STORAGE =
    …``): the option, its test and the assignment are related, where the fix goes."""
    if not finding.message.startswith("MEDIA_ROOT with no STORAGES"):
        return finding
    places = [
        place
        for child in importers
        for setting in ("STORAGES", "DEFAULT_FILE_STORAGE")
        for statement in conditional.get(child.path, {}).get(setting, [])
        for place in option_places(child, statement.lineno)
    ]
    if not places:
        return finding
    return finding._replace(related=tuple(dict.fromkeys((*finding.related, *places))))


def _nearest(
    module: PythonModule, children: dict[str, list[PythonModule]], production: list[PythonModule]
) -> list[PythonModule]:
    """The production modules that import ``module`` first on each import path: ``beta.py``
    importing ``prod.py`` gets what ``prod.py`` replaced, so only ``prod.py`` must."""
    importers = [c for c in children.get(module.path, []) if c in production]
    return [
        child
        for child in importers
        if not any(child in children.get(other.path, []) for other in importers)
    ]


def settings_packages(folders: dict[str, list[PythonModule]]) -> list[list[PythonModule]]:
    """The groups read together: each folder of settings modules, with a subfolder folded
    into its parent's group when a module there star-imports it (``prod.py``: ``from
    .abstract_base import *``) or includes its files (django-split-settings'
    ``include("components/caches.py", "environments/prod.py")`` runs them in one
    namespace): the subfolder's values are the parent's bases."""
    parent_of: dict[str, str] = {}
    for folder in folders:
        parent = posixpath.dirname(folder)
        name = posixpath.basename(folder)
        if (
            folder
            and parent != folder
            and parent in folders
            and any(
                _star_imports(module, name) or _includes(module, name) for module in folders[parent]
            )
        ):
            parent_of[folder] = parent
    groups: dict[str, list[PythonModule]] = {}
    for folder, modules in folders.items():
        root = folder
        while root in parent_of:
            root = parent_of[root]
        groups.setdefault(root, []).extend(modules)
    return list(groups.values())


def _includes(module: PythonModule, folder: str) -> bool:
    """Whether ``module`` hands a file of ``folder`` to django-split-settings'
    ``include()`` (its paths are often listed first: ``include(*base_settings)``)."""
    if "split_settings" not in module.text or f"{folder}/" not in module.text:
        return False
    return any(
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith(f"{folder}/")
        and ".py" in node.value
        for node in ast.walk(module.tree)
    )


def _star_imports(module: PythonModule, name: str) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and (node.module or "").rsplit(".", 1)[-1] == name
        and any(alias.name == "*" for alias in node.names)
        for node in module.tree.body
    )


def _by_default(
    module: PythonModule, settings: dict[str, list[ast.stmt]]
) -> dict[str, list[ast.stmt]]:
    off = off_by_default_statements(module.tree)
    if not off:
        return settings
    kept = {name: [s for s in found if id(s) not in off] for name, found in settings.items()}
    return {name: found for name, found in kept.items() if found}


def _one_per_cause(
    found: list[Finding], children: dict[str, list[PythonModule]]
) -> Iterator[Finding]:
    """One finding per message: the importing module's (which decides), others related;
    within one module, the first line (fourteen file handlers of one ``LOGGING`` are one
    choice: logging to files)."""
    importers = {path: {c.path for c in kids} for path, kids in children.items()}
    groups: dict[str, list[Finding]] = {}
    for finding in found:
        groups.setdefault(finding.message, []).append(finding)
    for group in groups.values():
        if len(group) == 1:
            yield from group
            continue
        if len({f.path for f in group}) == 1:
            primary = sorted(group)[0]
        else:
            # The finding in a module that no other module of the group imports decides.
            paths = {g.path for g in group}
            deciders = [f for f in group if not importers.get(f.path, set()) & paths]
            primary = (deciders or group)[0]
        # The same place found twice (a base's value moved to its decider, and the decider's
        # own) is one location; what either relates stays related.
        places: dict[tuple[str, int], Location] = {}
        for f in group:
            for place in (Location(f.path, f.line), *f.related):
                if (place.path, place.line) != (primary.path, primary.line):
                    places.setdefault((place.path, place.line), place)
        yield primary._replace(related=tuple(places.values()))


def star_imported_helpers(
    modules: Iterable[PythonModule], paths: Iterable[str], read: Callable[[str], str | None]
) -> dict[str, frozenset[str]]:
    """The project's own non-settings modules that settings modules star-import (``from
    arches.settings_utils import *``), by the dotted name imported, to the names they
    assign at top level: what the import brings in is known, not "anything". ``read``
    gives a file's text by its path in the tree; a helper with star imports of its own,
    or one that cannot be read or parsed, stays unknown."""
    by_suffix: dict[str, list[str]] = {}
    for path in paths:
        if path.endswith(".py"):
            dotted = path[: -len(".py")].removesuffix("/__init__").replace("/", ".")
            parts = dotted.split(".")
            for start in range(len(parts)):
                by_suffix.setdefault(".".join(parts[start:]), []).append(path)
    found: dict[str, frozenset[str]] = {}
    present = set(paths)
    for module in modules:
        for node in module.tree.body:
            if not (isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)):
                continue
            if node.level and node.module:
                # ``from .app.csp import *``: the file beside the importer, by its path.
                dotted = absolute_import_name(module.path, node)
                candidates = [
                    path
                    for path in (
                        f"{dotted.replace('.', '/')}.py",
                        f"{dotted.replace('.', '/')}/__init__.py",
                    )
                    if path in present
                ]
                key = dotted
            elif node.level or not node.module:
                continue
            else:
                candidates = by_suffix.get(node.module, [])
                key = node.module
            if key in found:
                continue
            text = read(candidates[0]) if len(candidates) == 1 else None
            names = _top_level_names(text) if text is not None else None
            if names is not None:
                found[key] = names
    return found


def _top_level_names(text: str) -> frozenset[str] | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
            return None
        targets = (
            statement.targets
            if isinstance(statement, ast.Assign)
            else [statement.target]
            if isinstance(statement, ast.AnnAssign)
            else []
        )
        names.update(t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper())
    return frozenset(names)


def project_settings_names(modules: Iterable[PythonModule]) -> dict[str, frozenset[str]]:
    """Each settings module's dotted name (and every shorter suffix of it: the tree may be
    scanned from above the import root) to the settings names it assigns."""
    by_name: dict[str, set[str]] = {}
    names: dict[str, frozenset[str]] = {}
    for module in modules:
        parts = module.path[: -len(".py")].removesuffix("/__init__").split("/")
        assigned = frozenset(top_level_settings(module))
        for start in range(len(parts)):
            suffix = ".".join(parts[start:])
            by_name.setdefault(suffix, set()).add(module.path)
            names[suffix] = assigned
    # A suffix two modules share (``settings``) names neither for sure: left unknown.
    return {name: names[name] for name, paths in by_name.items() if len(paths) == 1}
