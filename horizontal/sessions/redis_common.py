"""What the session store's sync and async Redis clients share: the Lua scripts, and
redis-py's errors (stand-ins when the ``[redis]`` extra is absent, so that the modules
import and ``except`` clauses still name a class).

``redis.py`` (``SessionRedis``) and ``redis_async.py`` (``AsyncSessionRedis``) register the
same scripts, so both sides give the store the same replies.
"""

from __future__ import annotations

import hashlib

__all__ = [
    "DELETE_INDEXED",
    "END_USER_SESSIONS",
    "LOAD",
    "LOAD_SHA",
    "MOVE_FROM_FALLBACK",
    "SAVE_INDEXED",
    "NoScriptError",
    "RedisError",
    "ResponseError",
]

try:
    from redis.exceptions import NoScriptError, RedisError, ResponseError
except ImportError:  # the [redis] extra is absent; no client is ever built then.

    class RedisError(Exception):  # type: ignore[no-redef]
        pass

    class ResponseError(RedisError):  # type: ignore[no-redef]
        pass

    class NoScriptError(ResponseError):  # type: ignore[no-redef]
        pass


# The one command of an ordinary load: GET the session and, when it names a user
# index, serve it only if it is still a member (else delete it and answer 0,
# ``redis.UNVOUCHED``).
# Membership, not the index's existence, is the test: an index that was evicted and
# then re-created by a new login does not vouch for the sessions of the old one.
# KEYS: session
LOAD = """
local value = redis.call('GET', KEYS[1])
if not value then return false end
local digits, start = string.match(value, '^h2:%d+:(%d+):()')
if not digits then return value end  -- not this format: the store says it is corrupt
local length = tonumber(digits)
if length == 0 or start + length - 1 > #value then return value end
local index = string.sub(value, start, start + length - 1)
if redis.call('SISMEMBER', index, KEYS[1]) == 1 then return value end
redis.call('DEL', KEYS[1])
return 0
"""

LOAD_SHA = hashlib.sha1(LOAD.encode(), usedforsecurity=False).hexdigest()

# Add a session to its user's index: drop members whose session is gone when a new
# one arrives (so the set stays as small as the user's live sessions), and make the
# index outlive the session.
INDEX_SESSION = """
local function index_session(session, index, index_ttl)
  if redis.call('SADD', index, session) == 1 then
    for _, member in ipairs(redis.call('SMEMBERS', index)) do
      if redis.call('EXISTS', member) == 0 then redis.call('SREM', index, member) end
    end
  end
  if redis.call('TTL', index) < tonumber(index_ttl) then
    redis.call('EXPIRE', index, index_ttl)
  end
end
"""

# SET the session (NX to create, XX to update) and, only if that wrote, index it and
# leave the index of a previous user. With ``member`` = 1 (an update of a session
# loaded as this user's) the session must still be in the index: one that is not
# was ended (or its index evicted) after it was loaded, and writing it back must not
# make it valid again in a fresh index.
# KEYS: session, user index, [previous user's index]
# ARGV: value, ttl, NX|XX, index ttl, member (1|0)
SAVE_INDEXED = (
    INDEX_SESSION
    + """
if ARGV[5] == '1' and redis.call('SISMEMBER', KEYS[2], KEYS[1]) == 0 then return 0 end
if not redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], ARGV[3]) then return 0 end
index_session(KEYS[1], KEYS[2], ARGV[4])
if KEYS[3] then redis.call('SREM', KEYS[3], KEYS[1]) end
return 1
"""
)

# Move a user's session from the fallback engine into Redis, unless the user's
# sessions were ended during the migration: the test and the write are one step, so
# end_user_sessions lands either before it (refused: -1) or after it (the moved
# session is in the index and is ended). 0: another instance moved it first.
# KEYS: session, user index, revoked users    ARGV: value, ttl, index ttl, user pk
MOVE_FROM_FALLBACK = (
    INDEX_SESSION
    + """
if redis.call('SISMEMBER', KEYS[3], ARGV[4]) == 1 then return -1 end
if not redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') then return 0 end
index_session(KEYS[1], KEYS[2], ARGV[3])
return 1
"""
)

# Delete every session in a user's index and the index itself, atomically: a save
# racing with it either lands before (and is deleted) or after (and finds no key, so
# its SET XX writes nothing). During a migration, also put the user on the revoked
# list, so that their sessions still in the old engine are never moved.
# KEYS: user index, [revoked users]    ARGV: [user pk]
END_USER_SESSIONS = """
local ended = 0
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  ended = ended + redis.call('DEL', member)
end
redis.call('DEL', KEYS[1])
if KEYS[2] then redis.call('SADD', KEYS[2], ARGV[1]) end
return ended
"""

# Delete a session and take it out of its user's index.
# KEYS: session, user index
DELETE_INDEXED = """
redis.call('SREM', KEYS[2], KEYS[1])
return redis.call('DEL', KEYS[1])
"""
