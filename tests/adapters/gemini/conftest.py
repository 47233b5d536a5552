"""Alice (the seeded person) and the fake Gemini API for these tests; see
``tests/adapters/framework_support.py`` and ``tests/adapters/google_support.py``."""

from adapters.framework_support import alice
from adapters.google_support import gemini_api

__all__ = ["alice", "gemini_api"]
