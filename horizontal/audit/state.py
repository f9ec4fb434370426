"""module-state: containers at module or class level that requests mutate, ``global`` rebinding.

A constant table is the same on every instance, so only containers *mutated inside a
function that runs after import* are findings. Registries filled by decorators,
``ready()`` or other import-time code are the same on every instance too, and are skipped.
A container filled with rows, file contents or responses is a memo over changing data and
is reported as ``cache`` instead.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from typing import NamedTuple

from horizontal.audit.effects import reaches_outside
from horizontal.audit.findings import Finding
from horizontal.audit.global_resets import assignments_to, loaded_once_with_resets
from horizontal.audit.patterns import lazy_compile
from horizontal.audit.prefilter import CONTAINER_MUTATORS
from horizontal.audit.source import (
    FunctionNode,
    PythonModule,
    dotted,
    last_part,
    local_names,
    string_value,
)

CONTAINER_CALLS = frozenset(
    {
        "dict",
        "list",
        "set",
        "defaultdict",
        "OrderedDict",
        "Counter",
        "deque",
        "ChainMap",
        "WeakValueDictionary",
        "WeakKeyDictionary",
        "WeakSet",
    }
)
CONTAINER_KINDS = {
    ast.Dict: "dict",
    ast.DictComp: "dict",
    ast.List: "list",
    ast.ListComp: "list",
    ast.Set: "set",
    ast.SetComp: "set",
}
MUTATORS = frozenset(CONTAINER_MUTATORS)  # the prefilter looks for the same calls as text
# Functions that run once at start-up on every instance alike (registration, app loading).
IMPORT_TIME_FUNCTION = lazy_compile(
    r"^(_?_?(un)?register\w*|autodiscover\w*|ready|populate\w*|__init_subclass__|__new__|"
    r"__set_name__|contribute_to_class|setup|setUp\w*|main)$"
)
WARN_ONCE = lazy_compile(r"warn", re.IGNORECASE)
MEMO_NAME = lazy_compile(r"cache|memo|registry|_seen_warnings", re.IGNORECASE)


class Container(NamedTuple):
    name: str  # "NAME" or "Class.NAME"
    kind: str
    line: int
    owner: ast.ClassDef | None


def container_kind(value: ast.AST | None) -> str | None:
    if value is None:
        return None
    kind = CONTAINER_KINDS.get(type(value))
    if kind:
        return kind
    if isinstance(value, ast.Call):
        name = last_part(dotted(value.func))
        if name in CONTAINER_CALLS:
            return name
    return None


def find_containers(module: PythonModule) -> dict[str, Container]:
    """Module- and class-level names bound to mutable containers, keyed as they are used."""
    found: dict[str, Container] = {}
    for node in module.nodes(ast.Assign, ast.AnnAssign):
        assert isinstance(node, ast.Assign | ast.AnnAssign)
        scope = module.scope(node)
        kind = container_kind(node.value)
        if scope.function is not None or kind is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if not isinstance(target, ast.Name) or target.id in {"urlpatterns", "__all__"}:
                continue
            key = f"{scope.cls.name}.{target.id}" if scope.cls else target.id
            found.setdefault(key, Container(key, kind, node.lineno, scope.cls))
    return found


def import_time_functions(module: PythonModule) -> set[str]:
    """Functions that only run while the module (or the app registry) loads."""
    names = {n for n in module.functions if IMPORT_TIME_FUNCTION.match(n)}
    names |= module.decorator_names & set(module.functions)
    for statement in module.tree.body:
        value = getattr(statement, "value", None)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            names.add(value.func.id)  # called while the module is imported
    # A decorator factory (``@federated_entity(key="id")``, used in other modules): the
    # closure it returns hands back the class it registers, at import time.
    for functions in module.functions.values():
        for function in functions:
            names.update(_registering_closures(function))
    # The closure a registering decorator returns runs at import time too.
    for name in list(names):
        for function in module.functions.get(name, []):
            names.update(
                inner.name
                for inner in ast.walk(function)
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef)
                and inner is not function
            )
    return names


def _registering_closures(function: FunctionNode) -> Iterator[str]:
    """Inner functions that ``function`` returns and that return their own first argument
    (``def factory(key): def register(cls): REGISTRY[key] = cls; return cls; return
    register``): the shape of a decorator, which runs while modules import."""
    returned = {
        node.value.id
        for node in function.body
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name)
    }
    for inner in function.body:
        if not isinstance(inner, ast.FunctionDef) or inner.name not in returned:
            continue
        parameters = [a.arg for a in (*inner.args.posonlyargs, *inner.args.args)]
        returns = [n for n in ast.walk(inner) if isinstance(n, ast.Return)]
        if (
            parameters
            and returns
            and all(isinstance(r.value, ast.Name) and r.value.id == parameters[0] for r in returns)
        ):
            yield inner.name


def mutated_key(module: PythonModule, target: ast.AST, function: FunctionNode) -> str | None:
    """The container key a mutation hits: ``NAME``, or ``Class.NAME`` via self/cls/Class."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        owner = target.value.id
        cls = module.scope(function).cls
        if owner in {"self", "cls"}:
            return f"{cls.name}.{target.attr}" if cls else None
        return f"{owner}.{target.attr}"
    return None


