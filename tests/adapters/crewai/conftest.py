"""Alice (the seeded person) for these tests; see ``tests/adapters/framework_support.py``.

CrewAI's telemetry would try to reach its collector: off, these tests run offline.
"""

import os

from adapters.framework_support import alice

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

__all__ = ["alice"]
