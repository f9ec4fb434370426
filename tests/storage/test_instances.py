"""Two real gunicorn instances of testproject and a ``runjob`` process sharing one bucket.

The S3 endpoint is moto's server over HTTP; the instances are separate gunicorn masters
with their own processes and clients, as two hosts behind a balancer would be. Every
assertion is on bytes that went through a real HTTP request.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.databases import ScratchDatabase
from tests.support.processes import Instance, gunicorn_instances, manage, start_gunicorn
from tests.support.s3 import MotoServer, SilentServer

pytestmark = pytest.mark.multiprocess

SLOT = "2026-11-28T01:00:00Z"


@pytest.fixture(scope="module")
def project(moto: MotoServer) -> Iterator[tuple[dict[str, str], str]]:
    """The environment of every testproject process: one SQLite file, one bucket."""
    bucket = moto.create_bucket("fleet")
    database = ScratchDatabase("sqlite").create()
    env = {**database.env, **moto.project_env(bucket), "REDIS_URL": ""}
    yield env, bucket
    database.drop()


@pytest.fixture(scope="module")
def fleet(project: tuple[dict[str, str], str]) -> Iterator[list[Instance]]:
    env, _ = project
    with gunicorn_instances(2, env) as instances:
        yield instances


def upload(instance: Instance, name: str, data: bytes) -> dict[str, Any]:
    boundary = uuid.uuid4().hex
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    request = urllib.request.Request(
        f"{instance.url}/files/upload/",
        data=head + data + f"\r\n--{boundary}--\r\n".encode(),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.load(response))


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return bytes(response.read())


def download(instance: Instance, name: str) -> bytes:
    return get(f"{instance.url}/files/download/{urllib.parse.quote(name)}")


def signed_url(instance: Instance, name: str) -> str:
    answer = json.loads(get(f"{instance.url}/files/url/{urllib.parse.quote(name)}"))
    return str(answer["url"])


def test_uploaded_through_one_instance_downloaded_through_the_other(
    fleet: list[Instance],
) -> None:
    first, second = fleet
    data = os.urandom(3 * 1024 * 1024 + 17)  # past Django's in-memory upload limit
    stored = upload(first, "scan.bin", data)
    assert stored["instance"] == "web-0"
    assert stored["size"] == len(data)
    assert download(second, stored["name"]) == data


def test_a_signed_url_from_one_instance_works_without_any_instance(
    fleet: list[Instance],
) -> None:
    first, second = fleet
    data = os.urandom(200_000)
    stored = upload(second, "invoice.pdf", data)
    url = signed_url(first, stored["name"])
    assert "X-Amz-Signature=" in url
    assert get(url) == data


def test_concurrent_uploads_of_one_name_through_both_instances_keep_every_file(
    fleet: list[Instance],
) -> None:
    rounds = 4
    start = threading.Barrier(len(fleet))
    results: list[tuple[int, bytes, dict[str, Any]]] = []
    errors: list[BaseException] = []

    def send(index: int, instance: Instance) -> None:
        for round_number in range(rounds):
            data = f"instance {index} round {round_number} ".encode() * 5000
            start.wait(30)  # both instances post report.pdf at the same moment
            try:
                results.append((index, data, upload(instance, "report.pdf", data)))
            except BaseException as error:
                errors.append(error)

    threads = [threading.Thread(target=send, args=pair) for pair in enumerate(fleet)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors
    names = [stored["name"] for _, _, stored in results]
    assert len(names) == len(set(names)) == rounds * len(fleet)
    for index, data, stored in results:
        other = fleet[1 - index]
        assert download(other, stored["name"]) == data, stored


def test_a_report_written_by_runjob_is_downloadable_through_a_web_instance(
    project: tuple[dict[str, str], str], fleet: list[Instance], moto: MotoServer
) -> None:
    env, bucket = project
    manage("seed_demo", "--accounts", "3", "--refunds", "0", env=env)
    cron = {**env, "HORIZONTAL_INSTANCE_ID": "cron-1"}
    manage("runjob", "balances_report", "--slot", SLOT, env=cron)
    listing = moto.client().list_objects_v2(Bucket=bucket, Prefix="reports/")
    keys = [item["Key"] for item in listing.get("Contents", [])]
    assert keys == ["reports/balances-2026-11-28.csv"]
    in_bucket = moto.client().get_object(Bucket=bucket, Key=keys[0])["Body"].read()
    through_web = download(fleet[1], keys[0])
    assert through_web == in_bucket
    lines = through_web.decode().splitlines()
    assert lines[0].startswith("slot,2026-11-28T01:00:00") and ",written_by,cron-1," in lines[0]
    assert lines[1] == "account,balance"
    assert len(lines) == 2 + 3


def test_a_missing_file_is_a_404_on_every_instance(fleet: list[Instance]) -> None:
    for instance in fleet:
        with pytest.raises(urllib.error.HTTPError) as raised:
            download(instance, "uploads/never-uploaded.bin")
        assert raised.value.code == 404


def test_an_upload_without_a_file_is_a_clear_400(fleet: list[Instance]) -> None:
    request = urllib.request.Request(f"{fleet[0].url}/files/upload/", data=b"", method="POST")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=10)
    assert raised.value.code == 400
    assert "multipart field named 'file'" in json.load(raised.value)["error"]


def test_readiness_says_ok_then_names_a_missing_bucket(
    project: tuple[dict[str, str], str], fleet: list[Instance]
) -> None:
    answer = json.loads(get(f"{fleet[0].url}/files/ready/"))
    assert answer["ok"] is True
    env, _ = project
    broken = start_gunicorn({**env, "AWS_STORAGE_BUCKET_NAME": "no-such-bucket"})
    try:
        with pytest.raises(urllib.error.HTTPError) as raised:
            get(f"{broken.url}/files/ready/")
        assert raised.value.code == 503
        assert json.load(raised.value)["problem"] == "bucket_missing"
    finally:
        broken.stop()


def test_an_instance_whose_endpoint_never_answers_fails_requests_within_the_bound(
    project: tuple[dict[str, str], str],
) -> None:
    env, _ = project
    silent = SilentServer()
    bounds = {
        "HORIZONTAL_S3_CONNECT_TIMEOUT": "0.5",
        "HORIZONTAL_S3_READ_TIMEOUT": "1",
        "HORIZONTAL_S3_MAX_ATTEMPTS": "1",
    }
    # One attempt: 0.5 s connect + up to 1 s for 100-continue + 1 s read.
    bound = 2.5
    wedged = start_gunicorn({**env, **bounds, "AWS_S3_ENDPOINT_URL": silent.url})
    try:
        started = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as raised:
            upload(wedged, "stuck.bin", b"x" * 1000)
        assert raised.value.code == 500
        assert time.monotonic() - started < bound + 2.0
        assert b"ReadTimeoutError" in raised.value.read()  # testproject runs with DEBUG
        started = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as raised:
            get(f"{wedged.url}/files/ready/?timeout=1")
        assert raised.value.code == 503
        assert json.load(raised.value)["problem"] == "endpoint_timeout"
        assert time.monotonic() - started < 1 + 2.0
    finally:
        wedged.stop()
        silent.close()


def test_deploy_checks_say_when_files_are_local(project: tuple[dict[str, str], str]) -> None:
    env, _ = project
    no_bucket = {**env, "AWS_STORAGE_BUCKET_NAME": ""}
    local = manage("check", "--deploy", "--tag", "files", env=no_bucket)
    assert "horizontal.W060" in local.stdout + local.stderr
    shared = manage("check", "--deploy", "--tag", "files", env=env)
    found = set(re.findall(r"horizontal\.W06\d", shared.stdout + shared.stderr))
    # The test's S3 is moto on 127.0.0.1, which W066 rightly calls this host's own.
    assert found == {"horizontal.W066"}