def mutations(module: PythonModule) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(container expression, statement) for every in-place change of a named container."""
    for node in module.nodes(ast.Assign, ast.AugAssign, ast.Delete):
        assert isinstance(node, ast.Assign | ast.AugAssign | ast.Delete)
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript):
                yield target.value, node
    for call in module.nodes(ast.Call):
        assert isinstance(call, ast.Call)
        if isinstance(call.func, ast.Attribute) and call.func.attr in MUTATORS:
            yield call.func.value, call


def instance_attributes(cls: ast.ClassDef) -> set[str]:
    """Attributes assigned on ``self`` anywhere in the class: those shadow class attributes."""
    return {
        node.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


# Classes Django and DRF instantiate for each request: what a method keeps through
# ``self`` serves that request (a shared class-level dict is a thread race, not state
# that another instance would need).
PER_REQUEST_BASES = ("View", "ViewSet", "APIView", "Form", "ModelForm", "Serializer")


def _made_per_request(cls: ast.ClassDef) -> bool:
    for base in cls.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith(PER_REQUEST_BASES):
            return True
    return False


def find_module_state(module: PythonModule) -> Iterator[Finding]:
    if module.is_script:
        return
    containers = find_containers(module)
    if containers:
        yield from _mutated_containers(module, containers)
    yield from loaded_once_with_resets(module, list(_global_rebinding(module)))


def _mutated_containers(
    module: PythonModule, containers: dict[str, Container]
) -> Iterator[Finding]:
    skip = import_time_functions(module)
    reported: set[str] = set()
    locals_cache: dict[int, set[str]] = {}
    shadowed: dict[int, set[str]] = {}
    for target, statement in mutations(module):
        function = module.scope(statement).function
        if function is None or getattr(function, "name", "") in skip:
            continue
        key = mutated_key(module, target, function)
        container = containers.get(key or "")
        if container is None or container.name in reported:
            continue
        if isinstance(target, ast.Name):
            names = locals_cache.setdefault(id(function), local_names(function))
            if target.id in names:
                continue
        elif container.owner is not None and isinstance(target, ast.Attribute):
            attrs = shadowed.setdefault(id(container.owner), instance_attributes(container.owner))
            via_self = isinstance(target.value, ast.Name) and target.value.id == "self"
            if via_self and target.attr in attrs:
                continue  # self.NAME is assigned somewhere: an instance attribute
            if via_self and _made_per_request(container.owner):
                continue  # a view or form's scratch: racy between threads, never shared
        if WARN_ONCE.search(container.name):
            continue  # which warnings this process already printed: its own business
        looked_up = _memo_fill(function, target)
        if _self_field_write(target, statement) and not looked_up:
            continue  # ``self.activity["count"] = n``: a record's field, refilled per call
        reported.add(container.name)
        if _handed_over(module, container):
            continue  # filled by one hook, popped by the next: nothing stays behind
        outside = reaches_outside(module, function)
        memo = looked_up and _stores_by_key(statement)
        if not outside and (MEMO_NAME.search(container.name) or memo):
            continue  # a memo of pure computation or of clients built from configuration
        if outside == {"network"} and (MEMO_NAME.search(container.name) or memo):
            continue  # what a service publishes, fetched again on a miss (caches.py)
        yield _container_finding(module, container, statement, outside)


def _container_finding(
    module: PythonModule, container: Container, statement: ast.AST, outside: set[str]
) -> Finding:
    where = getattr(statement, "lineno", container.line)
    if outside:
        reads = "/".join(sorted(outside))
        return Finding(
            module.path,
            container.line,
            "cache",
            f"{container.kind} {container.name!s} memoises {reads} reads in process memory "
            f"(filled at line {where}): writes on other instances never invalidate it",
            module.line(container.line),
        )
    what = "class attribute" if container.owner else "module-level"
    return Finding(
        module.path,
        container.line,
        "module-state",
        f"{what} {container.kind} {container.name} is mutated at run time (line {where}): "
        "each instance keeps its own copy and they diverge",
        module.line(container.line),
    )


def _handed_over(module: PythonModule, container: Container) -> bool:
    """A class's dict whose entries are only ever taken out with ``pop`` (openwisp's
    ``self._update_queue[rule_id] = changed`` in a pre-save step, ``.pop(rule_id)`` in the
    post-save one): a hand-over between two steps of one operation in one process, which
    keeps nothing between operations. A module-level dict is not (one request's view
    fills it, the next one's pops it), nor one read any other way: ``.get``, ``+=``,
    ``len``, through any object (``instance._update_queue``)."""
    if container.owner is None:
        return False
    _, _, short = container.name.rpartition(".")
    loads, popped, filled = _attribute_uses(module).get(short, (0, 0, 0))
    return popped > 0 and loads == popped + filled


@functools.lru_cache(maxsize=64)
def _attribute_uses(module: PythonModule) -> dict[str, tuple[int, int, int]]:
    """Per attribute name, however reached: (loads, loads that ``pop`` a key, loads that
    are a subscript's target in a plain assignment or a ``del``). Once per module."""
    popped: set[int] = set()
    filled: set[int] = set()
    attributes: list[ast.Attribute] = []
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute):
            attributes.append(node)
            if node.attr == "pop" and isinstance(node.ctx, ast.Load):
                popped.add(id(node.value))
        elif isinstance(node, ast.Assign | ast.Delete):
            targets = node.targets
            filled.update(id(t.value) for t in targets if isinstance(t, ast.Subscript))
    uses: dict[str, tuple[int, int, int]] = {}
    for node in attributes:
        if not isinstance(node.ctx, ast.Load):
            continue
        loads, pops, fills = uses.get(node.attr, (0, 0, 0))
        uses[node.attr] = (loads + 1, pops + (id(node) in popped), fills + (id(node) in filled))
    return uses


def _self_field_write(target: ast.AST, statement: ast.AST) -> bool:
    """``self.X["count"] = …``: a class-level dict used as an object's record, each key
    a field named in the code; a memo is keyed by what it looked up."""
    via_self = (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    )
    return (
        via_self
        and isinstance(statement, ast.Assign)
        and all(
            isinstance(t, ast.Subscript) and isinstance(string_value(t.slice), str)
            for t in statement.targets
        )
    )


def _stores_by_key(statement: ast.AST) -> bool:
    """``X[key] = value`` or ``X.setdefault(key, value)``: a memo's store (a set's add is not)."""
    if isinstance(statement, ast.Assign):
        return True
    return (
        isinstance(statement, ast.Call)
        and isinstance(statement.func, ast.Attribute)
        and statement.func.attr == "setdefault"
    )


def _memo_fill(function: FunctionNode, container: ast.AST) -> bool:
    """Does the function look the key up before storing it (get-or-build)?"""
    name = ast.dump(container)
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, ast.In | ast.NotIn) for op in node.ops
        ):
            if any(ast.dump(c) == name for c in node.comparators):
                return True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "get" and ast.dump(node.func.value) == name:
                return True
        elif isinstance(node, ast.Try):
            for inner in ast.walk(ast.Module(body=node.body, type_ignores=[])):
                loads = isinstance(inner, ast.Subscript) and isinstance(inner.ctx, ast.Load)
                if loads and ast.dump(inner.value) == name:  # type: ignore[attr-defined]
                    return True
    return False


