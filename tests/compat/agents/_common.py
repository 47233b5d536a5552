"""Shared plumbing for the compat agents. Runs ONLY inside the compat venv (official band-sdk).

Configuration comes from the environment the test harness sets:
  COMPAT_AGENT_ID, COMPAT_API_KEY   the agent's credentials on our server
  BAND_REST_URL, BAND_WS_URL        read by the official SDK itself
  COMPAT_EVENTS                     JSON-lines file this process reports to
  COMPAT_SINGLE_INSTANCE            "0" turns off the SDK's per-host lock (supersede test)
  COMPAT_CONFLICT_POLICY            "reject" asks the platform to refuse a second connection
  COMPAT_LOG_LEVEL                  "DEBUG" logs everything, every library's loggers included

Every observation the tests need is written to COMPAT_EVENTS as one JSON object per line:
ready, start_failed, turn, replied, superseded, stopped. The SDK's own logs go to stderr.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from typing import Any

from band import Agent, AgentConfig, ConflictPolicy
from band.core import SimpleAdapter

_EVENTS = os.environ["COMPAT_EVENTS"]


def emit(event: str, **fields: Any) -> None:
    """Append one observation for the test process (flushed at once)."""
    line = json.dumps({"event": event, "t": time.time(), "pid": os.getpid(), **fields})
    with open(_EVENTS, "a", encoding="utf-8") as f:
        f.write(line + "\n")


class _SupersedeWatch(logging.Handler):
    """Turns the SDK's own 'superseded' log record into an observation."""

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if "superseded" in text.lower():
            emit("superseded", logger=record.name, message=text)


def _configure_logging() -> None:
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("COMPAT_LOG_LEVEL", "INFO"),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("band").addHandler(_SupersedeWatch(level=logging.INFO))
    # Heartbeat acks are logged at DEBUG by the Phoenix client; the heartbeat test reads them.
    logging.getLogger("phoenix_channels_python_client").setLevel(logging.DEBUG)


async def _main(adapter: SimpleAdapter[Any]) -> None:
    single = os.environ.get("COMPAT_SINGLE_INSTANCE", "1") != "0"
    policy = ConflictPolicy(os.environ.get("COMPAT_CONFLICT_POLICY", "supersede"))
    agent = Agent.create(
        adapter=adapter,
        agent_id=os.environ["COMPAT_AGENT_ID"],
        api_key=os.environ["COMPAT_API_KEY"],
        ws_url=os.environ["BAND_WS_URL"],
        rest_url=os.environ["BAND_REST_URL"],
        config=AgentConfig(single_instance=single, conflict_policy=policy),
    )
    try:
        await agent.start()
    except Exception as exc:
        emit("start_failed", error=type(exc).__name__, message=str(exc))
        raise SystemExit(3) from exc
    emit("ready", name=agent.agent_name)
    try:
        await agent.run_forever()
    finally:
        await agent.stop(timeout=5)
        emit("stopped")


def run(adapter: SimpleAdapter[Any]) -> None:
    _configure_logging()
    asyncio.run(_main(adapter))
