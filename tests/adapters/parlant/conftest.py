"""Parlant reads PARLANT_HOME when ``parlant.sdk`` is first imported: set it first.

Its readiness check talks to ``localhost`` through httpx, so a proxy must not see it.
"""

import atexit
import os
import shutil
import tempfile

if "PARLANT_HOME" not in os.environ:
    _home = tempfile.mkdtemp(prefix="band-parlant-home-")
    os.environ["PARLANT_HOME"] = _home
    atexit.register(shutil.rmtree, _home, ignore_errors=True)
_no_proxy = [v for v in os.environ.get("NO_PROXY", "").split(",") if v]
os.environ["NO_PROXY"] = ",".join([*_no_proxy, "127.0.0.1", "localhost"])
os.environ["no_proxy"] = os.environ["NO_PROXY"]

import warnings  # noqa: E402

import pytest  # noqa: E402

# Parlant's dependency tree (aiopenapi3, ...) raises deprecation warnings at import time,
# which the project's ``filterwarnings = error`` would turn into collection errors.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import parlant.sdk  # noqa: F401
    except ImportError:
        # scripts/test-adapter parlant sets this so the Parlant tests cannot silently skip there.
        if os.environ.get("BAND_REQUIRE_PARLANT") == "1":
            raise


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "adapters/parlant" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning"))
