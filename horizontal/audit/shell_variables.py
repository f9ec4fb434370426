"""A shell script's own variables, expanded where it uses them.

``manage="$PYTHON_BIN $APP_ROOT/manage.py"`` … ``$manage migrate`` runs migrate;
``MANAGE="docker compose exec -T web python manage.py"`` … ``$MANAGE migrate`` is an
operator's command into a running container, as the written-out line is. Each use of a
variable the script assigned above (``$NAME``, ``${NAME}``) is replaced by its value, and
``${NAME:-default}`` of one it did not assign by the default, so that every rule reads
the command the line runs. Lines keep their numbers; what the environment sets, and a
variable holding a command's output (``KEY=$(openssl rand -hex 32)``), stay as written.
"""

from __future__ import annotations

import re

from horizontal.audit.patterns import lazy_compile

__all__ = ["expand_variables"]

# ``NAME=value``, ``export NAME="value"``, ``local NAME='value'``: the whole line.
ASSIGNMENT = lazy_compile(
    r"""^\s*(?:(?:export|local|readonly)\s+)?([A-Za-z_]\w*)="""
    r"""(?:"([^"\n]*)"|'([^'\n]*)'|([^\s'";&|]*))\s*(?:#.*)?$"""
)
# ``${NAME}``, ``${NAME:-default}``, ``${NAME-default}``, ``$NAME``.
REFERENCE = lazy_compile(r"\$\{([A-Za-z_]\w*)(?::?-([^}]*))?\}|\$([A-Za-z_]\w*)")


def expand_variables(text: str) -> str:
    """``text`` with the script's own variables expanded, line for line."""
    if "$" not in text or "=" not in text:
        return text
    values: dict[str, str] = {}

    def value_of(match: re.Match[str]) -> str:
        braced, default, bare = match.groups()
        name = braced or bare
        if name in values:
            return values[name]
        return default if default is not None else match.group(0)

    lines = text.split("\n")
    for index, line in enumerate(lines):
        if "$" in line:
            line = REFERENCE.sub(value_of, line)
            lines[index] = line
        assigned = ASSIGNMENT.match(line) if "=" in line else None
        if assigned:
            name, double, single, bare = assigned.groups()
            value = next(v for v in (double, single, bare, "") if v is not None)
            if "$(" in value or "`" in value:
                values.pop(name, None)  # a command's output, not a command: left as named
            else:
                values[name] = value
    return "\n".join(lines)
