"""Instance identity: on every lease and run row, and on every log record."""

from __future__ import annotations

import logging
import os
import socket

from horizontal.instance import InstanceFilter, instance_id


def test_default_identity_is_host_pid_and_boot_id(settings: object) -> None:
    host, pid, boot = instance_id().rsplit(":", 2)
    assert host == socket.gethostname() and int(pid) == os.getpid() and len(boot) == 8
    assert instance_id() == instance_id()  # stable within the process


def test_explicit_identity_wins(settings: object) -> None:
    settings.HORIZONTAL_INSTANCE_ID = "web-7"  # type: ignore[attr-defined]
    assert instance_id() == "web-7"


def test_a_forked_child_gets_its_own_identity() -> None:
    parent = instance_id()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: report its id and leave without running pytest's exit
        os.write(write, instance_id().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    theirs = os.read(read, 200).decode()
    os.close(read)
    assert theirs != parent
    assert theirs.rsplit(":", 2)[1] == str(child)


def test_the_logging_filter_adds_the_instance_to_every_record() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hello", None, None)
    assert InstanceFilter().filter(record) is True
    assert record.instance == instance_id()  # type: ignore[attr-defined]
    formatted = logging.Formatter("[%(instance)s] %(message)s").format(record)
    assert formatted == f"[{instance_id()}] hello"
