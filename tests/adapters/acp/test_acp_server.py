"""``band-acp`` end to end: the ``agent-client-protocol`` client (an editor) drives the real
``band-acp`` command over stdio against ``band serve``, and talks to a Band peer there.

Peers: Echo (replies ``echo: <text>``, or holds its reply, or stays silent) and, for
permission requests, the real ``ACPClientAdapter`` on the scripted ACP agent in ``manual``
approval mode, whose approval notice band-acp turns into ``session/request_permission``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ..framework_support import require

require("acp", "BAND_REQUIRE_ACP")

import acp  # noqa: E402
from acp import RequestError, text_block  # noqa: E402
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse  # noqa: E402
from runtime_support import EchoAdapter, make_agent, until  # noqa: E402

from band.adapters import ACPClientAdapter, ACPClientAdapterConfig  # noqa: E402
from band.testing import (  # noqa: E402
    FakeModel,
    ModelRequest,
    Reply,
    ToolCall,
    default_policy,
    serve_fake_models,
)

from ..band_serve import BandServe  # noqa: E402
from ..coding_e2e import PROOF  # noqa: E402
from .test_acp_e2e import AGENT, last_call  # noqa: E402

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
BAND_ACP = Path(sys.executable).parent / "band-acp"


@dataclass
class Editor:
    """The editor's side of ACP: what it was shown, and how it answers permission requests."""

    choose: str | None = "approve"  # an option id, or None to dismiss
    updates: list[Any] = field(default_factory=list)
    asked: list[Any] = field(default_factory=list)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, [o.option_id for o in options]))
        if self.choose is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.choose)
        )

    def texts(self) -> list[str]:
        return [
            u.content.text
            for u in self.updates
            if getattr(u, "session_update", "") == "agent_message_chunk"
        ]


@dataclass
class EditorAgent:
    """The Band agent band-acp runs as (registered by Alice for each test)."""

    id: str
    key: str
    handle: str


@pytest.fixture
async def editor_agent(band_serve: BandServe, alice: Any, request: Any) -> EditorAgent:
    name = "Editor " + "".join(c for c in request.node.name[-12:] if c.isalnum())
    body = {"agent": {"name": name[:24], "description": "Alice's editor, through band-acp"}}
    answer = await alice.http.post("/api/v1/me/agents/register", json=body)
    answer.raise_for_status()
    data = answer.json()["data"]
    return EditorAgent(data["agent"]["id"], data["credentials"]["api_key"], data["agent"]["handle"])


