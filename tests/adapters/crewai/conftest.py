"""Alice and the fake model for these tests (``framework_support``, ``turn_support``).

CrewAI's telemetry would try to reach its collector: off, these tests run offline. CrewAI
raises an ImportWarning on import (its lazy submodules), which the suite's warnings-as-errors
would turn into a collection error: it is imported here once, quietly.
"""

import contextlib
import os
import warnings

from adapters.framework_support import alice
from adapters.turn_support import base_url, fake

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore")
    import crewai  # noqa: F401

__all__ = ["alice", "base_url", "fake"]
