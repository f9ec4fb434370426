"""``horizontal.catalogue`` and ``manage.py horizontal_explain``: a check's full entry,
offline, from the copy of docs/checks.md the package carries.

That the copy is in step with the page is ``test_docs.py``'s business; here: that it is
read, printed and refused the way a user needs, and that the generator reads the page's
shapes (a table row, an id named only in prose, an id a later group mentions again).
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from horizontal.catalogue import (
    Entry,
    UnknownCheck,
    entries,
    explain,
    index,
    known_ranges,
    normalise_id,
    parse,
    read_json,
    render_json,
)
from tests.support.processes import manage

PAGE = """# System checks

Every id, one line each (the sections below give it all):

| id | level | runs on | one line |
| --- | --- | --- | --- |
| `horizontal.E001` | Error | every `check` | a setting has the wrong type |
| `horizontal.W001` | Warning | `--deploy` | a cache is `LocMemCache` |
| `horizontal.W002` | Warning | `--deploy` | a cache is `FileBasedCache` |
| `horizontal.W109` | Warning | `manage.py audit` | settings read from source |

Each id range is one module.

## Configuration errors (every `check`)

### `horizontal.E001`: settings

In `config.py`. See [settings](settings.md).

| id | what is wrong | fix |
| --- | --- | --- |
| `horizontal.E001` | `HORIZONTAL_LEASE_TTL = "30"` | a number of **seconds** |

## Deploy warnings (`check --deploy`)

### Caches: `horizontal.W001`–`W009`

| id | what goes wrong with N instances | risk | fix |
| --- | --- | --- | --- |
| `horizontal.W001` | every process has its own cache | stale pages | Redis |
| `horizontal.W002` | a cache per host | as W001 | as W001 |

### Code audit

`horizontal.W109` is reported by `manage.py audit` only; `horizontal.W001` is above.

```python
SILENCED_SYSTEM_CHECKS = ["horizontal.W109"]
```
"""


def test_parse_reads_rows_prose_only_ids_and_the_group_that_has_the_row() -> None:
    found = parse(PAGE)
    assert list(found) == [
        "horizontal.E001",
        "horizontal.W001",
        "horizontal.W002",
        "horizontal.W109",
    ]
    assert found["horizontal.E001"] == Entry(
        "horizontal.E001",
        "Error",
        "every `check`",
        "a setting has the wrong type",
        group="`horizontal.E001`: settings",
        fields=(
            ("what is wrong", '`HORIZONTAL_LEASE_TTL = "30"`'),
            ("fix", "a number of **seconds**"),
        ),
        notes=("In `config.py`. See [settings](settings.md).",),
    )
    # W001 keeps the group with its row, though "Code audit" names it again later.
    assert found["horizontal.W001"].group == "Caches: `horizontal.W001`–`W009`"
    assert [header for header, _ in found["horizontal.W001"].fields] == [
        "what goes wrong with N instances",
        "risk",
        "fix",
    ]
    # Named only in prose: the group's notes are its entry (code blocks left out).
    w109 = found["horizontal.W109"]
    assert (w109.group, w109.fields) == ("Code audit", ())
    assert w109.notes == (
        "`horizontal.W109` is reported by `manage.py audit` only; `horizontal.W001` is above.",
    )


def test_the_rendered_json_holds_exactly_what_was_parsed() -> None:
    found = parse(PAGE)
    assert read_json(render_json(found)) == found


def test_explain_prints_the_whole_entry_as_plain_text() -> None:
    text = explain("W001", parse(PAGE))
    assert text.splitlines()[0] == (
        "horizontal.W001 (Warning, runs on check --deploy): a cache is LocMemCache"
    )
    assert "What goes wrong with N instances:\n    every process has its own cache" in text
    assert "Risk:\n    stale pages" in text
    assert "Fix:\n    Redis" in text
    assert 'SILENCED_SYSTEM_CHECKS = ["horizontal.W001"]' in text
    error = explain("horizontal.E001", parse(PAGE))
    # Markdown marks and link targets are gone; an error is never to be silenced.
    assert 'HORIZONTAL_LEASE_TTL = "30"' in error and "a number of seconds" in error
    assert "See settings." in error and "settings.md" not in error
    assert error.endswith("Never silence an error: the configuration does not work.")


@pytest.mark.parametrize("typed", ["W060", "w060", "horizontal.W060", " horizontal.w060 "])
def test_an_id_is_accepted_as_users_type_it(typed: str) -> None:
    assert normalise_id(typed, entries()) == "horizontal.W060"


@pytest.mark.parametrize("typed", ["W999", "W60", "horizontal.X001", "storage", ""])
def test_hardening_16_an_unknown_id_names_the_known_ranges(typed: str) -> None:
    with pytest.raises(UnknownCheck) as raised:
        explain(typed)
    message = str(raised.value)
    assert f"{typed!r} is not a horizontal check id" in message
    assert "E001–E007" in message and "W060–W067" in message and "W101–W111" in message


def test_known_ranges_join_runs_of_one_level() -> None:
    ids = ["horizontal.E001", "horizontal.E002", "horizontal.E004", "horizontal.W032"]
    ids += ["horizontal.I033", "horizontal.W034", "horizontal.W035"]
    assert known_ranges(ids) == "E001–E002, E004, W032, W034–W035, I033"


def test_every_shipped_id_has_something_to_say() -> None:
    catalogue = entries()
    assert catalogue, "the package carries no catalogue"
    for check_id, entry in catalogue.items():
        assert entry.group and (entry.fields or entry.notes), check_id
        assert explain(check_id, catalogue).startswith(f"{check_id} ({entry.level}")


def test_index_lists_every_id_on_its_own_line() -> None:
    lines = index().splitlines()
    assert len(lines) == len(entries())
    assert lines[0].startswith("horizontal.E001  Error")


# -- the command ---------------------------------------------------------------------------


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("horizontal_explain", *args, stdout=out)
    return out.getvalue()


def test_hardening_16_the_command_prints_an_entry_offline() -> None:
    text = run("W065")
    assert text.startswith("horizontal.W065 (Warning, runs on check --deploy)")
    assert "Fix:" in text and "deadline" in text


def test_the_command_explains_several_ids_and_lists_all_without_one() -> None:
    assert run("E010", "W032").count("\n\nhorizontal.W032 (Warning") == 1
    assert run() == index() + "\n"


def test_an_unknown_id_is_a_usage_error() -> None:
    with pytest.raises(CommandError, match="Known ids: E001") as raised:
        run("W999")
    assert raised.value.returncode == 2


@pytest.mark.multiprocess
def test_hardening_16_manage_py_exits_2_for_an_unknown_id() -> None:
    done = manage("horizontal_explain", "W999", check=False)
    assert done.returncode == 2, done
    assert "'W999' is not a horizontal check id. Known ids: E001" in done.stderr
    assert "Traceback" not in done.stderr
    assert manage("horizontal_explain", "W060").stdout.startswith("horizontal.W060 (Warning")
