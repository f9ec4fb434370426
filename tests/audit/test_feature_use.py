"""horizontal/audit/feature_use.py: which of Django's features a file shows in use."""

from __future__ import annotations

import pytest

from horizontal.audit import feature_use

URLS_TEMPLATE = "urlpatterns = [] + static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)\n"


@pytest.mark.parametrize(
    ("name", "text", "settings", "expected"),
    [
        ("shop/models.py", "scan = models.FileField(upload_to='x')\n", False, True),
        # Reading the request's upload stores nothing (an import read in memory).
        ("shop/views.py", "rows = csv.reader(request.FILES['file'])\n", False, False),
        (
            "shop/views.py",
            "def load(upload: UploadedFile):\n    return upload.read()\n",
            False,
            False,
        ),
        # An upload library's models used in code: it is installed, wherever that is said.
        ("shop/signals.py", "from attachments.models import Attachment\n", False, True),
        ("shop/signals.py", "import filer.models\n", False, True),
        ("shop/signals.py", "from attachmentsless import x\n", False, False),
        ("shop/export.py", "path = settings.MEDIA_ROOT / 'exports'\n", False, True),
        ("shop/urls.py", URLS_TEMPLATE, False, False),
        (
            "shop/urls.py",
            URLS_TEMPLATE + "from django.core.files.storage import default_storage\n",
            False,
            True,
        ),
        ("shop/settings.py", "INSTALLED_APPS = ['wagtail.images', 'shop']\n", True, True),
        ("shop/settings.py", "INSTALLED_APPS = ['wagtailcore_extras', 'shop']\n", True, False),
        ("shop/settings.py", "MEDIA_ROOT = '/srv/media'\n", True, False),
        (
            "shop/views.py",
            "def index(request):\n    return render(request, 'x.html')\n",
            False,
            False,
        ),
    ],
)
def test_stores_files(name: str, text: str, settings: bool, expected: bool) -> None:
    assert feature_use.stores_files(name, text, settings) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("from django.core.cache import cache\ncache.delete(f'user:{pk}')\n", True),
        ("if not cache.add('import-lock', 1, 60):\n    return\n", True),
        ("hits = caches['default'].incr(key)\n", True),
        ("@ratelimit(key='ip', rate='5/m')\ndef login(request): ...\n", True),
        ("throttle_classes = [UserRateThrottle]\n", True),
        # A memo: on a per-process cache it is recomputed, not wrong.
        ("value = cache.get(key)\nif value is None:\n    cache.set(key, compute())\n", False),
        ("@cache_page(60)\ndef index(request): ...\n", False),
        ("from django.core.cache import cache\n", False),
        ("cached = {}\n", False),
        # Django's cache imported under the module's own name.
        ("from django.core.cache import cache as shared\nshared.add('lock', 1, 300)\n", True),
        ("from django.core.cache import caches, cache as c\nc.incr('x')\n", True),
        ("from django.core.cache import (\n    caches,\n    cache as c,\n)\nc.incr('x')\n", True),
        # The same name bound again (a set): which one a call means is not told.
        (
            "from django.core.cache import cache as c\n\ndef f():\n    c = set()\n    c.add(1)\n",
            False,
        ),
        ("import shared\nshared.add('lock', 1, 300)\n", False),
        # An object's own dict named cache (label-studio's storage), not Django's.
        ("self.cache.clear()\nself.cache.pop(key, None)\n", False),
        # Django's cache reached as an attribute of its module.
        ("from django.core import cache\ncache.cache.delete('menu')\n", True),
    ],
)
def test_keeps_state_in_cache(text: str, expected: bool) -> None:
    assert feature_use.keeps_state_in_cache(text) is expected


def test_a_cache_a_command_fills_is_state_for_the_requests() -> None:
    fill = "cache.set('local_ids', ids, None)\n"
    assert feature_use.keeps_state_in_cache(fill, by_hand=True)
    assert not feature_use.keeps_state_in_cache(fill, by_hand=False)


def test_uses_channel_layer() -> None:
    assert feature_use.uses_channel_layer("async_to_sync(layer.group_send)('g', {})\n")
    assert not feature_use.uses_channel_layer("import channels\n")


def test_cache_writes_in_comments_and_docstring_examples_are_not_code() -> None:
    from horizontal.audit.feature_use import cache_write_lines

    text = (
        "from django.core.cache import cache\n"
        "def remember(key, value):\n"
        '    """Keep a value.\n\n'
        "    >>> cache.set('k', 1)\n"
        '    """\n'
        "    # cache.set(key, None) would forget it\n"
        "    cache.set(key, value)\n"
    )
    assert [place.line for place in cache_write_lines("shop/memo.py", text)] == [8]
