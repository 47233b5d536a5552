"""``ACPRuntime`` (with ``sessions``, ``collecting``, ``stream``, ``updates``, ``stderr`` and
``transport``) against a real ACP agent (``echo_agent.py``), over stdio and over TCP.

A prompt's updates reach the sink in the stream's order, deltas merged and a call reported
before its input named by its later update; sessions are created, configured, loaded
(an unknown one refused, then None), closed on the agent; a permission request is answered
by the turn's handler or cancelled without one; a crash is reported with the agent's stderr
tail; stop is idempotent; the same runtime speaks to an agent listening on TCP.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from band.integrations.acp.client_runtime import ACPRuntime, tcp_spawn_process
from band.integrations.acp.collecting import ACPCollectingClient
from band.integrations.acp.permissions import allow_permission
from band.integrations.acp.sessions import ACPSessionRestoreError
from band.integrations.acp.types import ACPToolCall, ACPToolResult, ChunkType, CollectedChunk
from band.integrations.mcp.backends import BandMCPTransport

sys.path.insert(0, str(Path(__file__).parent))
from echo_agent import serve_tcp

AGENT = [sys.executable, str(Path(__file__).with_name("echo_agent.py"))]


def band_names(name: str) -> str:
    return name.removeprefix("band-")


def runtime(**options: Any) -> ACPRuntime:
    client = lambda: ACPCollectingClient(canonicalize_tool_name=band_names)  # noqa: E731
    return ACPRuntime(command=AGENT, client_factory=client, **options)


async def test_a_prompt_streams_to_the_sink_in_order_merged_and_named(tmp_path: Path) -> None:
    agent = runtime()
    await agent.start()
    try:
        assert agent.supports_session_load and agent.agent_mcp_transport is BandMCPTransport.HTTP
        session = await agent.create_session(cwd=str(tmp_path), mcp_servers=[])
        seen: list[CollectedChunk] = []

        async def sink(chunk: CollectedChunk) -> None:
            seen.append(chunk)

        chunks = await agent.prompt(session_id=session, prompt_text="hi", on_chunk=sink)
    finally:
        await agent.stop()
    kinds = [(c.chunk_type, c.content) for c in seen]
    assert kinds == [
        (ChunkType.THOUGHT, "thinking"),
        (ChunkType.TOOL_CALL, "band_send_message"),
        (ChunkType.TOOL_RESULT, "sent"),
        (ChunkType.PLAN, "reply"),
        (ChunkType.TEXT, "Hello"),
    ]
    call, result = seen[1].tool, seen[2].tool
    assert isinstance(call, ACPToolCall) and call.arguments == {"content": "hi"}
    assert isinstance(result, ACPToolResult) and result.call == call and not result.is_error
    assert chunks == seen  # buffered as published
    assert agent.closed and agent.client is None


async def test_sessions_are_configured_loaded_and_closed(tmp_path: Path) -> None:
    agent = runtime(use_unstable_protocol=True)  # session/close is unstable in ACP
    await agent.start()
    try:
        cwd = str(tmp_path)
        session = await agent.create_session(cwd=cwd, mcp_servers=[])
        assert agent.config_options(session)[0].current_value == "small"
        await agent.set_config_option(session_id=session, config_id="model", value="large")
        assert agent.config_options(session)[0].current_value == "large"
        assert await agent.load_session(cwd=cwd, session_id=session, mcp_servers=[])
        with pytest.raises(ACPSessionRestoreError, match="s-9 could not be restored") as refused:
            await agent.restore_session_response(cwd=cwd, session_id="s-9", mcp_servers=[])
        assert refused.value.session_id == "s-9" and refused.value.__cause__ is not None
        assert await agent.load_session_response(cwd=cwd, session_id="s-9", mcp_servers=[]) is None
        await agent.close_session(session)
        assert agent.config_options(session) == ()  # forgotten here
        assert not await agent.load_session(cwd=cwd, session_id=session, mcp_servers=[])
    finally:
        await agent.stop()
    await agent.stop()  # a second stop has nothing to close
    with pytest.raises(RuntimeError, match="not open"):
        await agent.ensure_connection()


async def test_a_permission_request_goes_to_the_turns_handler(tmp_path: Path) -> None:
    agent = runtime()
    await agent.start()
    asked: list[dict[str, Any]] = []

    async def allow(**request: Any) -> dict[str, object]:
        asked.append(request)
        return allow_permission("yes")

    try:
        session = await agent.create_session(cwd=str(tmp_path), mcp_servers=[])
        await agent.prompt(session_id=session, prompt_text="ask")
        assert agent.client is not None
        assert agent.client.get_collected_text(session) == "denied"  # no handler: cancelled
        agent.reset_session(session)
        agent.set_permission_handler(session, allow)
        await agent.prompt(session_id=session, prompt_text="ask")
        assert agent.client.get_collected_text(session) == "granted"
    finally:
        await agent.stop()
    assert asked[0]["session_id"] == session and callable(asked[0]["narrate_permission"])


async def test_a_crash_is_reported_with_the_agents_stderr(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    agent = runtime()
    await agent.start()
    with pytest.raises(ConnectionError):
        session = await agent.create_session(cwd=str(tmp_path), mcp_servers=[])
        await agent.prompt(session_id=session, prompt_text="crash")
    assert "boom: out of cheese" in agent.stderr_tail
    with caplog.at_level(logging.WARNING, "band.integrations.acp.client_runtime"):
        await agent.stop()
    assert any(
        "exited with code 3" in r.getMessage() and "boom" in r.getMessage() for r in caplog.records
    )


async def test_a_stop_asked_for_is_no_crash(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    agent = runtime()
    with caplog.at_level(logging.WARNING, "band.integrations.acp.client_runtime"):
        await agent.start()
        with pytest.raises(RuntimeError, match="already started"):
            await agent.start()
        await agent.stop()
    assert agent.closed
    assert not [r for r in caplog.records if "stderr tail" in r.getMessage()]


async def test_the_runtime_speaks_to_an_agent_over_tcp(tmp_path: Path) -> None:
    server, port = await serve_tcp()
    agent = ACPRuntime(
        command=[],
        spawn_process=tcp_spawn_process("127.0.0.1", port),
        client_factory=lambda: ACPCollectingClient(canonicalize_tool_name=band_names),
        pass_builtin_transport_options=False,
    )
    try:
        await agent.start()
        session = await agent.create_session(cwd=str(tmp_path), mcp_servers=[])
        chunks = await agent.prompt(session_id=session, prompt_text="hi")
        assert "".join(c.content for c in chunks if c.chunk_type == ChunkType.TEXT) == "Hello"
        await agent.stop()
        assert agent.closed
    finally:
        server.close()
        await server.wait_closed()
