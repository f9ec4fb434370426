"""Python classes the second round of labelled projects showed (false positives of the
source rules, written from the class, not from any project's code): each with a case that
must be found and a twin that must stay silent."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import SETTINGS_HEAD, scan, where

READS_ROWS = "from app.models import Form\n"


def test_a_memo_keyed_by_the_request_is_silent_and_one_keyed_by_a_value_is_found(
    tmp_path: Path,
) -> None:
    per_request = READS_ROWS + (
        "import functools\n"
        "@functools.cache\n"
        "def shared_form(request):\n"
        "    return Form.objects.filter(token=request.GET['t']).first()\n"
    )
    assert scan(tmp_path, {"app/auth.py": per_request}, "cache") == []
    per_value = per_request.replace("(request)", "(token)").replace("request.GET['t']", "token")
    assert where(scan(tmp_path / "b", {"app/auth.py": per_value}, "cache")) == [("app/auth.py", 3)]


VIEW = """\
from django.views.generic import UpdateView
class Edit(UpdateView):
    _changed = []
    def form_valid(self, form):
        self._changed.extend(form.changed_data)
        return super().form_valid(form)
"""


def test_a_views_class_level_scratch_is_silent_and_a_registry_is_found(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/views.py": VIEW}, "module-state") == []
    registry = VIEW.replace("from django.views.generic import UpdateView\n", "").replace(
        "class Edit(UpdateView):", "class ChangeLog:"
    )
    found = scan(tmp_path / "b", {"app/changes.py": registry}, "module-state")
    assert [(f.line, f.category) for f in found] == [(2, "module-state")]


WRITER = "def save(data):\n    with open('/data/out.json', 'w') as f:\n        f.write(data)\n"


def test_an_executable_script_and_a_lint_plugin_are_not_app_code(tmp_path: Path) -> None:
    assert scan(tmp_path, {"scripts/fix_dict.py": "#!/usr/bin/env python3\n" + WRITER}) == []
    plugin = "from pylint.checkers import BaseChecker\n" + WRITER
    assert scan(tmp_path, {"app_lint/checker.py": plugin}) == []
    assert where(scan(tmp_path / "b", {"app/export.py": WRITER})) == [("app/export.py", 2)]


def test_an_amqp_vhost_is_not_an_address_and_a_broker_host_on_localhost_is(
    tmp_path: Path,
) -> None:
    source = SETTINGS_HEAD + (
        "import os\n"
        "RABBITMQ_HOST = os.environ.get('RABBITMQ_HOST', 'localhost')\n"
        "RABBITMQ_VHOST = os.environ.get('RABBITMQ_VHOST', '/')\n"
        "BROKER_URL = os.environ.get('BROKER_URL', 'amqp://rabbit/')\n"
    )
    found = scan(tmp_path, {"app/settings.py": source})
    assert [f.line for f in found] == [4]
    assert "RABBITMQ_HOST" in found[0].message


def test_a_unix_socket_path_is_this_host_and_a_bare_slash_is_not(tmp_path: Path) -> None:
    source = SETTINGS_HEAD + "REDIS_URL = 'unix:///run/redis/redis.sock'\n"
    assert [f.line for f in scan(tmp_path, {"app/settings.py": source})] == [3]
    socket_path = SETTINGS_HEAD + "REDIS_HOST = '/var/run/redis/redis.sock'\n"
    assert [f.line for f in scan(tmp_path / "b", {"app/settings.py": socket_path})] == [3]
    slash = SETTINGS_HEAD + "REDIS_LOCATION = '/'\n"
    assert scan(tmp_path / "c", {"app/settings.py": slash}) == []


CHANNELS = SETTINGS_HEAD + (
    "CHANNEL_LAYERS = {'default': {'BACKEND': 'channels.layers.InMemoryChannelLayer'}}\n"
)
ORDERS = "from django.db import models\nclass Order(models.Model):\n    pass\n"


def test_an_in_memory_channel_layer_is_found_only_where_the_code_uses_the_layer(
    tmp_path: Path,
) -> None:
    unused = {"app/settings.py": CHANNELS, "app/models.py": ORDERS}
    assert scan(tmp_path, unused) == []
    consumer = "async def notify(layer):\n    await layer.group_send('orders', {})\n"
    used = {**unused, "app/consumers.py": consumer}
    assert where(scan(tmp_path / "b", used)) == [("app/settings.py", 3)]
    # A settings module scanned alone cannot tell: reported.
    assert where(scan(tmp_path / "c", {"app/settings.py": CHANNELS})) == [("app/settings.py", 3)]


def test_a_pid_file_and_an_appended_log_are_silent_and_a_data_file_is_found(
    tmp_path: Path,
) -> None:
    code = (
        "import os\n"
        "def start(pidfile, error_log):\n"
        "    with open(pidfile, 'w') as handle:\n"
        "        handle.write(str(os.getpid()))\n"
        "    with open(error_log, 'a') as log:\n"
        "        log.write('started')\n"
    )
    assert scan(tmp_path, {"app/boot.py": code}) == []
    data = code.replace("open(error_log, 'a')", "open('/data/exports/today.csv', 'w')")
    assert where(scan(tmp_path / "b", {"app/boot.py": data})) == [("app/boot.py", 5)]


def test_a_set_of_warnings_already_printed_is_silent_and_a_set_of_ids_is_found(
    tmp_path: Path,
) -> None:
    code = (
        "_WARNED_CONFIGS = set()\n"
        "def check(name):\n"
        "    if name not in _WARNED_CONFIGS:\n"
        "        print('deprecated', name)\n"
        "        _WARNED_CONFIGS.add(name)\n"
    )
    assert scan(tmp_path, {"app/config.py": code}, "module-state") == []
    ids = code.replace("_WARNED_CONFIGS", "_ACTIVE_IMPORTS")
    found = scan(tmp_path / "b", {"app/config.py": ids}, "module-state")
    assert where(found) == [("app/config.py", 1)]


ENV_SCHEMA = (
    "import environ\n"
    "INSTALLED_APPS = []\n"
    "CACHES = {'default': {'BACKEND': 'django_redis.cache.RedisCache'}}\n"
    "env = environ.Env(DB_HOST=(str, 'localhost'), DB_NAME=(str, 'app'))\n"
    "DATABASES = {\n"
    "    'default': {\n"
    "        'ENGINE': 'django.db.backends.postgresql',\n"
    "        'NAME': env('DB_NAME'),\n"
    "        'HOST': env('DB_HOST'),\n"
    "    }\n"
    "}\n"
)


def test_a_django_environ_schema_default_of_localhost_is_found_where_it_is_read(
    tmp_path: Path,
) -> None:
    [finding] = scan(tmp_path, {"app/settings.py": ENV_SCHEMA})
    assert finding.line == 9 and "localhost" in finding.message
    shared = ENV_SCHEMA.replace("(str, 'localhost')", "(str, 'db.internal')")
    assert scan(tmp_path / "b", {"app/settings.py": shared}) == []
    # A call that names its own default keeps it.
    own = ENV_SCHEMA.replace("env('DB_HOST')", "env('DB_HOST', default='db.internal')")
    assert scan(tmp_path / "c", {"app/settings.py": own}) == []


def test_media_root_handed_to_a_storage_is_silent_and_opened_by_path_is_found(
    tmp_path: Path,
) -> None:
    through_storage = (
        "import os\n"
        "from django.conf import settings\n"
        "from django.core.files.storage import default_storage\n"
        "def has_image(name):\n"
        "    return default_storage.exists(os.path.join(settings.MEDIA_ROOT, name))\n"
    )
    assert scan(tmp_path, {"app/images.py": through_storage}) == []
    by_path = through_storage.replace(
        "default_storage.exists(os.path.join(settings.MEDIA_ROOT, name))",
        "open(os.path.join(settings.MEDIA_ROOT, name)).read()",
    )
    assert where(scan(tmp_path / "b", {"app/images.py": by_path})) == [("app/images.py", 5)]


FINDER = """\
import subprocess
from django.conf import settings
from django.contrib.staticfiles.finders import FileSystemFinder
class BundleFinder(FileSystemFinder):
    def list(self, ignore_patterns):
        subprocess.run(["npm", "run", "build"], cwd=settings.BUNDLE_DIR)
        yield from super().list(ignore_patterns)
