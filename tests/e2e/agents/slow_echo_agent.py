"""An agent process for the fault tests: our SDK's ``Agent`` with a slow, one-reply adapter.

Configured by the environment: ``E2E_AGENT_ID`` / ``E2E_API_KEY``, ``BAND_REST_URL`` /
``BAND_WS_URL``, and ``E2E_TURN_SECONDS`` (how long a turn sleeps before it replies).
It prints ``turn started: <message id>`` when a turn begins and ``turn replied: <id>`` after
its one reply, so a test can kill it mid-turn.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from band import Agent, configure_logging
from band.core import SimpleAdapter
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.platform.socket import SocketTimings
from band.runtime.config import AgentConfig

FAST_SOCKET = SocketTimings(
    heartbeat_interval=1.0,
    heartbeat_timeout=3.0,
    backoff_base=0.05,
    backoff_cap=0.3,
    rapid_floors=(0.1, 0.2),
    initial_retry_delays=(0.1, 0.2),
)


class PassThrough:
    def convert(self, raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return raw


class SlowEcho(SimpleAdapter[list[dict[str, Any]]]):
    """Sleeps ``turn_seconds``, then replies ``echo: <content>`` to the sender, once."""

    def __init__(self, turn_seconds: float) -> None:
        super().__init__(history_converter=PassThrough())
        self.turn_seconds = turn_seconds

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[dict[str, Any]],
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        print(f"turn started: {msg.id}", flush=True)
        await asyncio.sleep(self.turn_seconds)
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])
        print(f"turn replied: {msg.id}", flush=True)


async def main() -> None:
    configure_logging()
    agent = Agent.create(
        adapter=SlowEcho(float(os.environ.get("E2E_TURN_SECONDS", "0"))),
        agent_id=os.environ["E2E_AGENT_ID"],
        api_key=os.environ["E2E_API_KEY"],
        config=AgentConfig(single_instance=True),
        socket_timings=FAST_SOCKET,
    )
    await agent.run()


if __name__ == "__main__":
    asyncio.run(main())
