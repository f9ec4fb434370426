from __future__ import annotations

import os

SECRET_KEY = os.environ["HORIZONTAL_TEST_SPLIT_KEY"]
