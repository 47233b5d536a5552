"""``CodexAdapterConfig``'s client identity and per-room approval limits, doing their work.

The client fields reach ``codex app-server``'s ``initialize`` (here the scripted JSON-RPC
peer, which answers with the params it received); the limits bound what the approval relay
(built from the config as the adapter builds it) keeps per room.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from band.adapters._coding.approvals import ApprovalRelay, ApprovalRequest, Decision
from band.adapters._coding.commands import RoomCommand
from band.adapters._coding.events import Reporter
from band.adapters.codex import (
    CodexAdapter,
    CodexAdapterConfig,
    CodexToolItem,
    CodexTurn,
    NativeMessage,
    NativeTurn,
    RoomCodexClient,
    TurnResult,
)
from band.adapters.codex.items import completed_tool_item
from band.adapters.codex.process import CodexProcess
from band.adapters.codex.rpc import CodexJsonRpcError
from band.testing import FakeAgentTools

pytestmark = pytest.mark.timeout(30)
PEER = Path(__file__).with_name("jsonrpc_peer.py")
ROOM = "room-1"
ALICE = {"id": "user-alice", "name": "Alice", "handle": "alice", "type": "User"}


async def initialize_params(config: CodexAdapterConfig, tmp_path: Path) -> dict[str, Any]:
    proc = CodexProcess(RoomCodexClient(ROOM, str(tmp_path)))
    try:
        await proc.start(
            [sys.executable, str(PEER)],
            dict(os.environ),
            client_info=config.client_info,
            experimental_api=config.experimental_api,
        )
        return dict(proc.server_info["params"])
    finally:
        await proc.close()


async def test_initialize_names_the_configured_client_and_experimental_api(
    tmp_path: Path,
) -> None:
    custom = CodexAdapterConfig(
        client_name="acme_bot",
        client_title="Acme Bot",
        client_version="2.3.4",
        experimental_api=False,
    )
    sent = await initialize_params(custom, tmp_path)
    default = await initialize_params(CodexAdapterConfig(), tmp_path)

    assert sent == {
        "clientInfo": {"name": "acme_bot", "title": "Acme Bot", "version": "2.3.4"},
        "capabilities": {"experimentalApi": False},
    }
    assert default["clientInfo"] == {
        "name": "band_codex_adapter",
        "title": "Band Codex Adapter",
        "version": "0.1.0",
    }
    assert default["capabilities"] == {"experimentalApi": True}


def test_the_client_fields_and_limits_read_the_codex_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CODEX_CLIENT_NAME", "from_env")
    monkeypatch.setenv("CODEX_MAX_PENDING_APPROVALS_PER_ROOM", "7")
    config = CodexAdapterConfig(client_version="9")

    assert config.client_info == {"name": "from_env", "title": "Band Codex Adapter", "version": "9"}
    assert config.max_pending_approvals_per_room == 7
    with pytest.raises(ValueError, match="max_pending_approvals_per_room"):
        CodexAdapterConfig(max_pending_approvals_per_room=0)


def relay_for(**limits: Any) -> tuple[ApprovalRelay, Reporter, FakeAgentTools]:
    tools = FakeAgentTools(room_id=ROOM, participants=[ALICE])
    adapter: Any = SimpleNamespace(features=SimpleNamespace(emit=frozenset()))
    relay = ApprovalRelay.from_config(CodexAdapterConfig(**limits))
    return relay, Reporter(adapter, tools, ["alice"]), tools


def ask(relay: ApprovalRelay, reporter: Reporter, key: str) -> asyncio.Task[Decision]:
    request = ApprovalRequest("command", f"run {key}", session_key=key)
    return asyncio.create_task(relay.request(ROOM, reporter, request))


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_one_approval_over_the_pending_limit_declines_the_oldest() -> None:
    relay, reporter, tools = relay_for(max_pending_approvals_per_room=2)
    first, second = ask(relay, reporter, "a"), ask(relay, reporter, "b")
    await settle()
    third = ask(relay, reporter, "c")
    await settle()

    assert first.done() and first.result() is Decision.DECLINE
    assert len(relay.pending(ROOM)) == 2 and not second.done() and not third.done()
    assert any("(the pending limit)" in line for line in relay.permissions(ROOM))
    await relay.answer(ROOM, tools, RoomCommand("approve", (relay.pending(ROOM)[0],)), ["alice"])
    assert await second is Decision.ACCEPT
    relay.forget(ROOM)
    assert await third is Decision.DECLINE


async def test_session_approvals_forget_the_least_recently_approved_over_the_limit() -> None:
    relay, reporter, tools = relay_for(max_session_approved_per_room=2)
    for key in ("a", "b", "a", "c"):  # "a" approved again: "b" is now the oldest
        waiting = ask(relay, reporter, key)
        await settle()
        if not waiting.done():
            token = relay.pending(ROOM)[0]
            await relay.answer(ROOM, tools, RoomCommand("approve-session", (token,)), ["alice"])
        await waiting

    again = {key: ask(relay, reporter, key) for key in "abc"}
    await settle()

    assert again["a"].result() is Decision.ACCEPT_SESSION
    assert again["c"].result() is Decision.ACCEPT_SESSION
    assert not again["b"].done() and len(relay.pending(ROOM)) == 1
    assert relay.permissions(ROOM)[:3] == ["Approved for this session: 2.", "- `a`", "- `c`"]
    relay.forget(ROOM)
    assert await again["b"] is Decision.DECLINE


async def test_the_audit_keeps_only_the_latest_decisions() -> None:
    relay, reporter, _ = relay_for(approval_mode="auto_accept", max_approval_audit_per_room=3)
    for key in "abcde":
        assert await ask(relay, reporter, key) is Decision.ACCEPT

    lines = relay.permissions(ROOM, recent=10)

    assert "Latest decisions (3):" in lines
    decided = [line for line in lines if "`run " in line]
    assert [line.split("`")[1] for line in decided] == ["run c", "run d", "run e"]


STUBBORN = """
import json, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
request = json.loads(sys.stdin.readline())
print(json.dumps({"id": request["id"], "result": {}}), flush=True)
time.sleep(60)
"""


async def test_a_process_that_will_not_close_in_time_is_killed_and_the_room_named(
    tmp_path: Path,
) -> None:
    config = CodexAdapterConfig(client_close_timeout_s=0.5)
    room = RoomCodexClient(ROOM, str(tmp_path))
    proc = CodexProcess(room, close_timeout_s=config.client_close_timeout_s)
    await proc.start([sys.executable, "-c", STUBBORN], dict(os.environ))
    child = proc.channel.proc
    started = asyncio.get_running_loop().time()

    with pytest.raises(TimeoutError, match=f"room {ROOM} did not close within 0.5s"):
        await proc.close()

    assert asyncio.get_running_loop().time() - started < 2.5  # not the 6 s TERM/KILL ladder
    assert await asyncio.wait_for(child.wait(), 5) == -9


def adapter_with(tmp_path: Path, **fields: Any) -> CodexAdapter:
    return CodexAdapter(CodexAdapterConfig(codex_command=["codex-not-started"], **fields))


async def test_a_leave_lets_a_running_turn_end_within_the_settle_timeout(tmp_path: Path) -> None:
    outcomes: list[str] = []

    async def turn(seconds: float) -> None:
        try:
            await asyncio.sleep(seconds)
            outcomes.append("ended")
        except asyncio.CancelledError:
            outcomes.append("cancelled")
            raise

    for settle_s, expected in ((2.0, "ended"), (0.0, "cancelled")):
        adapter = adapter_with(tmp_path, turn_settle_timeout_s=settle_s)
        running: Any = SimpleNamespace(task=asyncio.create_task(turn(0.2)), detached=True)
        adapter.turns.keep(ROOM, running)
        await asyncio.sleep(0.01)  # the turn is under way when the room is left
        await adapter.on_cleanup(ROOM)
        assert outcomes[-1] == expected


async def test_workspace_for_room_in_the_config_places_each_rooms_folder(tmp_path: Path) -> None:
    adapter = adapter_with(tmp_path, workspace_for_room=lambda room: str(tmp_path / "w" / room))
    own = CodexAdapter(
        CodexAdapterConfig(workspace_for_room=lambda room: str(tmp_path / "ignored")),
        workspace_for_room=lambda room: str(tmp_path / "argument" / room),
    )

    assert adapter.room_folder(ROOM) == tmp_path / "w" / ROOM
    assert (tmp_path / "w" / ROOM).is_dir()
    assert own.room_folder(ROOM) == tmp_path / "argument" / ROOM
    assert "workspace_for_room" not in CodexAdapterConfig().model_dump()


def test_a_shared_websocket_app_server_is_refused_naming_its_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CODEX_WS_URL", "ws://10.0.0.5:9000")
    config = CodexAdapterConfig(transport="websocket")

    assert config.codex_ws_url == "ws://10.0.0.5:9000"
    assert CodexAdapterConfig(codex_ws_url="ws://h:1").codex_ws_url == "ws://h:1"
    with pytest.raises(ValueError, match=r"app-server at ws://10\.0\.0\.5:9000 \(codex_ws_url\)"):
        CodexAdapter(config)


def test_sandbox_and_codex_env_default_to_codex_own() -> None:
    config = CodexAdapterConfig()
    assert config.sandbox is None and config.thread_sandbox is None and config.codex_env is None


def test_a_completed_tool_like_item_is_the_name_args_and_text_the_room_is_shown() -> None:
    command = {
        "type": "commandExecution",
        "command": "ls -1",
        "cwd": "/w",
        "status": "completed",
        "aggregatedOutput": "a.txt\n",
        "exitCode": 0,
    }
    mcp_call = {
        "type": "mcpToolCall",
        "server": "docs",
        "tool": "search",
        "arguments": {"q": "band"},
        "status": "completed",
        "result": {"hits": 2},
    }
    declined = {**command, "status": "declined"}

    assert completed_tool_item(command) == (
        CodexToolItem("command_execution", {"command": "ls -1", "cwd": "/w"}, "a.txt\n"),
        False,
    )
    assert completed_tool_item(mcp_call) == (
        CodexToolItem("docs.search", {"q": "band"}, '{"hits": 2}'),
        False,
    )
    assert completed_tool_item(declined) == (
        CodexToolItem(
            "command_execution",
            {"command": "ls -1", "cwd": "/w"},
            "Declined in the room: it did not run.",
        ),
        True,
    )
    assert completed_tool_item({"type": "agentMessage", "text": "hi"}) is None


async def test_codex_turn_interrupts_its_turn_over_the_rooms_client(tmp_path: Path) -> None:
    room = RoomCodexClient(ROOM, str(tmp_path))
    proc = CodexProcess(room)
    await proc.start([sys.executable, str(PEER)], dict(os.environ))
    try:
        idle = proc.running_turn()
        room.turn = NativeTurn(proc.channel.client, proc.generation, "th-1", "tu-1")
        running = proc.running_turn()
        assert running is not None
        with pytest.raises(CodexJsonRpcError, match="unknown method turn/interrupt"):
            await running.interrupt()  # the scripted peer knows no turn/interrupt
    finally:
        await proc.close()

    assert idle is None
    assert running == CodexTurn(proc.channel.client, "th-1", "tu-1")
    assert proc.running_turn() is None  # the process is gone


def test_a_native_message_repeats_only_what_was_not_streamed() -> None:
    streamed = NativeMessage("commentary", "Looking at", "Looking at the tests now.")
    rewritten = NativeMessage("commentary", "Draft", "Final wording.")
    silent = NativeMessage("final_answer", completed_text="Done.")
    result = TurnResult({"m1": silent})

    assert streamed.unstreamed_text == " the tests now."
    assert rewritten.unstreamed_text == "Final wording."
    assert silent.unstreamed_text == "Done." and NativeMessage().unstreamed_text == ""
    assert (result.turn_status, result.turn_error) == ("failed", "")
    assert result.native_messages["m1"] is silent
