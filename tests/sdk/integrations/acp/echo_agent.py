"""A tiny real ACP agent for the client pieces' tests, on the ``agent-client-protocol`` SDK.

Over stdio (``python echo_agent.py``) or TCP (``serve_tcp``). It offers ``loadSession`` and
``session/close``; sessions live in memory (an unknown one is refused with -32002) and have
a ``model`` select. A prompt streams, in order: a thought in two deltas, a tool call
reported pending without input, its renaming update (``band-band_send_message``), its
completed result, a plan, and the text ``Hello`` in two deltas. A prompt "ask" first asks
permission and says ``granted`` or ``denied``; "crash" writes to stderr and exits 3.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import acp
from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    plan_entry,
    start_tool_call,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    CloseSessionResponse,
    ContentToolCallContent,
    PermissionOption,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SetSessionConfigOptionResponse,
    TextContentBlock,
)

ASK = [
    PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
    PermissionOption(option_id="no", name="Reject", kind="reject_once"),
]


def catalog(model: str) -> list[SessionConfigOptionSelect]:
    values = [SessionConfigSelectOption(value=v, name=v) for v in ("small", "large")]
    select = SessionConfigOptionSelect(
        id="model",
        name="Model",
        category="model",
        current_value=model,
        options=values,
        type="select",
    )
    return [select]


class EchoAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.sessions: dict[str, str] = {}
        self.closed: list[str] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        print("echo agent ready", file=sys.stderr, flush=True)
        offered = AgentCapabilities(
            load_session=True,
            session_capabilities=SessionCapabilities(close=SessionCloseCapabilities()),
        )
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=offered)

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kw: Any) -> NewSessionResponse:
        session_id = f"s-{len(self.sessions) + 1}"
        self.sessions[session_id] = "small"
        return NewSessionResponse(session_id=session_id, config_options=catalog("small"))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kw: Any
    ) -> LoadSessionResponse:
        if session_id not in self.sessions:
            raise RequestError(-32002, f"Session not found: {session_id}")
        return LoadSessionResponse(config_options=catalog(self.sessions[session_id]))

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **kw: Any
    ) -> SetSessionConfigOptionResponse:
        self.sessions[session_id] = str(value)
        return SetSessionConfigOptionResponse(config_options=catalog(str(value)))

    async def close_session(self, session_id: str, **kw: Any) -> CloseSessionResponse:
        self.closed.append(session_id)
        self.sessions.pop(session_id, None)
        return CloseSessionResponse()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = " ".join(getattr(b, "text", "") for b in prompt)
        say = self.conn.session_update
        if text == "crash":
            print("boom: out of cheese", file=sys.stderr, flush=True)
            os._exit(3)
        if text == "ask":
            answer = await self.conn.request_permission(
                session_id=session_id,
                tool_call=update_tool_call("p1", title="rm -rf build"),
                options=ASK,
            )
            picked = getattr(answer.outcome, "option_id", None)
            await say(
                session_id, update_agent_message_text("granted" if picked == "yes" else "denied")
            )
            return PromptResponse(stop_reason="end_turn")
        await say(session_id, update_agent_thought_text("thin"))
        await say(session_id, update_agent_thought_text("king"))
        await say(session_id, start_tool_call("t1", "", status="pending"))
        args = {"content": "hi"}
        await say(
            session_id, update_tool_call("t1", title="band-band_send_message", raw_input=args)
        )
        block = ContentToolCallContent(
            type="content", content=TextContentBlock(type="text", text="sent")
        )
        await say(session_id, update_tool_call("t1", status="completed", content=[block]))
        await say(session_id, update_plan([plan_entry("reply", status="completed")]))
        await say(session_id, update_agent_message_text("Hel"))
        await say(session_id, update_agent_message_text("lo"))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


async def serve_tcp() -> tuple[asyncio.Server, int]:
    """An echo agent per TCP connection on a free loopback port."""

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await acp.run_agent(EchoAgent(), writer, reader, use_unstable_protocol=True)

    server = await asyncio.start_server(connection, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


if __name__ == "__main__":
    asyncio.run(acp.run_agent(EchoAgent(), use_unstable_protocol=True))  # session/close
