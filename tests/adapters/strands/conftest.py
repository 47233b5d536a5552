"""Alice (the seeded person) for these tests; see ``tests/adapters/framework_support.py``."""

from adapters.framework_support import alice
from adapters.turn_support import base_url, fake

__all__ = ["alice", "base_url", "fake"]
