"""The conformance case of ``LettaAdapter``: a real Letta server answering from the case's
:class:`FakeModel` (``tests/adapters/letta/letta_server.py``; only where its environment is
built, ``scripts/test-adapter letta``). The server starts once per test process, while the
cases are collected."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from band.core import SimpleAdapter
from band.testing import FakeModel

from .adapter_cases import AdapterCase

SKIPS = {
    "tool_events": "Letta's send tools are not reported as tool events (the message they post "
    "is the record); other tools are (tests/adapters/letta)",
    "thoughts": "LettaAdapter does not support THOUGHTS",
    "custom_tools": "LettaAdapter takes no additional_tools (as band-sdk's): the Letta server "
    "runs the tools, Band's reach it over MCP",
    "model_error": "a failure of Letta's model is reported as Letta's (provider letta), after "
    "the server's own retries",
}


def letta_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from adapters.letta.letta_server import EMBEDDING, MODEL, shared
    from band.adapters.letta import LettaAdapter, LettaAdapterConfig

    server = shared()
    server.use(fake)
    config = LettaAdapterConfig(
        base_url=server.url, model=MODEL, embedding=EMBEDDING, consolidate_memory_on_cleanup=False
    )
    return LettaAdapter(config, **features)


def letta_cases() -> list[AdapterCase]:
    if importlib.util.find_spec("letta_client") is None:
        return []
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from adapters.letta.letta_server import server_python, shared

    if server_python() is None:
        return []
    shared()  # started while collecting: the cases' 60 s limit is for the turns, not this
    # No replayed call ids: the send tool, the only one the default script calls, is silent.
    return [AdapterCase("letta", letta_adapter, None, SKIPS)]
