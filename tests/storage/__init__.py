"""Tests of ``horizontal.storage``, one file per module (``test_s3``, ``test_generated``,
``test_env``, ``test_readiness``), plus real instances sharing a bucket (``test_instances``).
"""
