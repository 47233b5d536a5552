"""band-sdk's Codex JSON-RPC clients (``band.integrations.codex``) against real peers.

The real ``codex app-server`` over stdio and over its WebSocket listener (handshake, a
thread, an error answer, closing), and a scripted peer (``jsonrpc_peer.py``, over both
transports) for what Codex will not do on demand: overload refusals and their retries,
requests from the server, a peer that dies mid-request.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from band.adapters.codex import CodexClientProtocol
from band.core.exceptions import BandConnectionError
from band.integrations.codex import (
    TRANSPORT_CLOSED,
    CodexJsonRpcError,
    CodexStdioClient,
    CodexWebSocketClient,
    OverloadRetryPolicy,
    RpcEvent,
)
from band.integrations.codex.rpc_base import BaseJsonRpcClient
from band.integrations.codex.stdio_client import kill_process_tree

from .codex_support import codex_command, codex_env
from .jsonrpc_peer import serve_websocket

PEER = Path(__file__).with_name("jsonrpc_peer.py")
DEAD_MODEL = "http://127.0.0.1:9/v1"
NO_JITTER = OverloadRetryPolicy(max_attempts=3, base_delay_s=0.25, max_delay_s=2.0, jitter_s=0)


class Sleeps:
    """A ``sleep`` that records the delays asked for and does not wait."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def closed_event(client: BaseJsonRpcClient) -> RpcEvent:
    while (event := await client.recv_event(timeout_s=20)).method != TRANSPORT_CLOSED:
        pass
    return event


# -- the real codex app-server ------------------------------------------------------------------


async def talk_to_codex(client: BaseJsonRpcClient, workspace: Path) -> None:
    init = await client.initialize(
        client_name="band-test", client_title="Band test", client_version="1.0.0"
    )
    assert "userAgent" in init
    started = await client.request("thread/start", {"cwd": str(workspace)})
    assert started["thread"]["id"]
    with pytest.raises(CodexJsonRpcError) as refused:
        await client.request("no/such/method", {})
    assert refused.value.code < 0 and refused.value.message


async def test_stdio_client_talks_to_codex_and_closes_its_process(
    codex_bin: Path, codex_home: Path, tmp_path: Path
) -> None:
    client = CodexStdioClient(
        command=codex_command(codex_bin, DEAD_MODEL), cwd=str(tmp_path), env=codex_env(codex_home)
    )
    await client.connect()
    process = client.process
    assert process is not None and client.connected
    try:
        await talk_to_codex(client, tmp_path)
    finally:
        await client.close()
    assert process.returncode is not None and not client.connected
    assert "client closed" in str((await closed_event(client)).params)
    with pytest.raises(RuntimeError, match="not connected"):
        await client.request("thread/start", {})


@pytest.fixture
async def codex_ws(codex_bin: Path, codex_home: Path, tmp_path: Path) -> AsyncIterator[str]:
    argv = codex_command(codex_bin, DEAD_MODEL)
    argv[argv.index("stdio://")] = "ws://127.0.0.1:0"
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=tmp_path,
        env={**os.environ, **codex_env(codex_home)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # the npm launcher runs the native binary as its child
    )
    assert proc.stderr is not None
    try:
        url = None
        async with asyncio.timeout(30):
            while url is None and (line := await proc.stderr.readline()):
                found = re.search(rb"listening on: (ws://\S+)", line)
                url = found.group(1).decode() if found else None
        assert url, "codex app-server did not say where it listens"
        yield url
    finally:
        await kill_process_tree(proc)  # the launcher and the binary alike
        await asyncio.wait_for(proc.wait(), 10)


async def test_websocket_client_talks_to_codex_listening_on_a_port(
    codex_ws: str, tmp_path: Path
) -> None:
    client = CodexWebSocketClient(ws_url=codex_ws)
    await client.connect()
    try:
        await talk_to_codex(client, tmp_path)
    finally:
        await client.close()
    assert "websocket client closed" in str((await closed_event(client)).params)


async def test_websocket_client_names_the_url_when_nothing_listens() -> None:
    client = CodexWebSocketClient(ws_url="ws://127.0.0.1:9", connect_timeout_s=2)
    with pytest.raises(BandConnectionError, match=r"ws://127.0.0.1:9.*codex app-server --listen"):
        await client.connect()


async def test_stdio_client_says_how_to_install_a_missing_cli(tmp_path: Path) -> None:
    client = CodexStdioClient(command=[str(tmp_path / "codex"), "app-server"])
    with pytest.raises(BandConnectionError, match="npm install -g @openai/codex"):
        await client.connect()


# -- the scripted peer, over both transports ---------------------------------------------------


