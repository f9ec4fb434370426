"""The prefilter only skips work: with it or without it, the findings are the same."""

from __future__ import annotations

from pathlib import Path

from horizontal.audit import CATEGORIES, runner, scan_paths
from horizontal.audit.prefilter import container_names, hot_lines

CORPUS = Path(__file__).parent / "corpus"


def every_line(text: str) -> list[int]:
    return list(range(1, text.count("\n") + 2))


def test_prefiltered_scan_finds_exactly_what_a_full_parse_finds(monkeypatch):
    every = list(CATEGORIES)  # the opt-in ones too: each detector's prefilter is checked
    fast = scan_paths([CORPUS], base=CORPUS, categories=every).findings
    monkeypatch.setattr(runner, "hot_lines", every_line)
    full = scan_paths([CORPUS], base=CORPUS, categories=every).findings
    assert fast == full
    assert len(full) > 50


def test_a_module_with_no_trigger_is_not_parsed():
    assert hot_lines("from django.db import models\n\nCOLORS = {'a': 1}\n") is None


def test_only_class_body_containers_count_as_class_level():
    text = (
        "class Notifier:\n"
        "    subscribers = []\n"
        "\n"
        "    def send(self):\n"
        "        pending = []\n"
        "        return pending\n"
        "CACHE = {}\n"
    )
    module_level, class_level = container_names(text)
    assert module_level == {"CACHE"}
    assert class_level == {"subscribers"}