def settings_receivers(module: PythonModule) -> set[str]:
    """Functions connected to Django's ``setting_changed``: they run when a test
    overrides settings (``override_settings``), never in a deployment."""
    if "setting_changed" not in module.text:
        return set()
    found: set[str] = set()
    for function in module.nodes(ast.FunctionDef):
        assert isinstance(function, ast.FunctionDef)
        for decorator in function.decorator_list:
            if isinstance(decorator, ast.Call) and any(
                (dotted(arg) or "").endswith("setting_changed") for arg in decorator.args
            ):
                found.add(function.name)
    for statement in ast.walk(module.tree):
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            receiver = dotted(call.func) or ""
            if receiver.endswith("setting_changed.connect") and call.args:
                found.add(dotted(call.args[0]) or "")
    return found


def _global_rebinding(module: PythonModule) -> Iterator[Finding]:
    skip = import_time_functions(module) | settings_receivers(module)
    for node in module.nodes(ast.Global):
        assert isinstance(node, ast.Global)
        function = module.scope(node).function
        if function is None or getattr(function, "name", "") in skip:
            continue
        for name in node.names:
            assignments = assignments_to(function, name)
            if not assignments:
                continue
            outside = reaches_outside(module, function)
            # Globals declared together are built together: ``if A is None: A = ...; B = f(A)``.
            if all(_guarded_lazy_init(function, a, node.names) for a in assignments):
                if not outside and any(_random_value(module, a) for a in assignments):
                    yield Finding(
                        module.path,
                        node.lineno,
                        "cache",
                        f"global {name} is set to a fresh random value on first use: each "
                        "instance makes its own (an identity or key the others do not share)",
                        module.line(node.lineno),
                    )
                    continue
                if not outside:
                    continue  # lazy construction of a client or object: same everywhere
                if not any(_calls_something(a, function) for a in assignments):
                    # ``_original = Admin.get_queryset`` before a monkeypatch: a reference
                    # kept, nothing loaded.
                    continue
                yield Finding(
                    module.path,
                    node.lineno,
                    "cache",
                    f"global {name} is loaded once from {'/'.join(sorted(outside))} and kept "
                    "for the life of the process: other instances' changes never reach it",
                    module.line(node.lineno),
                )
            elif not MEMO_NAME.search(name) or outside:
                yield Finding(
                    module.path,
                    node.lineno,
                    "module-state",
                    f"global {name} is rebound at run time: each instance has its own value",
                    module.line(node.lineno),
                )


