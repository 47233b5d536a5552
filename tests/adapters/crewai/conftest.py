"""Alice (the seeded person) for these tests; see ``tests/adapters/framework_support.py``."""

from adapters.framework_support import alice

__all__ = ["alice"]
