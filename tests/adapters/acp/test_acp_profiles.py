"""CursorACPAdapter and OmpACPAdapter against stand-ins that speak each agent's documented
ACP extensions (``standin_agent.py``; the real CLIs cannot run here, see the README).

What the room sees: Cursor's plan asked for approval and followed or dropped, its todos as
a task event, its questions answered by policy or posted to the room; OMP started with the
model, approval mode and provider key it was configured with, and answering a mention.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from runtime_support import until

from band.adapters import (
    CursorACPAdapter,
    CursorACPAdapterConfig,
    OmpACPAdapter,
    OmpACPAdapterConfig,
)
from band.adapters._coding.approvals import ApprovalMode as RelayMode
from band.adapters.cursor_acp import ApprovalMode
from band.adapters.omp_acp import DEFAULT_OMP_ACP_COMMAND
from band.testing import FakeModel, ToolCall

from ..band_serve import Room
from ..coding_e2e import (
    PROOF,
    AgentStarter,
    agent_starter,
    approve_command,
    journey,
    proof_policy,
    timed_journey,
    workspaces,
)
from .test_acp_e2e import last_call

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]

STANDIN = [sys.executable, str(Path(__file__).with_name("standin_agent.py"))]


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def start_cursor(band_serve: Any, model_url: str, tmp_path: Path) -> AgentStarter:
    def build(**fields: Any) -> CursorACPAdapter:
        env = {"BAND_FAKE_MODEL_URL": model_url, "BAND_STANDIN": "cursor"}
        config = CursorACPAdapterConfig(command=STANDIN, env=env, **fields)
        return CursorACPAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_a_cursor_plan_is_approved_in_the_room(
    start_cursor: AgentStarter, room: Room
) -> None:
    async with start_cursor():
        await room.say("please make a plan")
        notice = await room.wait_text(lambda t: "Approval requested (plan)" in t)
        token = notice.split("Approval id: `")[1][:8]
        await room.say(f"/approve {token}")
        todos = await room.wait_task(lambda t: "cursor_todos" in (t["metadata"] or {}))
    assert "`1. write plan.txt`" in notice
    assert (room.workspace / "plan.txt").exists()
    assert any(t["content"] == "Todos\n- [~] write plan.txt" for t in todos)


async def test_a_declined_cursor_plan_is_not_followed(
    start_cursor: AgentStarter, room: Room
) -> None:
    async with start_cursor():
        await room.say("please make a plan")
        notice = await room.wait_text(lambda t: "Approval requested (plan)" in t)
        await room.say(f"/decline {notice.split('Approval id: `')[1][:8]}")
        await room.wait_task(lambda t: "cursor_todos" in (t["metadata"] or {}))
    assert not (room.workspace / "plan.txt").exists()


async def test_cursor_questions_are_posted_or_answered_by_policy(
    start_cursor: AgentStarter, room: Room
) -> None:
    async with start_cursor():
        await room.ask("ask me something")
        posted = await room.wait_text(lambda t: "Cursor asks" in t)
    assert "Which file should I touch? (`README.md`, `setup.py`)" in posted
    assert not (room.workspace / "answer.txt").exists()
    answer = room.workspace / "answer.txt"
    async with start_cursor(question_mode="auto_first"):
        await room.say("ask me again")  # the stand-in ends that turn without a reply
        await until(lambda: answer.exists())
    assert answer.read_text() == "a"


async def test_a_cursor_mention_is_answered(start_cursor: AgentStarter, room: Room) -> None:
    async with start_cursor():
        await room.ask("hello Cursor")
        await room.wait_text(lambda t: "You said: hello Cursor" in t)


def test_cursor_configuration() -> None:
    adapter = CursorACPAdapter(CursorACPAdapterConfig(api_key="k"))
    assert adapter.config.command == ("agent", "acp")  # band-sdk's default, a tuple
    # band-sdk spells the approval mode as a Literal alias; each of its values configures.
    assert get_args(ApprovalMode) == ("manual", "auto_accept", "auto_decline")
    for mode in get_args(ApprovalMode):
        assert CursorACPAdapterConfig(approval_mode=mode).approval_mode == mode
    assert CursorACPAdapterConfig(command="agent").command == ("agent",)
    assert CursorACPAdapterConfig(command=["agent", "acp", "-v"]).command[-1] == "-v"
    assert adapter.config.env["CURSOR_API_KEY"] == "k"
    assert adapter.relay.wait_timeout_s == 300.0 and adapter.config.turn_timeout_s == 900.0
    with pytest.raises(ValueError, match="either api_key or auth_token"):
        CursorACPAdapterConfig(api_key="k", auth_token="t")
    with pytest.raises(ValueError, match="decision_timeout_s must be less than turn_timeout_s"):
        CursorACPAdapterConfig(decision_timeout_s=900)


async def test_omp_starts_with_its_launch_flags_and_answers(
    band_serve: Any, model_url: str, tmp_path: Path, room: Room
) -> None:
    def build() -> OmpACPAdapter:
        env = {"BAND_FAKE_MODEL_URL": model_url, "BAND_STANDIN": "omp"}
        config = OmpACPAdapterConfig(
            command=[*STANDIN, "acp"], env=env, model="openai/fake-model", api_key="sk-x"
        )
        return OmpACPAdapter(config, workspace_for_room=workspaces(tmp_path))

    async with agent_starter(band_serve, build)():
        await room.ask("hello OMP")
        await room.wait_text(lambda t: "You said: hello OMP" in t)
    launch = json.loads((room.workspace / "launch.json").read_text())
    assert launch == {
        "argv": [
            "acp",
            f"--cwd={room.workspace}",
            "--model=openai/fake-model",
            "--approval-mode",
            "always-ask",
        ],
        "openai_key": True,
    }


def test_omp_configuration() -> None:
    config = OmpACPAdapterConfig(model="openai/m", approval_mode="yolo")
    adapter = OmpACPAdapter(config)
    assert adapter.omp_command == [
        *DEFAULT_OMP_ACP_COMMAND,
        "--model=openai/m",
        "--approval-mode",
        "yolo",
    ]
    assert adapter.config.use_unstable_protocol is True
    assert adapter.config.model == "openai/m" and adapter.model_selection == {}  # a launch flag
    assert adapter.relay.mode is RelayMode.AUTO_ACCEPT  # OMP's forms approved unattended
    manual = OmpACPAdapter(OmpACPAdapterConfig(room_approval_mode="manual"))
    assert manual.relay.mode is RelayMode.MANUAL  # or asked of the room
    with pytest.raises(ValueError, match="Unsafe OMP flag '--yolo'"):
        OmpACPAdapterConfig(command=["omp", "acp", "--yolo"])
    with pytest.raises(ValueError, match="Unsafe OMP approval mode 'write'"):
        OmpACPAdapterConfig(command=["omp", "acp", "--approval-mode=write"])
    with pytest.raises(ValueError, match="api_key needs model"):
        OmpACPAdapterConfig(api_key="k")
    with pytest.raises(ValueError, match="Unsupported OMP model provider 'acme'"):
        OmpACPAdapterConfig(model="acme/m", api_key="k")
    with pytest.raises(ValueError, match="room process isolation"):
        OmpACPAdapter(config, spawn_process=object())


async def test_omps_approval_forms_are_decided_like_permission_requests(
    start_omp: AgentStarter, room: Room
) -> None:
    form = room.workspace / "form.txt"
    async with start_omp():  # room_approval_mode auto_accept, as band-sdk approves unattended
        await room.say("use the form")
        await until(lambda: form.exists())
    assert form.read_text() == "Approve"
    form.unlink()
    async with start_omp(room_approval_mode="manual"):
        await room.say("use the form again")
        notice = await room.wait_text(lambda t: "Approval requested (permission)" in t)
        await room.say(f"/decline {notice.split('Approval id: `')[1][:8]}")
        await until(lambda: form.exists())
        results = await until(lambda: room.events("tool_result"))
    assert "make release" in notice
    assert form.read_text() == "decline"
    (refused,) = [json.loads(e["content"]) for e in results]
    assert refused["name"] == "omp_approval_form" and refused["output"] == "Permission cancelled"


@pytest.fixture
def start_omp(band_serve: Any, model_url: str, tmp_path: Path) -> AgentStarter:
    def build(**fields: Any) -> OmpACPAdapter:
        env = {"BAND_FAKE_MODEL_URL": model_url, "BAND_STANDIN": "omp"}
        config = OmpACPAdapterConfig(command=[*STANDIN, "acp"], env=env, **fields)
        return OmpACPAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


@journey
@pytest.mark.parametrize("profile", ["cursor", "omp"])
async def test_journey_timings(
    start_cursor: AgentStarter, start_omp: AgentStarter, room: Room, fake: FakeModel, profile: str
) -> None:
    fake.policy = proof_policy(ToolCall("run_command", {"command": PROOF}), last_call)
    # OMP's approvals are relayed to the room only with room_approval_mode="manual".
    omp = functools.partial(start_omp, room_approval_mode="manual")
    start, name = (
        (start_cursor, "CursorACPAdapter") if profile == "cursor" else (omp, "OmpACPAdapter")
    )
    await timed_journey(f"{name} (stand-in)", start, room, approve_command("permission"))
