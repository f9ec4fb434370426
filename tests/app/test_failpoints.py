"""horizontal.failpoints: inert unless enabled; one-shot triggers; alternatives in order.

``exit`` and ``stop`` end or freeze the process; the chaos suite exercises them in real
worker processes. Here ``raise`` stands in as the observable action.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import override_settings

from horizontal import failpoints
from tests.support.processes import manage


def enabled(spec: str) -> override_settings:
    return override_settings(HORIZONTAL_DEBUG_FAILPOINTS=True, HORIZONTAL_FAILPOINTS=spec)


def test_inert_unless_debug_failpoints_is_on() -> None:
    with override_settings(HORIZONTAL_DEBUG_FAILPOINTS=False, HORIZONTAL_FAILPOINTS="p=raise"):
        failpoints.hit("p")


def test_an_armed_point_acts_and_others_do_not() -> None:
    with enabled("p=raise"):
        failpoints.hit("other")
        with pytest.raises(RuntimeError, match="failpoint p"):
            failpoints.hit("p")


def test_a_one_shot_without_its_trigger_file_passes_to_the_next_alternative(
    tmp_path: Path,
) -> None:
    with enabled(f"p=stop_once:{tmp_path / 'absent'}|raise"), pytest.raises(RuntimeError):
        failpoints.hit("p")


@pytest.mark.multiprocess
def test_a_one_shot_acts_once_per_trigger_file(tmp_path: Path) -> None:
    trigger = tmp_path / "w0.mid_job.exit"
    env = {
        "HORIZONTAL_DEBUG_FAILPOINTS": "1",
        "HORIZONTAL_FAILPOINTS": f"mid_job=stop_once:{tmp_path / 'w0.mid_job.stop'}"
        f"|exit_once:{trigger}",
    }
    code = "from horizontal import failpoints; failpoints.hit('mid_job'); print('went on')"
    trigger.touch()
    armed = manage("shell", "-c", code, env=env, check=False)
    assert armed.returncode == 137 and "went on" not in armed.stdout
    assert not trigger.exists(), "the trigger is consumed"
    disarmed = manage("shell", "-c", code, env=env)
    assert "went on" in disarmed.stdout


def test_an_unknown_action_is_an_error() -> None:
    with enabled("p=explode"), pytest.raises(ValueError, match="unknown failpoint action"):
        failpoints.hit("p")
