"""What a piece of code touches outside the process: the database, files, the network.

A memo over a pure function is fine on any number of instances; a memo over a query is
stale on every instance but the one that changed the row. A lock around list appends is
fine; a lock around "read a row, then write it" is the single-instance assumption. Both
judgements need to know what the guarded code reaches, which is what this module says.
"""

from __future__ import annotations

import ast

from horizontal.audit.source import PythonModule, dotted, last_part

# Method names that only make sense on a QuerySet/Manager/model instance.
ORM_METHODS = frozenset(
    {
        "objects",
        "get_or_create",
        "update_or_create",
        "bulk_create",
        "bulk_update",
        "select_for_update",
        "select_related",
        "prefetch_related",
        "values_list",
        "aggregate",
        "annotate",
        "get_solo",
        "raw",
        "refresh_from_db",
        "_default_manager",
        "_base_manager",
        "cursor",
    }
)
ORM_FUNCTIONS = frozenset({"get_object_or_404", "get_list_or_404", "get_current_site"})
# Writes through the ORM (a lock around these is a lock around shared state).
ORM_WRITES = frozenset({"save", "delete", "create", "update"})
# Files shipped in the image (templates, translations, fixtures) are the same on every
# instance, so reading them is not "data that changes"; uploads are, and they are reached
# through a storage or MEDIA_ROOT.
STORAGE_CALLS = frozenset({"open", "save", "exists", "listdir", "size", "url", "path"})
# Calls that fetch something; building a client (boto3.client, Minio(...)) fetches nothing.
NETWORK_ROOTS = ("requests.", "httpx.")
NETWORK_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "request"})
NETWORK_NAMES = frozenset({"urlopen"})
DB_BACKED_CONFIG = ("constance.config", "dynamic_preferences", "solo.")
# ``units.filter(default=True)``, ``.get(pk=pk)``, ``.exclude(Q(...))``: a lookup by field
# names through any manager, a related one included. ``dict.get`` and the builtin
# ``filter`` take positional arguments only.
LOOKUP_METHODS = frozenset({"filter", "exclude", "get"})


def touches(module: PythonModule, node: ast.AST, *, writes: bool = False) -> set[str]:
    """Kinds of outside data reached directly under ``node``: 'database', 'file', 'network'."""
    kinds: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute):
            if child.attr in ORM_METHODS or (writes and child.attr in ORM_WRITES):
                kinds.add("database")
            full = module.qualify(child) or ""
            if full.startswith(DB_BACKED_CONFIG):
                kinds.add("database")
            elif child.attr == "MEDIA_ROOT":
                kinds.add("file")
        elif isinstance(child, ast.Call):
            full = module.qualify(child.func) or ""
            name = last_part(full)
            if name in ORM_FUNCTIONS or field_lookup(full, child):
                kinds.add("database")
            elif name in STORAGE_CALLS and "storage" in full.rsplit(".", 1)[0].lower():
                kinds.add("file")
            elif (
                full.startswith(NETWORK_ROOTS) and name in NETWORK_VERBS
            ) or name in NETWORK_NAMES:
                kinds.add("network")
    return kinds


def field_lookup(name: str, call: ast.Call) -> bool:
    """A queryset lookup: field names as keywords, ``Q`` objects as the only positionals."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in LOOKUP_METHODS:
        return False
    if name.startswith(NETWORK_ROOTS) or not (call.args or call.keywords):
        return False
    return all(
        isinstance(argument, ast.Call) and last_part(dotted(argument.func) or "") == "Q"
        for argument in call.args
    )


def local_callees(module: PythonModule, node: ast.AST) -> set[str]:
    """Names of this module's own functions (or methods via ``self``) called under node."""
    names: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            name = dotted(child.func) or ""
            head, _, rest = name.partition(".")
            target = rest if head in {"self", "cls"} and "." not in rest else name
            if target in module.functions:
                names.add(target)
    return names


def reaches_outside(
    module: PythonModule, node: ast.AST, *, writes: bool = False, depth: int = 3
) -> set[str]:
    """``touches`` plus what this module's functions called from ``node`` touch."""
    kinds = touches(module, node, writes=writes)
    seen: set[str] = set()
    frontier = local_callees(module, node)
    for _ in range(depth):
        following: set[str] = set()
        for name in frontier - seen:
            seen.add(name)
            for function in module.functions[name]:
                kinds |= touches(module, function, writes=writes)
                following |= local_callees(module, function)
        frontier = following
    return kinds
