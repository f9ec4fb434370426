"""``horizontal.storage.S3Storage`` against a real S3 endpoint (moto's server over HTTP).

The faults at the end are real too: a port nobody listens on, a TCP server that
accepts and never answers, a bucket that does not exist. Each must be a clear error
within the configured bound, never a hang.
"""

from __future__ import annotations

import io
import os
import pickle
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    EndpointConnectionError,
    ReadTimeoutError,
)
from django.core.exceptions import ImproperlyConfigured, SuspiciousFileOperation
from django.core.files.base import ContentFile, File
from django.core.files.storage import storages

from horizontal.checks.storage import (
    check_s3_check_then_write,
    check_s3_overwrite,
    check_s3_timeouts,
)
from horizontal.storage import S3Storage
from tests.storage.conftest import SLACK, storage_at
from tests.support.s3 import ACCESS_KEY, REGION, SECRET_KEY, MotoServer, SilentServer


def keys(moto: MotoServer, bucket: str) -> list[str]:
    listing = moto.client().list_objects_v2(Bucket=bucket)
    return sorted(item["Key"] for item in listing.get("Contents", []))


def stored_bytes(moto: MotoServer, bucket: str, key: str) -> bytes:
    return bytes(moto.client().get_object(Bucket=bucket, Key=key)["Body"].read())


class RequestLog:
    """Records the S3 operations a storage's clients send (botocore's own event hook)."""

    def __init__(self, storage: S3Storage) -> None:
        self.operations: list[str] = []
        for client in (storage._writer, storage.connection.meta.client):
            client.meta.events.register("before-send.s3", self._record)

    def _record(self, event_name: str, **kwargs: Any) -> None:
        self.operations.append(event_name.rsplit(".", 1)[-1])  # before-send.s3.PutObject


def test_save_and_open_round_trip_byte_for_byte(storage: S3Storage) -> None:
    data = os.urandom(300_000)
    name = storage.save("uploads/photo.jpg", ContentFile(data))
    assert name == "uploads/photo.jpg"
    with storage.open(name, "rb") as file:
        assert file.read() == data
        assert file.size == len(data)


def test_text_content_is_stored_as_utf8(storage: S3Storage, moto: MotoServer, bucket: str) -> None:
    name = storage.save("notes/hello.txt", ContentFile("grüße, 世界"))
    assert stored_bytes(moto, bucket, name) == "grüße, 世界".encode()
    with storage.open(name, "r") as file:
        assert file.read() == "grüße, 世界"


def test_a_free_name_costs_one_put_and_a_read_one_get(storage: S3Storage) -> None:
    log = RequestLog(storage)
    name = storage.save("one/request.bin", ContentFile(b"x" * 10))
    assert log.operations == ["PutObject"]
    storage.open(name).read()
    assert log.operations == ["PutObject", "GetObject"]


def test_a_taken_name_gets_a_fresh_one_and_both_are_kept(
    storage: S3Storage, moto: MotoServer, bucket: str
) -> None:
    first = storage.save("reports/report.pdf", ContentFile(b"first"))
    second = storage.save("reports/report.pdf", ContentFile(b"second"))
    assert first == "reports/report.pdf"
    assert second != first
    assert second.startswith("reports/report_") and second.endswith(".pdf")
    assert stored_bytes(moto, bucket, first) == b"first"
    assert stored_bytes(moto, bucket, second) == b"second"


def test_concurrent_saves_of_one_name_keep_every_file(moto: MotoServer, bucket: str) -> None:
    # One storage object per thread, as on separate instances; all start together.
    writers = 8
    start = threading.Barrier(writers)
    names: list[str] = []
    errors: list[BaseException] = []

    def save(index: int) -> None:
        storage = S3Storage(**moto.storage_options(bucket))
        assert storage._writer is not None  # build the client before the race, not in it
        start.wait()
        try:
            names.append(storage.save("race/report.pdf", ContentFile(f"writer {index}".encode())))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=save, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert len(set(names)) == writers
    contents = {stored_bytes(moto, bucket, name) for name in names}
    assert contents == {f"writer {i}".encode() for i in range(writers)}