@asynccontextmanager
async def band_acp(
    serve: BandServe, agent: EditorAgent, editor: Editor, *options: str
) -> AsyncIterator[Any]:
    """``band-acp`` as an editor starts it, connected and initialized."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("BAND_")},
        "BAND_AGENT_ID": agent.id,
        "BAND_API_KEY": agent.key,
        "BAND_REST_URL": serve.url,
        "BAND_WS_URL": serve.ws_url,
    }
    argv = ["--peer", serve.world.agent_handle, *options]
    async with acp.spawn_agent_process(
        lambda _agent: editor, str(BAND_ACP), *argv, env=env, use_unstable_protocol=True
    ) as (conn, _process):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        yield conn


@asynccontextmanager
async def peer(serve: BandServe, adapter: Any) -> AsyncIterator[Any]:
    """The seeded agent (the session's peer) running ``adapter`` in this process."""
    world = serve.world
    agent = make_agent(serve, world.agent_id, world.agent_key, adapter)
    await agent.start()
    try:
        yield adapter
    finally:
        await agent.stop(10)


async def ask(conn: Any, session_id: str, text: str) -> Any:
    return await conn.prompt(session_id=session_id, prompt=[text_block(text)])


async def test_an_editor_prompt_is_answered_by_a_band_peer_in_the_sessions_room(
    band_serve: BandServe, editor_agent: EditorAgent, tmp_path: Path, alice: Any
) -> None:
    editor = Editor()
    async with peer(band_serve, EchoAdapter()), band_acp(band_serve, editor_agent, editor) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        answer = await ask(conn, session.session_id, "hello Band")
        again = await ask(conn, session.session_id, "and once more")
        listed = await conn.list_sessions()
    assert answer.stop_reason == again.stop_reason == "end_turn"
    first, second = editor.texts()
    assert first.startswith("echo: ") and first.endswith("hello Band")
    assert f"Editor cwd: {tmp_path}" in first
    assert second.endswith("and once more")
    assert [s.session_id for s in listed.sessions] == [session.session_id]


def approving_policy(editor_handle: str) -> Callable[[ModelRequest], Reply]:
    """The scripted coding agent: runs the proof command when asked, then reports to the
    editor's agent whether it printed band-proof."""

    def policy(request: ModelRequest) -> Reply:
        last = request.last
        if last is not None and last.role == "tool" and last_call(request) == "run_command":
            ran = "band-proof" in last.text
            content = "I ran the proof command." if ran else "I did not run the proof command."
            call = ToolCall("band_send_message", {"content": content, "mentions": [editor_handle]})
            return Reply(tool_calls=(call,))
        if last is not None and last.role == "tool":
            return Reply(text="")
        if last is not None and "run the proof command" in last.text:
            return Reply(tool_calls=(ToolCall("run_command", {"command": PROOF}),))
        outcome = default_policy(request)
        assert isinstance(outcome, Reply)
        return outcome

    return policy


@asynccontextmanager
async def coding_peer(serve: BandServe, editor_handle: str, root: Path) -> AsyncIterator[Path]:
    """The real ACP client adapter as the peer, asking before it runs a command."""
    fake = FakeModel(approving_policy(editor_handle))
    with serve_fake_models(fake) as models:
        config = ACPClientAdapterConfig(
            command=[sys.executable, str(AGENT)],
            env={"BAND_FAKE_MODEL_URL": models.openai_base_url},
            approval_mode="manual",
        )
        adapter = ACPClientAdapter(config, workspace_for_room=lambda room: root / room)
        async with peer(serve, adapter):
            yield root


@pytest.mark.parametrize(("choice", "ran"), [("approve", True), ("decline", False)])
async def test_a_peers_approval_request_is_asked_of_the_editor(
    band_serve: BandServe, editor_agent: EditorAgent, tmp_path: Path, choice: str, ran: bool
) -> None:
    editor = Editor(choose=choice)
    workspaces = tmp_path / "workspaces"
    async with (
        coding_peer(band_serve, editor_agent.handle, workspaces),
        band_acp(band_serve, editor_agent, editor) as conn,
    ):
        session = await conn.new_session(cwd=str(tmp_path))
        answer = await ask(conn, session.session_id, "please run the proof command")
    assert answer.stop_reason == "end_turn"
    (tool_call, options), *more = editor.asked
    assert more == [] and options == ["approve", "approve-session", "decline"]
    assert PROOF in tool_call.title and tool_call.status == "pending"
    texts = editor.texts()
    assert any("Approval requested (permission)" in t for t in texts)
    assert any("resolved as" in t for t in texts)
    expected = "I ran the proof command." if ran else "I did not run the proof command."
    assert texts[-1].endswith(expected)
    proofs = list(workspaces.glob("*/proof.txt"))
    assert [p.read_text().strip() for p in proofs] == (["band-proof"] if ran else [])


async def test_cancel_ends_the_prompt_cancelled(
    band_serve: BandServe, editor_agent: EditorAgent, tmp_path: Path
) -> None:
    echo = EchoAdapter()
    echo.gate = asyncio.Event()
    async with peer(band_serve, echo), band_acp(band_serve, editor_agent, Editor()) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        waiting = asyncio.create_task(ask(conn, session.session_id, "take your time"))
        await until(lambda: echo.turns)
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(waiting, 30)
        echo.gate.set()
    assert answer.stop_reason == "cancelled"


async def test_no_answer_in_time_fails_the_prompt(
    band_serve: BandServe, editor_agent: EditorAgent, tmp_path: Path
) -> None:
    silent = EchoAdapter(behaviour="read_only")
    async with (
        peer(band_serve, silent),
        band_acp(band_serve, editor_agent, Editor(), "--prompt-timeout", "1") as conn,
    ):
        session = await conn.new_session(cwd=str(tmp_path))
        with pytest.raises(RequestError) as info:
            await ask(conn, session.session_id, "anyone?")
    failure = info.value.data["failure"]
    assert failure["code"] == "timeout"
    assert failure["message"] == "No answer from the Band peers within 1 s"


async def test_a_restarted_band_acp_loads_the_session_and_refuses_unknown_ones(
    band_serve: BandServe, editor_agent: EditorAgent, tmp_path: Path
) -> None:
    async with peer(band_serve, EchoAdapter()):
        async with band_acp(band_serve, editor_agent, Editor()) as conn:
            session = await conn.new_session(cwd=str(tmp_path))
            await ask(conn, session.session_id, "first")
        editor = Editor()
        async with band_acp(band_serve, editor_agent, editor) as conn:
            await conn.load_session(cwd=str(tmp_path), session_id=session.session_id)
            answer = await ask(conn, session.session_id, "second")
            with pytest.raises(RequestError) as info:
                await conn.load_session(cwd=str(tmp_path), session_id="no-such-session")
    assert answer.stop_reason == "end_turn"
    assert editor.texts()[-1].endswith("second")
    assert info.value.code == -32002


def test_band_acp_without_credentials_says_what_is_missing() -> None:
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("BAND_")}
    done = subprocess.run([str(BAND_ACP)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""  # stdout belongs to the editor's JSON-RPC
    assert "band-acp: An agent id is needed: --agent-id or BAND_AGENT_ID" in done.stderr
