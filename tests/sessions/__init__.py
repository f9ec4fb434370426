"""Tests of ``horizontal.sessions``: the store's contract, its failures, revocation,
migration from another engine, and a fleet of real instances (``test_fleet``).
"""