def test_multipart_save_refuses_an_existing_name_and_leaves_no_parts(
    moto: MotoServer, bucket: str
) -> None:
    storage = S3Storage(
        **moto.storage_options(bucket),
        transfer_config=TransferConfig(
            multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024
        ),
    )
    big_one, big_two = os.urandom(6 * 1024 * 1024), os.urandom(6 * 1024 * 1024)
    first = storage.save("exports/big.bin", ContentFile(big_one))
    second = storage.save("exports/big.bin", ContentFile(big_two))
    assert first != second
    assert stored_bytes(moto, bucket, first) == big_one
    assert stored_bytes(moto, bucket, second) == big_two
    in_progress = moto.client().list_multipart_uploads(Bucket=bucket).get("Uploads", [])
    assert in_progress == []


def test_fresh_names_respect_max_length(storage: S3Storage) -> None:
    first = storage.save("a/averyveryverylongname.txt", ContentFile(b"1"), max_length=30)
    second = storage.save("a/averyveryverylongname.txt", ContentFile(b"2"), max_length=30)
    assert first != second
    assert len(first) <= 30 and len(second) <= 30


def test_non_seekable_content_is_saved_whole(storage: S3Storage) -> None:
    class Stream(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self._data = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def seekable(self) -> bool:
            return False

        def readinto(self, buffer: Any) -> int:
            chunk = self._data.read(len(buffer))
            buffer[: len(chunk)] = chunk
            return len(chunk)

    data = os.urandom(100_000)
    first = storage.save("stream/data.bin", File(Stream(data), name="data.bin"))
    second = storage.save("stream/data.bin", File(Stream(data[::-1]), name="data.bin"))
    assert storage.open(first).read() == data
    assert storage.open(second).read() == data[::-1]


def test_a_big_file_on_disk_is_streamed_and_saved_whole(storage: S3Storage, tmp_path: Any) -> None:
    data = os.urandom(9 * 1024 * 1024)  # past the in-memory limit: sent from the file
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    with path.open("rb") as disk_file:
        first = storage.save("disk/big.bin", File(disk_file, name="big.bin"))
        second = storage.save("disk/big.bin", File(disk_file, name="big.bin"))
    assert first != second
    assert storage.open(first).read() == data
    assert storage.open(second).read() == data


def test_path_traversal_is_refused_and_nothing_is_written(
    storage: S3Storage, moto: MotoServer, bucket: str
) -> None:
    with pytest.raises(SuspiciousFileOperation):
        storage.save("../outside.txt", ContentFile(b"x"))
    assert keys(moto, bucket) == []


def test_opening_a_missing_file_raises_file_not_found(storage: S3Storage) -> None:
    with pytest.raises(FileNotFoundError, match=r"nothing/here\.txt"):
        storage.open("nothing/here.txt")


def test_signed_url_downloads_the_bytes(storage: S3Storage) -> None:
    data = os.urandom(5000)
    name = storage.save("signed/file.bin", ContentFile(data))
    url = storage.url(name)
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in url and "X-Amz-Signature=" in url
    with urllib.request.urlopen(url, timeout=5) as response:
        assert response.read() == data


def test_unsigned_url_of_a_private_object_is_refused(storage: S3Storage, moto: MotoServer) -> None:
    # moto's default server does not enforce auth, so read the object's ACL instead:
    # no ACL was sent, the object is private to the bucket owner.
    name = storage.save("private/file.bin", ContentFile(b"secret"))
    acl = moto.client().get_object_acl(Bucket=storage.bucket_name, Key=name)
    grants = {(g["Grantee"].get("URI"), g["Permission"]) for g in acl["Grants"]}
    assert ("http://acs.amazonaws.com/groups/global/AllUsers", "READ") not in grants


def test_explicit_file_overwrite_replaces_as_upstream_does(moto: MotoServer, bucket: str) -> None:
    storage = S3Storage(**moto.storage_options(bucket), file_overwrite=True)
    storage.save("same.txt", ContentFile(b"old"))
    assert storage.save("same.txt", ContentFile(b"new")) == "same.txt"
    assert stored_bytes(moto, bucket, "same.txt") == b"new"


def test_hardening_18_a_thumbnail_alias_replaces_a_regenerated_name_default_never_does(
    moto: MotoServer, bucket: str, settings: Any
) -> None:
    # docs/files.md's recipe: the cache a thumbnail library writes under names derived
    # from the source gets an alias of its own; uploads stay on the default.
    settings.STORAGES = {
        "default": {
            "BACKEND": "horizontal.storage.S3Storage",
            "OPTIONS": moto.storage_options(bucket),
        },
        "thumbnails": {
            "BACKEND": "horizontal.storage.S3Storage",
            "OPTIONS": moto.storage_options(
                bucket, location="thumbnails", deterministic_names=True
            ),
        },
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    thumbnails, default = storages["thumbnails"], storages["default"]
    name = "photos/7/200x200_crop.jpg"
    assert thumbnails.save(name, ContentFile(b"rendered from the old photo")) == name
    # The photo changed, or the library lost its record: it renders again, same name.
    assert thumbnails.save(name, ContentFile(b"rendered from the new photo")) == name
    with thumbnails.open(name) as file:
        assert file.read() == b"rendered from the new photo"
    assert keys(moto, bucket) == [f"thumbnails/{name}"]

    first = default.save("uploads/photo.jpg", ContentFile(b"one user's photo"))
    second = default.save("uploads/photo.jpg", ContentFile(b"another user's photo"))
    assert first != second
    assert stored_bytes(moto, bucket, first) == b"one user's photo"
    # The recipe passes check --deploy: overwriting there is the point, not an accident.
    assert check_s3_overwrite() == []
    assert check_s3_check_then_write() == []


def test_without_conditional_writes_a_taken_name_is_found_by_asking_first(
    moto: MotoServer, bucket: str
) -> None:
    storage = S3Storage(**moto.storage_options(bucket), conditional_writes=False)
    first = storage.save("ask/first.txt", ContentFile(b"1"))
    second = storage.save("ask/first.txt", ContentFile(b"2"))
    assert first != second
    assert stored_bytes(moto, bucket, first) == b"1"


def test_safe_defaults() -> None:
    storage = S3Storage(bucket_name="b")
    assert storage.file_overwrite is False
    assert storage.querystring_auth is True
    assert storage.default_acl is None
    assert storage.signature_version == "s3v4"
    assert storage.client_config.connect_timeout == 2.0
    assert storage.client_config.read_timeout == 5.0
    assert storage.client_config.retries == {"mode": "standard", "total_max_attempts": 3}
    assert storage.refuses_overwrite is True
    assert storage.deadline == 10.0
    # 3 attempts x (2 s connect + 1 s for 100-continue + 5 s read) + backoff <= 1 + 2 s
    # would be 27 s; the deadline bounds the call, retries included.
    assert storage.worst_case_seconds == 10.0
    assert S3Storage(bucket_name="b", deadline=None).worst_case_seconds == 27.0


def test_migrations_record_the_public_path_and_a_subclass_its_own() -> None:
    # A FileField(storage=S3Storage(...)) is serialised by this path: it must not change
    # with the module the class lives in, or makemigrations would see a change.
    path, args, kwargs = S3Storage(bucket_name="b").deconstruct()
    assert (path, args, kwargs) == ("horizontal.storage.S3Storage", (), {"bucket_name": "b"})
    assert Tenant(bucket_name="b").deconstruct()[0] == f"{__name__}.Tenant"


class Tenant(S3Storage):
    """A project's own subclass, as a settings module or a model would name it."""


def test_a_given_client_config_wins_and_unset_timeouts_stay_bounded() -> None:
    storage = S3Storage(bucket_name="b", client_config=Config(read_timeout=30))
    assert storage.client_config.read_timeout == 30
    assert storage.client_config.connect_timeout == 2.0


@pytest.mark.parametrize(
    "option",
    [{"read_timeout": 0}, {"connect_timeout": "2"}, {"max_attempts": -1}, {"deadline": 0}],
)
def test_a_bound_that_is_not_a_positive_number_is_refused(option: dict[str, Any]) -> None:
    with pytest.raises(ImproperlyConfigured, match=next(iter(option))):
        S3Storage(bucket_name="b", **option)


def test_region_and_endpoint_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "http://minio.internal:9000")
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    storage = S3Storage(bucket_name="b")
    assert storage.endpoint_url == "http://minio.internal:9000"
    assert storage.region_name == "eu-central-1"


def test_settings_win_over_the_environment(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    settings.AWS_S3_REGION_NAME = "us-west-2"
    assert S3Storage(bucket_name="b").region_name == "us-west-2"


def test_storage_pickles_without_its_clients(storage: S3Storage) -> None:
    storage.save("pickle/me.txt", ContentFile(b"x"))
    clone = pickle.loads(pickle.dumps(storage))
    assert clone.open("pickle/me.txt").read() == b"x"


# -- a broken endpoint or bucket ----------------------------------------------------


def timed(action: Callable[[], Any]) -> tuple[float, BaseException | None]:
    started = time.monotonic()
    try:
        action()
    except BaseException as error:  # the error is the result under test
        return time.monotonic() - started, error
    return time.monotonic() - started, None


def test_endpoint_down_fails_fast_with_a_connection_error(closed_port: int) -> None:
    storage = storage_at(f"http://127.0.0.1:{closed_port}")
    seconds, error = timed(lambda: storage.save("a.txt", ContentFile(b"x")))
    assert isinstance(error, EndpointConnectionError)
    assert f"127.0.0.1:{closed_port}" in str(error)
    assert seconds < storage.worst_case_seconds + SLACK


def test_endpoint_that_never_answers_times_out_within_the_bound(
    silent_server: SilentServer,
) -> None:
    storage = storage_at(silent_server.url)
    assert storage.worst_case_seconds == 2 * (0.5 + 1.0 + 1.0) + 1.0
    seconds, error = timed(lambda: storage.save("a.txt", ContentFile(b"x")))
    assert isinstance(error, ReadTimeoutError), error
    assert "Read timeout" in str(error)
    # Both attempts really waited for their read timeout: the bound is not vacuous.
    assert 2 * 1.0 <= seconds < storage.worst_case_seconds + SLACK


def test_reading_from_an_endpoint_that_never_answers_times_out(
    silent_server: SilentServer,
) -> None:
    storage = storage_at(silent_server.url, max_attempts=1)
    seconds, error = timed(lambda: storage.open("a.txt").read())
    assert isinstance(error, ReadTimeoutError), error
    assert seconds < storage.worst_case_seconds + SLACK


def test_missing_bucket_is_a_clear_error(moto: MotoServer) -> None:
    storage = storage_at(moto.url, bucket="no-such-bucket-here")
    seconds, error = timed(lambda: storage.save("a.txt", ContentFile(b"x")))
    assert isinstance(error, ClientError)
    assert error.response["Error"]["Code"] == "NoSuchBucket"
    assert seconds < storage.worst_case_seconds + SLACK


def test_reading_from_a_missing_bucket_is_not_a_missing_file(moto: MotoServer) -> None:
    storage = storage_at(moto.url, bucket="no-such-bucket-here")
    with pytest.raises(ClientError, match="NoSuchBucket"):
        storage.open("a.txt")


def default_storage_at(endpoint: str, **options: Any) -> S3Storage:
    """An ``S3Storage`` on ``endpoint`` with every bound at its default."""
    return S3Storage(
        bucket_name="any-bucket",
        endpoint_url=endpoint,
        region_name=REGION,
        access_key=ACCESS_KEY,
        secret_key=SECRET_KEY,
        **options,
    )


def test_hardening_19_a_wedged_endpoint_fails_within_the_default_deadline(
    silent_server: SilentServer,
) -> None:
    # The defaults: 2 s connect, 5 s read, 3 attempts; 15 s and more without a deadline.
    storage = default_storage_at(silent_server.url)
    seconds, error = timed(lambda: storage.save("a.txt", ContentFile(b"x")))
    assert seconds < 10.0 + SLACK, (seconds, error)
    from horizontal.storage.s3 import S3DeadlineExceeded

    assert isinstance(error, S3DeadlineExceeded), error
    assert isinstance(error, BotoCoreError)
    message = str(error)
    # The first attempt waited 1 s for 100-continue and its 5 s read timeout; a second
    # (up to 1 s backoff, 2 s connect, 1 s, 0.5 s at least) would end after 10 s.
    assert message.startswith("S3 PutObject gave up after 1 attempt(s)"), message
    assert "10 s deadline (S3Storage OPTIONS 'deadline')" in message
    assert "Last failure: ReadTimeoutError: Read timeout on endpoint URL" in message
    assert seconds > 5.0  # the attempt really waited its whole read timeout
    assert storage.worst_case_seconds == 10.0


def test_a_read_from_a_wedged_endpoint_is_retried_while_the_deadline_allows(
    silent_server: SilentServer,
) -> None:
    storage = default_storage_at(silent_server.url)
    seconds, error = timed(lambda: storage.open("a.txt").read())
    assert type(error).__name__ == "S3DeadlineExceeded", error
    # A GET has no 100-continue: 5 s, then a second attempt given the 3 s left after its
    # connect budget, then no room for a third.
    assert str(error).startswith("S3 GetObject gave up after 2 attempt(s)"), error
    assert 5.0 + 2.5 < seconds < 10.0 + SLACK


def test_a_deadline_bounds_reads_too(silent_server: SilentServer) -> None:
    storage = storage_at(silent_server.url, max_attempts=10, deadline=4.5)
    # Without the deadline: 10 attempts of 1 s each and backoff.
    assert storage.worst_case_seconds == 4.5
    seconds, error = timed(lambda: storage.open("a.txt").read())
    assert type(error).__name__ == "S3DeadlineExceeded", error
    assert str(error).startswith("S3 GetObject gave up after 2 attempt(s)")
    assert seconds < 4.5 + SLACK


def test_where_botocore_cannot_shorten_an_attempt_only_whole_ones_are_started(
    silent_server: SilentServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from horizontal.storage import s3_deadline

    monkeypatch.setattr(s3_deadline, "PER_REQUEST_READ_TIMEOUT", False)
    storage = storage_at(silent_server.url, max_attempts=10, deadline=4.0)
    seconds, error = timed(lambda: storage.save("a.txt", ContentFile(b"x")))
    assert type(error).__name__ == "S3DeadlineExceeded", error
    # A second whole attempt (1 s backoff, 0.5 s connect, 1 s for 100-continue, 1 s
    # read) would not fit after the first: one attempt, well within the deadline.
    assert str(error).startswith("S3 PutObject gave up after 1 attempt(s)")
    assert seconds < 4.0 + SLACK


def test_a_deadline_too_short_for_one_attempt_is_refused() -> None:
    with pytest.raises(ImproperlyConfigured, match=r"deadline \(2 s\) leaves no time"):
        S3Storage(bucket_name="b", deadline=2)


def test_failures_botocore_does_not_retry_are_left_as_they_are(moto: MotoServer) -> None:
    # A missing bucket is not retried: the deadline does not turn it into a timeout.
    storage = storage_at(moto.url, bucket="no-such-bucket-here", deadline=2.5)
    with pytest.raises(ClientError, match="NoSuchBucket"):
        storage.save("a.txt", ContentFile(b"x"))


def test_w065_counts_the_deadline(settings: Any) -> None:
    # Long timeouts for big transfers: 3 x (2 + 1 + 60) + 3 = 192 s without a deadline.
    options = {"bucket_name": "b", "region_name": REGION, "read_timeout": 60}
    settings.STORAGES = {
        "default": {"BACKEND": "horizontal.storage.S3Storage", "OPTIONS": options},
        "unbounded": {
            "BACKEND": "horizontal.storage.S3Storage",
            "OPTIONS": {**options, "deadline": None},
        },
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    assert storages["default"].worst_case_seconds == 10.0
    assert storages["unbounded"].worst_case_seconds == 192.0
    assert [(m.id, m.obj) for m in check_s3_timeouts()] == [
        ("horizontal.W065", "STORAGES['unbounded']")
    ]
