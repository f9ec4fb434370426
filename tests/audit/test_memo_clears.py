"""A per-process memo is a single-instance assumption when the project clears it: the clear
runs in one process. One nothing clears is stale in every process alike, and is opt-in
module state (``horizontal/audit/memo_clears.py``)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from horizontal.audit import Finding, scan_paths
from horizontal.audit.findings import DEFAULT_CATEGORIES
from horizontal.audit.memo_clears import NEVER_CLEARED


def audit(tmp_path: Path, files: dict[str, str], *extra: str) -> list[Finding]:
    categories = [*DEFAULT_CATEGORIES, *extra]
    return scan_paths([_write(tmp_path, files)], base=tmp_path, categories=categories).findings


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
    return root


def memos(findings: list[Finding]) -> list[tuple[str, str, int]]:
    kept = [f for f in findings if f.category in {"cache", "module-state"}]
    return [(f.category, f.path, f.line) for f in kept]


SERVICE_MEMO = """\
from functools import lru_cache
from app.models import Service


class ApiMixin:
    @classmethod
    @lru_cache
    def get_service(cls):
        return Service.objects.get(name=cls.__name__)
"""

CLEARED_THROUGH_AN_ATTRIBUTE = """\
from django.db.models.signals import post_save
from django.dispatch import receiver


@receiver(post_save)
def service_saved(sender, instance, **kwargs):
    instance.viewset.get_service.cache_clear()
"""


def test_a_memo_nothing_clears_is_opt_in_module_state(tmp_path: Path) -> None:
    assert memos(audit(tmp_path, {"app/views.py": SERVICE_MEMO})) == []
    found = audit(tmp_path / "b", {"app/views.py": SERVICE_MEMO}, "module-state")
    assert memos(found) == [("module-state", "app/views.py", 7)]
    assert found[0].message.endswith(NEVER_CLEARED)


def test_a_memo_another_module_clears_through_an_attribute_is_a_cache_finding(
    tmp_path: Path,
) -> None:
    files = {"app/views.py": SERVICE_MEMO, "app/signals.py": CLEARED_THROUGH_AN_ATTRIBUTE}
    found = [f for f in audit(tmp_path, files) if f.category == "cache"]
    assert [(f.path, f.line) for f in found] == [("app/views.py", 7)]
    assert ("app/signals.py", 7) in [(r.path, r.line) for r in found[0].related]


def test_only_module_state_asked_for_keeps_the_memos_nothing_clears(tmp_path: Path) -> None:
    files = {"app/views.py": SERVICE_MEMO, "app/signals.py": CLEARED_THROUGH_AN_ATTRIBUTE}
    found = scan_paths([_write(tmp_path, files)], base=tmp_path, categories=["module-state"])
    assert found.findings == []  # the memo is cleared: a cache finding, not asked for
    alone = _write(tmp_path / "b", {"app/views.py": SERVICE_MEMO})
    found = scan_paths([alone], base=alone, categories=["module-state"])
    assert [f.category for f in found.findings] == ["module-state"]


TOOLS = """\
from app.models import Tool

_data = {}


def tool(name):
    if name not in _data:
        _data[name] = Tool.objects.get(name=name)
    return _data[name]
"""

FORGETS_THE_TOOL = """\
from app.tools import _data


def tool_renamed(name):
    _data.pop(name, None)
"""

ITS_OWN_DATA = """\
_data = {}


def reset():
    _data.clear()
"""


def test_a_dict_memo_popped_where_it_is_imported_is_a_cache_finding(tmp_path: Path) -> None:
    found = audit(tmp_path, {"app/tools.py": TOOLS, "app/admin_hooks.py": FORGETS_THE_TOOL})
    assert memos(found) == [("cache", "app/tools.py", 3)]


def test_a_same_named_dict_of_a_module_that_does_not_import_it_is_not_a_clear(
    tmp_path: Path,
) -> None:
    found = audit(tmp_path, {"app/tools.py": TOOLS, "app/other.py": ITS_OWN_DATA})
    assert memos(found) == []


RATES = """\
from app.models import Rate

