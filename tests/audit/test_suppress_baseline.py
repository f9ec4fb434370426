"""Inline ignores and baselines: adopt the audit on an old codebase, fail only on new code."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from horizontal.audit import CATEGORIES, scan_paths
from horizontal.audit.cli import main
from horizontal.audit.suppress import (
    ignored_categories,
    new_findings,
    read_baseline,
    write_baseline,
)

CORPUS = Path(__file__).parent / "corpus"
SUPPRESSED = CORPUS / "project" / "shop" / "suppressed.py"
ALL = list(CATEGORIES)  # module-state, opt-in, is what these modules hold


def test_ignore_comment_parsing():
    assert ignored_categories("x = {}  # horizontal: ignore[module-state]") == {"module-state"}
    assert ignored_categories("x = {}  # horizontal: ignore[cache, file-write]") == {
        "cache",
        "file-write",
    }
    assert ignored_categories("# horizontal: ignore") == {"*"}
    assert ignored_categories("x = {}  # noqa") is None


def test_matching_ignores_hide_findings_and_a_wrong_category_does_not():
    result = scan_paths([SUPPRESSED], base=CORPUS, categories=ALL)
    assert [(f.line, f.category) for f in result.findings] == [(8, "module-state")]
    assert result.suppressed == 2  # line 5 (same line) and line 7 (comment above)


def test_an_underscore_spelling_of_a_category_silences_it():
    assert ignored_categories("x = {}  # horizontal: ignore[module_state, file_write]") == {
        "module-state",
        "file-write",
    }


def test_a_check_id_names_its_category_and_no_longer_silences_everything():
    # ``ignore[horizontal.W104]`` used to read as a bare ignore: every category silenced.
    assert ignored_categories("lock = Lock()  # horizontal: ignore[horizontal.W104]") == {
        "in-process-lock"
    }
    assert ignored_categories("x  # horizontal: ignore[W103, cache]") == {"file-write", "cache"}
    assert ignored_categories("x  # horizontal: ignore[a/b]") == {"a/b"}


def test_an_ignore_naming_no_category_keeps_the_finding_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "views.py").write_text(
        "def export(request):\n"
        "    # horizontal: ignore[file_wirte, cache]\n"
        "    open('/srv/data/out.csv', 'w').write('x')  # horizontal: ignore[files]\n"
    )
    result = scan_paths([tmp_path], base=tmp_path)
    assert [f.line for f in result.findings] == [3]
    # Both comments at the finding (its line, the comment alone above), names as written.
    assert result.unknown_ignores == [("views.py", 3, ["file_wirte", "files"])]
    err = io.StringIO()
    out = io.StringIO()
    with (
        contextlib.chdir(tmp_path),
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(out),
    ):
        main(["."])
    said = "views.py:3: the ignore comment names no category of the audit (file_wirte, files)"
    assert said in err.getvalue()


def copy_module(tmp_path: Path) -> Path:
    target = tmp_path / "state.py"
    shutil.copy(CORPUS / "project" / "shop" / "state.py", target)
    return target


def test_baseline_absorbs_known_findings_even_after_lines_move(tmp_path):
    module = copy_module(tmp_path)
    before = scan_paths([module], base=tmp_path, categories=ALL).findings
    assert len(before) == 4
    baseline = tmp_path / "baseline.json"
    assert write_baseline(baseline, before) == 4

    # Unrelated lines inserted at the top shift every finding down.
    module.write_text("import os\nimport sys\n\n" + module.read_text())
    after = scan_paths([module], base=tmp_path, categories=ALL).findings
    assert [f.line for f in after] == [f.line + 3 for f in before]
    assert new_findings(after, read_baseline(baseline)) == []


def test_new_finding_is_reported_against_the_baseline(tmp_path):
    module = copy_module(tmp_path)
    baseline = tmp_path / "baseline.json"
    write_baseline(baseline, scan_paths([module], base=tmp_path, categories=ALL).findings)
    module.write_text(
        module.read_text() + "\n_QUEUE = []\n\n\ndef enqueue(job):\n    _QUEUE.append(job)\n"
    )
    fresh = new_findings(
        scan_paths([module], base=tmp_path, categories=ALL).findings, read_baseline(baseline)
    )
    assert [(f.category, module.read_text().splitlines()[f.line - 1]) for f in fresh] == [
        ("module-state", "_QUEUE = []")
    ]


def test_baseline_file_shape_and_version_check(tmp_path):
    module = copy_module(tmp_path)
    baseline = tmp_path / "baseline.json"
    write_baseline(baseline, scan_paths([module], base=tmp_path, categories=ALL).findings)
    document = json.loads(baseline.read_text())
    assert document["version"] == 1
    assert {e["category"] for e in document["findings"]} == {"module-state"}
    assert all(e["path"] == "state.py" for e in document["findings"])
    baseline.write_text(json.dumps({"version": 99, "findings": []}))
    with pytest.raises(ValueError, match="not a horizontal audit baseline"):
        read_baseline(baseline)


WRITES = (
    "import shutil\n"
    "def export(folder):\n"
    "    with open(folder + '/index.json', 'w') as handle:\n"
    "        handle.write('{}')\n"
    "def archive(folder):\n"
    "    shutil.move(folder, '/data/archive/')\n"
)


def test_a_write_added_to_a_baselined_module_is_new_and_a_removed_one_is_not(tmp_path):
    module = tmp_path / "export.py"
    module.write_text(WRITES)
    baseline = tmp_path / "baseline.json"
    write_baseline(baseline, scan_paths([module], base=tmp_path).findings)
    known = read_baseline(baseline)
    added = WRITES + "def backup(folder):\n    shutil.copy2(folder, '/data/backup/')\n"
    module.write_text(added)
    fresh = new_findings(scan_paths([module], base=tmp_path).findings, known)
    assert [(f.line, len(f.related)) for f in fresh] == [(3, 2)]
    module.write_text(WRITES.split("def archive")[0])
    assert new_findings(scan_paths([module], base=tmp_path).findings, known) == []
