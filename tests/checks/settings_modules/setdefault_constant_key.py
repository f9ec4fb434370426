"""Its twin: the default put in the environment is no generated value."""

from __future__ import annotations

import os

os.environ.setdefault("HORIZONTAL_TEST_SETDEFAULT_CONSTANT_KEY", "")
SECRET_KEY = os.environ["HORIZONTAL_TEST_SETDEFAULT_CONSTANT_KEY"]