RATES = None


def rates():
    global RATES
    if RATES is None:
        try:
            RATES = dict(Rate.objects.values_list("code", "value"))
        except Rate.DoesNotExist:
            RATES = {}
    return RATES
"""


def test_a_global_the_module_resets_elsewhere_is_a_cache_finding(tmp_path: Path) -> None:
    source = RATES + "\n\ndef rates_changed(**kwargs):\n    global RATES\n    RATES = None\n"
    found = audit(tmp_path, {"app/rates.py": source})
    assert memos(found) == [("cache", "app/rates.py", 7)]


def test_the_fillers_own_reset_before_it_fills_is_not_a_clear(tmp_path: Path) -> None:
    assert memos(audit(tmp_path, {"app/rates.py": RATES})) == []


def test_an_instance_attribute_of_the_same_name_is_not_a_clear(tmp_path: Path) -> None:
    shadow = "class Index:\n    def __init__(self):\n        self.RATES = {}\n"
    found = audit(tmp_path, {"app/rates.py": RATES + "\n\n" + shadow})
    assert memos(found) == []


def test_a_clear_in_a_management_command_clears_nothing_in_the_servers(tmp_path: Path) -> None:
    command = (
        "from django.core.management.base import BaseCommand\n"
        "from app import views\n\n\n"
        "class Command(BaseCommand):\n"
        "    def handle(self, *args, **options):\n"
        "        views.ApiMixin.get_service.cache_clear()\n"
    )
    files = {"app/views.py": SERVICE_MEMO, "app/management/commands/reload.py": command}
    assert memos(audit(tmp_path, files)) == []


# -- what a clear names (the review of 2026-12-06) ---------------------------------------------

CONFIG = """\
from functools import lru_cache
from {app}.models import Conf


@lru_cache
def get_config(user_id):
    return Conf.objects.filter(user_id=user_id).first()