"""
READER = """\
import os
from django.conf import settings
def manifest(request):
    return {"bundle": os.path.join(settings.BUNDLE_DIR, "manifest.json")}
"""


def test_a_folder_a_static_files_finder_builds_is_a_build_step(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/staticfiles.py": FINDER, "app/context.py": READER}) == []
    task = FINDER.replace("(FileSystemFinder)", "").replace(
        "from django.contrib.staticfiles.finders import FileSystemFinder\n", ""
    )
    found = scan(tmp_path / "b", {"app/tasks.py": task, "app/context.py": READER})
    assert ("app/context.py", 4) in where(found)


WRITES = """\
import json, shutil
def export(snapshot, folder):
    with open(folder + '/index.json', 'w') as handle:
        json.dump(snapshot, handle)
    shutil.copy2(folder + '/index.json', folder + '/index.bak')
def archive(folder):
    shutil.move(folder, '/data/archive/')
"""


def test_the_writes_of_one_module_are_one_finding_naming_its_functions(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/export.py": WRITES}, "file-write")
    assert where(found) == [("app/export.py", 3)]
    assert [(r.path, r.line) for r in found[0].related] == [
        ("app/export.py", 5),
        ("app/export.py", 7),
    ]
    assert "3 writes in export() and archive()" in found[0].message
    one = WRITES.split("def archive")[0]
    alone = scan(tmp_path / "b", {"app/export.py": one, "app/archive.py": WRITES}, "file-write")
    assert where(alone) == [("app/archive.py", 3), ("app/export.py", 3)]
    assert "2 writes in export()" in alone[1].message


def test_a_suppressed_write_stays_apart_from_its_modules_other_writes(tmp_path: Path) -> None:
    code = WRITES.replace(
        "    shutil.copy2(", "    # horizontal: ignore[file-write]\n    shutil.copy2("
    )
    found = scan(tmp_path, {"app/export.py": code}, "file-write")
    assert where(found) == [("app/export.py", 3)]
    assert [(r.path, r.line) for r in found[0].related] == [("app/export.py", 8)]


MODELS = """\
from django.db import models
class DataFile(models.Model):
    file = models.FileField(upload_to='imports')
    route: str = models.CharField(max_length=100)
