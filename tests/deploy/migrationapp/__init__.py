"""A test app whose migrations are each safe or unsafe for a rolling deploy, on purpose.

With a database at ``0001_initial``, the check flags exactly: 0003 (a removed column,
W070), 0004 (NOT NULL without db_default, W073), 0006 (a renamed column W071, a narrowed
one W075, one made NOT NULL W074), 0007 (SQL that drops a table W076, a renamed model
W072). 0002 is additive, 0005 is marked rolling-safe, and 0006's other renames keep
their columns or touch columns no running code knows.
"""