@pytest.fixture(params=["stdio", "websocket"])
async def peer(request: pytest.FixtureRequest) -> AsyncIterator[tuple[BaseJsonRpcClient, Sleeps]]:
    """A connected client of the scripted peer, over the transport named by the param."""
    sleeps = Sleeps()
    client: BaseJsonRpcClient
    if request.param == "stdio":
        client = CodexStdioClient(
            command=[sys.executable, str(PEER)], retry_policy=NO_JITTER, sleep=sleeps
        )
        await client.connect()
        yield client, sleeps
        await client.close()
        return
    server, url = await serve_websocket()
    client = CodexWebSocketClient(ws_url=url, retry_policy=NO_JITTER, sleep=sleeps)
    await client.connect()
    yield client, sleeps
    await client.close()
    server.close()
    await server.wait_closed()


async def test_overloaded_requests_are_retried_with_doubling_backoff(peer: Any) -> None:
    client, sleeps = peer
    assert await client.request("busy", {"times": 2}) == {"attempts": 3}
    assert sleeps.delays == [0.25, 0.5]


async def test_retries_stop_at_max_attempts_and_when_asked_not_to(peer: Any) -> None:
    client, sleeps = peer
    with pytest.raises(CodexJsonRpcError) as exhausted:
        await client.request("busy", {"times": 5})
    assert exhausted.value.code == -32001 and sleeps.delays == [0.25, 0.5]
    with pytest.raises(CodexJsonRpcError, match="overloaded"):
        await client.request("busy", {"times": 5}, retry_on_overload=False)
    assert len(sleeps.delays) == 2


async def test_an_error_answer_carries_code_message_and_data(peer: Any) -> None:
    client, sleeps = peer
    with pytest.raises(CodexJsonRpcError) as failed:
        await client.request("fail")
    assert (failed.value.code, failed.value.message) == (-32602, "bad params")
    assert failed.value.data == {"field": "x"}
    assert str(failed.value) == "Codex JSON-RPC error -32602: bad params"
    assert sleeps.delays == []  # only overloads are retried


async def test_initialize_sends_capabilities_then_the_initialized_notification(
    peer: Any,
) -> None:
    client, _ = peer
    result = await client.initialize(
        client_name="n",
        client_title="t",
        client_version="1",
        experimental_api=True,
        opt_out_notification_methods=["item/reasoning/textDelta"],
    )
    assert result["params"] == {
        "clientInfo": {"name": "n", "title": "t", "version": "1"},
        "capabilities": {
            "experimentalApi": True,
            "optOutNotificationMethods": ["item/reasoning/textDelta"],
        },
    }
    assert await client.request("notes") == {"notes": ["initialized"]}


async def test_server_notifications_and_requests_arrive_in_order_and_get_answers(
    peer: Any,
) -> None:
    client, _ = peer
    asking = asyncio.create_task(client.request("ask"))
    note = await client.recv_event(timeout_s=10)
    assert (note.kind, note.method, note.id, note.is_request) == (
        "notification",
        "turn/started",
        None,
        False,
    )
    question = await client.recv_event(timeout_s=10)
    assert (question.kind, question.method, question.id) == ("request", "item/tool/call", "srv-1")
    assert question.is_request and question.params == {"q": 1}
    await client.respond(question.id, {"ok": True})
    assert await asyncio.wait_for(asking, 10) == {"answer": {"ok": True}}


async def test_a_peer_that_goes_away_fails_waiting_requests_and_says_so(peer: Any) -> None:
    client, _ = peer
    hanging = asyncio.create_task(client.request("hang"))
    await asyncio.sleep(0.2)
    await client.notify("leave-soon")
    leaving = asyncio.create_task(client.request("leave"))
    with pytest.raises(RuntimeError) as cut:
        await asyncio.wait_for(hanging, 20)
    assert not isinstance(cut.value, CodexJsonRpcError)
    with pytest.raises(RuntimeError):
        await asyncio.wait_for(leaving, 20)
    event = await closed_event(client)
    assert event.kind == "notification" and event.id is None
    if isinstance(client, CodexStdioClient):  # the exit code and the last stderr line
        assert "exit code 3: peer is leaving" in str(event.params)
    else:
        assert event.params == {"reason": "Codex websocket disconnected"}
    assert not client.connected


def test_both_transports_are_what_the_codex_adapter_needs_of_a_client() -> None:
    assert isinstance(CodexStdioClient(command=["codex"]), CodexClientProtocol)
    assert isinstance(CodexWebSocketClient(), CodexClientProtocol)


def test_backoff_doubles_up_to_the_cap_and_jitter_stays_in_bounds() -> None:
    assert [NO_JITTER.backoff_seconds(n) for n in (1, 2, 3, 4, 5)] == [0.25, 0.5, 1.0, 2.0, 2.0]
    policy = OverloadRetryPolicy(base_delay_s=0.05, jitter_s=0.1)
    delays = [policy.backoff_seconds(1) for _ in range(200)]
    assert min(delays) >= 0.0 and max(delays) <= 0.15 and len(set(delays)) > 1
    assert OverloadRetryPolicy() == OverloadRetryPolicy(3, 0.25, 2.0, 0.1)