"""
READS_BY_PATH = """\
from app.models import DataFile
def import_rows(pk):
    data_file = DataFile.objects.get(pk=pk)
    with open(data_file.file.path) as handle:
        return handle.read()
"""


def test_an_upload_read_by_its_local_path_is_found_and_opened_through_storage_is_not(
    tmp_path: Path,
) -> None:
    files = {"app/models.py": MODELS, "app/imports.py": READS_BY_PATH}
    found = scan(tmp_path, files, "file-write")
    assert where(found) == [("app/imports.py", 4)]
    assert "file.path" in found[0].message and "file.open()" in found[0].fix
    through_storage = READS_BY_PATH.replace("open(data_file.file.path)", "data_file.file.open()")
    files = {"app/models.py": MODELS, "app/imports.py": through_storage}
    assert scan(tmp_path / "b", files, "file-write") == []


def test_a_path_that_is_not_a_file_fields_and_a_commands_read_are_silent(tmp_path: Path) -> None:
    other_field = READS_BY_PATH.replace("data_file.file.path", "data_file.route.path")
    files = {"app/models.py": MODELS, "app/imports.py": other_field}
    assert scan(tmp_path, files, "file-write") == []
    command = {"app/models.py": MODELS, "app/management/commands/load.py": READS_BY_PATH}
    assert scan(tmp_path / "b", command, "file-write") == []


EXPORT = """\
import os
from tempfile import TemporaryDirectory
def export(theme):
    with TemporaryDirectory() as tmp_dir:
        export_dir = os.path.join(tmp_dir, theme.name)
        write_files(export_dir, theme)
        return zip_up(tmp_dir)
def write_files(export_dir, theme):
    for asset in theme.assets:
        copy_asset(os.path.join(export_dir, 'files'), asset)
def copy_asset(folder, asset):
    with open(os.path.join(folder, asset.name), 'wb') as handle:
        handle.write(asset.read())
"""


def test_a_helper_writing_into_the_temp_directory_its_callers_made_is_silent(
    tmp_path: Path,
) -> None:
    logo = "    copy_asset(export_dir, theme.logo)\n"
    helper = EXPORT.replace("    for asset", logo + "    for asset")
    assert scan(tmp_path, {"app/export.py": helper}, "file-write") == []
    kept = helper.replace(
        "with TemporaryDirectory() as tmp_dir:", "tmp_dir = '/srv/exports'\n    if True:"
    )
    assert where(scan(tmp_path / "b", {"app/export.py": kept}, "file-write")) == [
        ("app/export.py", 14)
    ]


ARCHIVE = """\
import os, shutil
class DataArchive:
    def __enter__(self):
        self.tmp_dir_path = os.path.join(self.working_dir, 'archive')
        os.mkdir(self.tmp_dir_path)
        self.data_dir_path = os.path.join(self.tmp_dir_path, 'data')
        return self
    def __exit__(self, *args):
        shutil.rmtree(self.tmp_dir_path)
    def final_path(self, directory):
        return os.path.join(self.data_dir_path, directory)
    def add_text(self, name, value, directory):
        with open(os.path.join(self.final_path(directory), name), 'w') as handle:
            handle.write(value)