def _calls_something(assignment: ast.AST, function: FunctionNode) -> bool:
    """A value a call returns, or a local the function built (``loaded = {}`` filled from
    a query, then ``_RATES = loaded``): a load, not a reference kept."""
    value = getattr(assignment, "value", None)
    if value is None:
        return False
    if isinstance(value, ast.Name) and value.id in local_names(function):
        return True
    return any(isinstance(n, ast.Call | ast.Await) for n in ast.walk(value))


def _random_value(module: PythonModule, assignment: ast.AST) -> bool:
    from horizontal.audit.known import RANDOM_VALUE_CALLS

    value = getattr(assignment, "value", None)
    return value is not None and any(
        isinstance(node, ast.Call)
        and last_part(module.qualify(node.func) or getattr(node.func, "attr", ""))
        in RANDOM_VALUE_CALLS
        for node in ast.walk(value)
    )


def _guarded_lazy_init(function: FunctionNode, assignment: ast.AST, names: list[str]) -> bool:
    """Build-once: the assignment sits under ``if NAME is None:``, or after a guard clause
    ``if NAME is not None: return NAME``, or it only resets NAME to a constant."""
    if isinstance(assignment, ast.AugAssign):
        return True  # counter += 1: an update of the value, judged where it is built
    value = getattr(assignment, "value", None)
    if isinstance(value, ast.Constant) and not value.value:
        return True  # NAME = None / False: a reset (tests, reconfiguration), not state
    line = getattr(assignment, "lineno", 0)
    for node in ast.walk(function):
        if not (isinstance(node, ast.If) and any(_tests_unset(node.test, n) for n in names)):
            continue
        if any(child is assignment for child in ast.walk(node)):
            return True
        returns = bool(node.body) and isinstance(node.body[-1], ast.Return)
        if returns and node.lineno < line:
            return True
    return False


def _tests_unset(test: ast.AST, name: str) -> bool:
    """``NAME is None``, ``NAME is not None``, ``not NAME`` or ``NAME`` itself, alone or in
    an ``and``/``or``: a test of whether NAME is built yet, not of what it holds
    (``if severity == "HIGH":`` decides a value each call)."""
    if isinstance(test, ast.BoolOp):
        return any(_tests_unset(value, name) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _tests_unset(test.operand, name)
    if isinstance(test, ast.Name):
        return test.id == name
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == name
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is | ast.IsNot | ast.Eq | ast.NotEq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )
