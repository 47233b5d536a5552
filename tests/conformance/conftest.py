"""The conformance suite reuses the runtime test helpers (a person over REST, waits)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sdk"))

from runtime_support import Person

from .adapter_cases import CASES, AdapterCase


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Parlant's dependency tree raises deprecation warnings, which ``error`` would fail on.
    for item in items:
        spec = getattr(item, "callspec", None)
        case_id = getattr(spec.params.get("case"), "id", None) if spec is not None else None
        if case_id == "parlant":
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning"))
        if case_id in ("crewai", "crewai-flow"):
            # CrewAI's lazy submodules raise ImportWarning, its dependencies deprecations.
            item.add_marker(pytest.mark.filterwarnings("ignore::ImportWarning"))
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning"))


@pytest.fixture(params=CASES, ids=[c.id for c in CASES])
def case(request: pytest.FixtureRequest) -> AdapterCase:
    selected: AdapterCase = request.param
    return selected


@pytest.fixture
async def alice(live_server: Any, seeded: Any) -> AsyncIterator[Person]:
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        yield Person(http, seeded.user_id)