"""


def test_paths_an_object_derives_from_its_own_scratch_directory_are_its_scratch(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"app/archive.py": ARCHIVE}, "file-write") == []
    elsewhere = ARCHIVE.replace("os.path.join(self.data_dir_path, directory)", "directory")
    elsewhere = elsewhere.replace("self.final_path(directory)", "self.final_path('/srv/archive')")
    assert where(scan(tmp_path / "b", {"app/archive.py": elsewhere}, "file-write")) == [
        ("app/archive.py", 13)
    ]


FACTORY = """\
entities = {}
def federated(key):
    def federate(graphql_type):
        entities[graphql_type.__name__] = (key, graphql_type)
        return graphql_type
    return federate
"""


def test_a_registry_a_decorator_factory_fills_is_silent_and_a_runtime_store_is_found(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"app/federation.py": FACTORY}, "module-state") == []
    at_run_time = FACTORY.replace("        return graphql_type\n", "        return key\n")
    found = scan(tmp_path / "b", {"app/federation.py": at_run_time}, "module-state")
    assert where(found) == [("app/federation.py", 1)]


MEMO_LOCK = """\
import threading
from django.contrib.sites.models import Site
lock = threading.Lock()
SITES = {}
def current(site_id):
    if site_id not in SITES:
        with lock:
            SITES[site_id] = Site.objects.get(pk=site_id)
    return SITES[site_id]
"""


def test_a_lock_that_makes_a_memos_fill_thread_safe_is_not_an_in_process_lock(
    tmp_path: Path,
) -> None:
    found = scan(tmp_path, {"app/sites.py": MEMO_LOCK})
    assert "in-process-lock" not in [f.category for f in found]
    memos = scan(tmp_path / "m", {"app/sites.py": MEMO_LOCK}, "cache")
    assert ["memoises" in f.message for f in memos] == [True]
    counter = MEMO_LOCK.replace(
        "SITES[site_id] = Site.objects.get(pk=site_id)",
        "site = Site.objects.get(pk=site_id)\n            site.hits += 1\n"
        "            site.save()\n            SITES[site_id] = site",
    )
    found = scan(tmp_path / "b", {"app/sites.py": counter})
    assert "in-process-lock" in [f.category for f in found]


DEBUG_KEY = """\
from django.conf import settings
class JWTManager:
    @classmethod
    def private_key(cls):
        if settings.DEBUG:
            return cls._debug_key()
        raise RuntimeError('RSA_PRIVATE_KEY is required')
    @classmethod
    def _debug_key(cls):
        return cls._create_key('.jwt_key.pem')
    @classmethod
    def _create_key(cls, path):
        with open(path, 'wb') as handle:
            handle.write(b'key')
"""


def test_a_write_reached_only_from_a_debug_branch_is_silent(tmp_path: Path) -> None:
    assert scan(tmp_path, {"app/jwt.py": DEBUG_KEY}, "file-write") == []
    always = DEBUG_KEY.replace("        if settings.DEBUG:\n            return", "        return")
    assert where(scan(tmp_path / "b", {"app/jwt.py": always}, "file-write")) == [("app/jwt.py", 12)]


def test_code_in_a_fixtures_folder_is_not_scanned(tmp_path: Path) -> None:
    generator = (
        "import json\nwith open('/srv/app/emojis/initial.yaml', 'w') as out:\n"
        "    json.dump([], out)\n"
    )
    assert scan(tmp_path, {"app/emojis/fixtures/generate.py": generator}) == []
    assert where(scan(tmp_path / "b", {"app/emojis/generate.py": generator})) == [
        ("app/emojis/generate.py", 2)
    ]


def test_a_view_serving_an_objects_folder_is_found_and_static_files_are_not(
    tmp_path: Path,
) -> None:
    view = (
        "from archive.serve import serve_with_ranges\n"
        "def snapshot_files(request, snapshot, path):\n"
        "    return serve_with_ranges(request, path, document_root=snapshot.output_dir)\n"
    )
    assert where(scan(tmp_path, {"app/views.py": view}, "file-write")) == [("app/views.py", 3)]
    static = view.replace("snapshot.output_dir", "finder.static_root")
    assert scan(tmp_path / "b", {"app/views.py": static}, "file-write") == []


KEYWORD_ONLY = """\
from tempfile import TemporaryDirectory
def convert(images):
    with TemporaryDirectory() as output_directory:
        download(files=images, into=output_directory)
        return build(output_directory)
