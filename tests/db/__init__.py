"""Tests of ``horizontal/db/``: ``tests/db/test_<module>.py`` for ``horizontal/db/<module>.py``."""
