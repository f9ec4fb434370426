"""Python 3.12's f-strings (PEP 701) and multi-line type parameters, read by an older
parser (``horizontal/audit/fstrings.py``, ``source.parse_tree``): respelled on the same
lines, so the audit reads the file instead of skipping it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from horizontal.audit.fstrings import respell_fstrings
from horizontal.audit.source import parse_tree
from tests.audit.test_outside_measurements import scan, where

OLDER_PARSER = sys.version_info < (3, 12)


@pytest.mark.parametrize(
    ("written", "respelled"),
    [
        # The f-string's own quote inside a field takes the other quote.
        ('f"{row["name"]}"', "f\"{row['name']}\""),
        # A nested f-string in the same quote, likewise.
        ('f"{f"{x}"}"', "f\"{f'{x}'}\""),
        # A backslash in a field, or a quote that has nowhere to go: an empty string in a
        # free quote (still a string, beside the ones joined to it), else None.
        ("f\"{'\\n'.join(lines)}\"", "f\"{''.join(lines)}\""),
        ('f"{f\'"{name}"\'}"', "f\"{''}\""),
        ('f"{"\\n" "x"}"', "f\"{'' 'x'}\""),
        # A backslash before a brace escapes nothing; \N{...} is a name, not a field.
        ('rf"\\{{{d["k"]}\\}}"', "rf\"\\{{{d['k']}\\}}\""),
        ('f"\\N{BULLET} {d["k"]}"', "f\"\\N{BULLET} {d['k']}\""),
        # Space after a conversion or a format spec that breaks the line goes before it.
        ('f"{\n    value!r\n}"', 'f"""{\n    value\n!r}"""'),
        ('f"{\n    total:,.2f\n}"', 'f"""{\n    total\n:,.2f}"""'),
        # A comment in a field is dropped; its line break stays.
        ('f"""{x  # the id\n}"""', 'f"""{x  \n}"""'),
        # A single-quoted f-string whose field breaks the line becomes triple-quoted.
        ('f"{\n    x\n}"', 'f"""{\n    x\n}"""'),
        # Conversions, format specs with fields of their own, != and escaped braces.
        ('f"{a!r:>{width}} {a != b} {{x}}"', 'f"{a!r:>{width}} {a != b} {{x}}"'),
    ],
)
def test_a_pep_701_fstring_is_respelled_on_the_same_lines(written: str, respelled: str) -> None:
    assert respell_fstrings(written) == respelled
    assert respelled.count("\n") == written.count("\n")
    ast.parse(respelled)  # an older parser reads it, as the newer one reads both


def test_what_an_older_parser_reads_is_left_as_it_is() -> None:
    assert respell_fstrings("x = (rf'\\{{', '}')\n") == "x = (rf'\\{{', '}')\n"
    source = (
        "x = 'a # not a comment'  # a comment with \"quotes\"\n"
        "y = rb'\\d+' + f'{x!r}' + f\"{y['k']}\" + '''it's'''\n"
        'z = f"""{x["k"]}"""\n'
    )
    assert respell_fstrings(source) == source


def test_a_string_the_scanner_cannot_follow_leaves_the_file_as_it_is() -> None:
    assert respell_fstrings('x = "unterminated\n') == 'x = "unterminated\n'


MODERN_VIEW = """\
import os

from django.conf import settings


class Merger[
    ScrapeType,
    ParamType,
](object):
    pass


def export(request, rows):
    label = f"{rows[0]["name"]}"
    path = os.path.join(settings.MEDIA_ROOT, "exports", f"{label}.csv")
    with open(path, "w") as out:
        out.write(f"{'\\n'.join(r["line"] for r in rows)}")
    return path
"""


@pytest.mark.skipif(not OLDER_PARSER, reason="Python 3.12 reads the file as it is")
def test_an_older_parser_rejects_the_file_the_audit_now_reads() -> None:
    with pytest.raises(SyntaxError):
        ast.parse(MODERN_VIEW)


def test_a_module_in_python_3_12_syntax_is_read_at_its_lines(tmp_path: Path) -> None:
    tree = parse_tree(MODERN_VIEW, "app/views.py")
    assert tree is not None
    merger, export = tree.body[2], tree.body[3]
    assert isinstance(merger, ast.ClassDef) and merger.lineno == 6
    assert isinstance(export, ast.FunctionDef) and export.lineno == 13
    assert export.body[2].lineno == 16
    # The file under MEDIA_ROOT, written beside the new f-strings, is found where it is.
    found = scan(tmp_path, {"app/views.py": MODERN_VIEW})
    assert ("app/views.py", 15) in where(found)


def test_f_strings_nested_past_any_reason_leave_the_file_as_it_is() -> None:
    deep = "x = " + "f'{" * 3000 + "y" + "}'" * 3000 + "\n"
    assert respell_fstrings(deep) == deep


@pytest.mark.parametrize(
    "source",
    [
        "type Pair[\n    T,\n] = tuple[T, T]\nx = f'{d[\"a\"]}'\n",
        "class C[\n    T,\n]:\n    pass\nx = 1\n",
        "def f[\n    T,\n](x: T) -> T:\n    return x\nx = 1\n",
    ],
)
def test_type_parameters_over_several_lines_are_dropped_on_the_same_lines(source: str) -> None:
    tree = parse_tree(source, "x.py")
    assert tree is not None
    assert tree.body[-1].lineno == source.count("\n")
