"""Stand-in for the third-party app of this name (not installed here): only its name matters."""

from __future__ import annotations
