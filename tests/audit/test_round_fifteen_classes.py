"""Classes of the fifteenth round (issue 14), each with a true case and a safe twin.

- A systemd timer that an Ansible role turns on, in a role that also deploys the Django
  app (its server, ``manage.py``), runs its job on every web host the role provisions:
  one finding for the role, at the first timer's unit, the others related. A role that
  only installs a timer elsewhere (a backup host's role with no web app), or that stops
  one, is not reported.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

# -- timers an Ansible role turns on -------------------------------------------------------

WEB_ROLE = """\
- name: Install gunicorn service
  template:
    dest: /etc/systemd/system/gunicorn.service
    src: gunicorn.service.j2

- name: Enable and start the dataset timer
  systemd:
    name: create-dataset.timer
    state: started
    enabled: yes

- name: Enable the reminder timer
  ansible.builtin.systemd_service:
    name: "send-reminders.timer"
    enabled: true
"""

BACKUP_ROLE = """\
- name: Enable the backup timer
  systemd:
    name: pg-backup.timer
    state: started
    enabled: yes
"""

STOPPED_TIMER = """\
- name: Install gunicorn service
  template:
    dest: /etc/systemd/system/gunicorn.service
    src: gunicorn.service.j2

- name: Stop the old dataset timer
  systemd:
    name: create-dataset.timer
    state: stopped
    enabled: no
"""


def test_timers_a_web_role_turns_on_are_one_finding_for_the_role(tmp_path: Path) -> None:
    found = scan(tmp_path, {"ansible/roles/web/tasks/main.yml": WEB_ROLE}, "image-cron")
    assert where(found) == [("ansible/roles/web/tasks/main.yml", 8)]
    assert [place.line for place in found[0].related] == [14]


def test_a_timer_of_a_role_with_no_web_app_is_not_reported(tmp_path: Path) -> None:
    files = {"ansible/roles/backup/tasks/main.yml": BACKUP_ROLE}
    assert scan(tmp_path, files, "image-cron") == []


def test_a_timer_a_role_stops_is_not_reported(tmp_path: Path) -> None:
    files = {"ansible/roles/web/tasks/main.yml": STOPPED_TIMER}
    assert scan(tmp_path, files, "image-cron") == []