def download(*, files, into):
    for item in files:
        with open(f"{into}/{item.name}", "wb") as handle:
            handle.write(item.read())
"""


def test_a_keyword_only_helper_given_the_callers_temp_directory_is_silent(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"app/convert.py": KEYWORD_ONLY}, "file-write") == []
    kept = KEYWORD_ONLY.replace("with TemporaryDirectory() as output_directory:", "if True:")
    kept = kept.replace("into=output_directory", "into='/srv/images'").replace(
        "build(output_directory)", "build('/srv/images')"
    )
    assert where(scan(tmp_path / "b", {"app/convert.py": kept}, "file-write")) == [
        ("app/convert.py", 8)
    ]


MEDIA_PATHS = """\
import os
from django.conf import settings
def thumbnail(name):
    return open(os.path.join(settings.MEDIA_ROOT, 'thumbs', name), 'rb').read()
def report(name):
    return open(os.path.join(settings.MEDIA_ROOT, 'reports', name), 'rb').read()
"""


def test_the_media_root_paths_of_one_module_are_one_finding(tmp_path: Path) -> None:
    found = scan(tmp_path, {"app/files.py": MEDIA_PATHS}, "file-write")
    assert where(found) == [("app/files.py", 4)]
    assert [(r.path, r.line) for r in found[0].related] == [("app/files.py", 6)]
    assert found[0].message.endswith("(2 places)")
    one = MEDIA_PATHS.split("def report")[0]
    found = scan(tmp_path / "b", {"app/files.py": one}, "file-write")
    assert where(found) == [("app/files.py", 4)] and found[0].related == ()


RUNSCRIPT = """\
from app.models import Image
image_counter = None
def next_image():
    global image_counter
    if image_counter is None:
        image_counter = Image.objects.count()
    image_counter += 1
    return image_counter
def run():
    for _ in range(10):
        next_image()
"""


def test_a_runscript_script_is_run_by_hand_and_the_same_module_in_the_app_is_not(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"scripts/image_fixtures.py": RUNSCRIPT}, "cache") == []
    found = scan(tmp_path / "b", {"app/images.py": RUNSCRIPT}, "cache")
    assert where(found) == [("app/images.py", 4)]


FEED = """\
import requests
DATABASE = '/opt/feeds/tor_exit_nodes.txt'
class TorExitNodes:
    @classmethod
    def update(cls):
        response = requests.get("https://check.torproject.org/exit-addresses")
        with open(DATABASE, 'w') as handle:
            handle.write(response.text)
"""


def test_a_refresh_that_downloads_a_dataset_is_silent_and_a_saved_upload_is_not(
    tmp_path: Path,
) -> None:
    assert scan(tmp_path, {"app/feeds.py": FEED}, "file-write") == []
    upload = FEED.replace("def update(cls)", "def save_upload(cls, request)").replace(
        'requests.get("https://check.torproject.org/exit-addresses")', "request.FILES['f']"
    )
    assert where(scan(tmp_path / "b", {"app/feeds.py": upload}, "file-write")) == [
        ("app/feeds.py", 7)
    ]
    not_fetched = FEED.replace(
        'requests.get("https://check.torproject.org/exit-addresses")', "cls.build()"
    )
    assert where(scan(tmp_path / "c", {"app/feeds.py": not_fetched}, "file-write")) == [
        ("app/feeds.py", 7)
    ]


def test_a_modules_writes_and_media_root_paths_are_one_finding(tmp_path: Path) -> None:
    both = WRITES + MEDIA_PATHS.replace("import os\n", "")
    found = scan(tmp_path, {"app/files.py": "import os\n" + both}, "file-write")
    assert len(found) == 1
    assert "3 writes in export() and archive(), and 2 paths under MEDIA_ROOT" in found[0].message
    assert len(found[0].related) == 4


def test_media_root_paths_of_a_management_command_are_its_operators(tmp_path: Path) -> None:
    command = {"app/management/commands/cleanup_media.py": MEDIA_PATHS}
    assert scan(tmp_path, command, "file-write") == []
    assert where(scan(tmp_path / "b", {"app/media.py": MEDIA_PATHS}, "file-write")) == [
        ("app/media.py", 4)
    ]
