"""A project app whose ``post_migrate`` handler queries ``auth_group``, as real ones do.

Handlers like this assume every table exists once ``post_migrate`` is sent, which holds
after a full ``migrate``; ``migrate_locked`` must not send it any earlier.
"""