"""


def test_a_same_named_memo_cleared_in_its_own_module_clears_no_other(tmp_path: Path) -> None:
    files = {
        "app1/conf.py": CONFIG.format(app="app1"),
        "app2/conf.py": CONFIG.format(app="app2")
        + "\n\ndef saved(**kw):\n    get_config.cache_clear()\n",
    }
    found = audit(tmp_path, files, "module-state")
    assert memos(found) == [("module-state", "app1/conf.py", 5), ("cache", "app2/conf.py", 5)]


def test_an_object_of_the_same_name_from_another_module_is_not_the_memo(tmp_path: Path) -> None:
    other = "from app.registry import _data\n\n\ndef reset():\n    _data.clear()\n"
    files = {"app/tools.py": TOOLS, "app/other.py": other, "app/registry.py": "_data = {}\n"}
    assert memos(audit(tmp_path, files)) == []


def test_locals_and_other_objects_attributes_of_the_same_name_are_not_clears(
    tmp_path: Path,
) -> None:
    shadow = TOOLS + (
        "\n\nclass Buffer:\n    def flush(self):\n        self._data.clear()\n\n\n"
        "def export(rows):\n    _data = list(rows)\n    _data.pop()\n"
    )
    assert memos(audit(tmp_path, {"app/tools.py": shadow})) == []


def test_the_fillers_own_eviction_is_not_a_clear(tmp_path: Path) -> None:
    evicting = TOOLS.replace(
        "    if name not in _data:\n",
        "    if len(_data) > 500:\n        _data.clear()\n    if name not in _data:\n",
    )
    assert memos(audit(tmp_path, {"app/tools.py": evicting})) == []


def test_a_clear_in_a_helper_only_commands_import_clears_nothing_in_the_servers(
    tmp_path: Path,
) -> None:
    helper = "from app.tools import _data\n\n\ndef reset():\n    _data.clear()\n"
    command = (
        "from django.core.management.base import BaseCommand\n"
        "from app.maintenance import reset\n\n\n"
        "class Command(BaseCommand):\n"
        "    def handle(self, *args, **options):\n"
        "        reset()\n"
    )
    files = {
        "app/tools.py": TOOLS,
        "app/maintenance.py": helper,
        "app/management/commands/resettools.py": command,
    }
    assert memos(audit(tmp_path, files)) == []


def test_clears_through_aliases_packages_and_lambdas_are_clears(tmp_path: Path) -> None:
    aliased = "from app.tools import _data as memo\n\n\ndef renamed(name):\n    memo.pop(name)\n"
    found = audit(tmp_path / "a", {"app/tools.py": TOOLS, "app/signals.py": aliased})
    assert memos(found) == [("cache", "app/tools.py", 3)]
    module = "import app.tools as t\n\n\ndef renamed(name):\n    t._data.pop(name)\n"
    found = audit(tmp_path / "b", {"app/tools/__init__.py": TOOLS, "app/signals.py": module})
    assert memos(found) == [("cache", "app/tools/__init__.py", 3)]
    connected = CONFIG.format(app="app") + (
        "\n\nfrom django.db.models.signals import post_save\n"
        "post_save.connect(lambda **kw: get_config.cache_clear())\n"
    )
    found = audit(tmp_path / "c", {"app/conf.py": connected})
    assert memos(found) == [("cache", "app/conf.py", 5)]


def test_a_memos_suppression_is_read_for_the_category_it_ends_with(tmp_path: Path) -> None:
    ignored = TOOLS.replace("_data = {}", "_data = {}  # horizontal: ignore[module-state]")
    root = _write(tmp_path, {"app/tools.py": ignored})
    result = scan_paths([root], base=root, categories=[*DEFAULT_CATEGORIES, "module-state"])
    assert memos(result.findings) == [] and result.suppressed == 1
    wrong = TOOLS.replace("_data = {}", "_data = {}  # horizontal: ignore[cache]")
    found = audit(tmp_path / "b", {"app/tools.py": wrong}, "module-state")
    assert memos(found) == [("module-state", "app/tools.py", 3)]


def test_a_module_too_deep_for_the_parser_is_skipped_not_a_crash(tmp_path: Path) -> None:
    generated = "# mentions _data\nTOTAL = " + "+".join(["1"] * 100_000) + "\n"
    files = {"app/tools.py": TOOLS, "app/generated.py": generated}
    assert memos(audit(tmp_path, files, "module-state")) == [("module-state", "app/tools.py", 3)]


LANGUAGES_MEMO = """\
import functools

from django.conf import settings
from django.core.signals import setting_changed
from django.db.models.signals import post_save
from django.dispatch import receiver

from app.models import Language


@functools.cache
def content_languages():
    return dict(Language.objects.values_list("code", "name"))


@receiver({signal})
def reset_cache(**kwargs):
    content_languages.cache_clear()
"""


def test_a_memo_cleared_only_when_a_test_overrides_settings_is_not_cleared_on_save(
    tmp_path: Path,
) -> None:
    # ``setting_changed`` is sent by override_settings, in tests: nothing clears it in
    # production, so it is opt-in module state, not a memo cleared on save.
    tests_only = {"app/langs.py": LANGUAGES_MEMO.format(signal="setting_changed")}
    assert memos(audit(tmp_path / "a", tests_only)) == []
    connected = (
        LANGUAGES_MEMO.format(signal="post_save").replace("@receiver(post_save)\n", "")
        + "\nsetting_changed.connect(reset_cache)\n"
    )
    assert memos(audit(tmp_path / "b", {"app/langs.py": connected})) == []
    on_save = {"app/langs.py": LANGUAGES_MEMO.format(signal="post_save")}
    assert memos(audit(tmp_path / "c", on_save)) == [("cache", "app/langs.py", 11)]
    # A receiver of both signals clears on save as well.
    both = LANGUAGES_MEMO.format(signal="post_save").replace(
        "@receiver(post_save)\n", "@receiver(post_save)\n@receiver(setting_changed)\n"
    )
    assert memos(audit(tmp_path / "d", {"app/langs.py": both})) == [("cache", "app/langs.py", 11)]
