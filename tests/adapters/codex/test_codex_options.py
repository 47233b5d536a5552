"""CodexAdapterConfig's options as a person in the room sees them, on the real
``codex app-server``: the extra event flags, the sandbox policy, automatic approval
notices, the self-config and additional dynamic tools, skill roots and the start bound."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from band.adapters import CodexAdapter, CodexAdapterConfig
from band.testing import FakeModel, Reply, ToolCall

from ..band_serve import Room
from ..coding_e2e import PROOF, AgentStarter, agent_starter, workspaces
from .codex_support import codex_config

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

PATCH = "*** Begin Patch\n*** Add File: notes.txt\n+hello from codex\n*** End Patch\n"
PLAN_TOOL = "tools.update_plan={enabled=true}"


def say_done(text: str = "Done.") -> ToolCall:
    return ToolCall("band_send_message", {"content": text, "mentions": ["alice"]})


def sent(request: Any) -> bool:
    return request.last is not None and request.last.role == "tool"


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def start_coder(
    band_serve: Any, codex_bin: Path, codex_home: Path, model_url: str, tmp_path: Path
) -> AgentStarter:
    def build(
        settings: tuple[str, ...] = (), tools: list[Any] | None = None, **fields: Any
    ) -> CodexAdapter:
        config = codex_config(codex_bin, model_url, codex_home, settings, **fields)
        return CodexAdapter(config, additional_tools=tools, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


def meta(events: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    return [e["metadata"] for e in events if key in (e.get("metadata") or {})]


async def test_reasoning_and_commentary_stream_as_thought_chunks(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    first = Reply(
        reasoning="I should greet Alice.", text="Let me greet her.", tool_calls=(say_done(),)
    )
    fake.queue(first, Reply(text=""))
    async with start_coder(stream_reasoning_events=True, stream_commentary_events=True):
        await room.ask("think aloud")
        thoughts = await room.events("thought")
    chunks = [t for t in thoughts if (t["metadata"] or {}).get("streaming")]
    reasoning = [t["content"] for t in chunks if t["metadata"]["subtype"] == "reasoning"]
    commentary = [t["content"] for t in chunks if t["metadata"]["subtype"] == "commentary"]
    assert "".join(reasoning) == "I should greet Alice." and len(reasoning) > 1
    assert "".join(commentary) == "Let me greet her."
    whole = [t["content"] for t in thoughts if not (t["metadata"] or {}).get("streaming")]
    assert whole == ["I should greet Alice."]  # the commentary is not shown twice
    assert all(c["metadata"]["codex_thread_id"] for c in chunks)


async def test_without_the_flags_nothing_is_streamed(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    fake.queue(Reply(reasoning="Quietly.", text="Let me greet her.", tool_calls=(say_done(),)))
    async with start_coder():
        await room.ask("think quietly")
        thoughts = await room.events("thought")
    assert [t["content"] for t in thoughts] == ["Quietly.", "Let me greet her."]


async def test_plan_diff_usage_lifecycle_and_markers_are_task_events(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    plan = {"explanation": "Two steps", "plan": [{"step": "write notes", "status": "in_progress"}]}
    fake.call_tool("update_plan", plan)
    fake.call_tool("exec_command", {"cmd": f"apply_patch <<'EOF'\n{PATCH}EOF\n"})
    fake.queue(Reply(tool_calls=(say_done("Notes written."),)), Reply(text=""))
    flags = {
        "sandbox": "workspace-write",  # the patch writes notes.txt
        "stream_plan_events": True,
        "emit_diff_events": True,
        "emit_token_usage_events": True,
        "emit_turn_lifecycle_events": True,
        "emit_turn_task_markers": True,
    }
    async with start_coder(settings=(PLAN_TOOL,), **flags):
        await room.ask("write the notes")
        tasks = await room.events("task")
    contents = [t["content"] for t in tasks]
    plans = meta(tasks, "codex_plan")
    assert plans[0]["codex_plan"] == [{"step": "write notes", "status": "inProgress"}]
    assert "Codex plan: Two steps\n- [inProgress] write notes" in contents
    diff = meta(tasks, "codex_diff")
    assert len(diff) == 1 and "+hello from codex" in diff[0]["codex_diff"]
    assert diff[0]["codex_diff_files"] == ["notes.txt"] and not diff[0]["codex_diff_truncated"]
    usage = meta(tasks, "codex_total_tokens")
    assert usage and usage[-1]["codex_total_tokens"] > 0
    assert any(c.startswith("Codex token usage: ") for c in contents)
    order = [c for c in contents if c.startswith(("Codex turn:", "Codex turn lifecycle:"))]
    assert order == [
        "Codex turn: started",
        "Codex turn lifecycle: started",
        "Codex turn: completed",
        "Codex turn lifecycle: completed",
    ]
    assert (room.workspace / "notes.txt").read_text() == "hello from codex\n"


async def test_a_sandbox_policy_is_what_the_model_is_told(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_coder(sandbox_policy={"type": "read-only"}):
        await room.ask("hello")
        await room.ask("/sandbox workspace-write")
        notice = (await room.texts())[-1]
    system = fake.requests[0].system
    assert "`sandbox_mode` is `read-only`" in system
    assert "sandbox policy configured, which `/sandbox` cannot override" in notice


async def test_automatic_approvals_are_announced_unless_turned_off(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    escalated = {"cmd": PROOF, "sandbox_permissions": "require_escalated", "justification": "x"}
    announced = []
    for announce in (True, False):
        fake.call_tool("exec_command", escalated).queue(Reply(tool_calls=(say_done(),)))
        fields = {"approval_policy": "on-request", "approval_mode": "auto_accept"}
        async with start_coder(approval_text_notifications=announce, **fields):
            await room.ask(f"run it ({announce})")
            texts, tasks = await room.texts(), await room.events("task")
        announced.append(sum("Policy `auto_accept` decided `accept`" in t for t in texts))
        assert (room.workspace / "proof.txt").read_text().strip() == "band-proof"
        (room.workspace / "proof.txt").unlink()
    assert announced == [1, 1]  # the second agent said nothing
    audits = [t["content"] for t in tasks if "by policy auto_accept" in t["content"]]
    assert len(audits) == 2  # the audit trail is kept either way


async def test_self_config_tools_change_the_rooms_model(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    fake.call_tool("setmodel", {"model": "second-fake-model"})
    fake.queue(Reply(tool_calls=(say_done(),)))
    async with start_coder(enable_self_config_tools=True):
        await room.ask("switch yourself to the second model")
        first = len(fake.requests)
        await room.ask("and now?")
        await room.ask("/status")
        texts = await room.texts()
    assert {"setmodel", "setreasoning"} <= set(fake.requests[0].tool_names)
    assert fake.requests[0].model == "fake-model"
    assert fake.requests[first].model == "second-fake-model"
    assert "Model: `second-fake-model` (configured: `fake-model`)" in texts[-1]


async def test_without_self_config_tools_codex_is_not_offered_them(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_coder():
        await room.ask("hello")
    assert "setmodel" not in fake.requests[0].tool_names


class LookupTicketInput(BaseModel):
    """Look a ticket up by its number."""

    number: int


async def test_additional_dynamic_tools_are_offered_and_answered_by_their_handler(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    spec = {"name": "lookupticket", "description": "Lookup", "inputSchema": {"type": "object"}}
    orphan = {"name": "page_oncall", "description": "Nobody serves this"}
    fake.call_tool("lookupticket", {"number": 7}).call_tool("page_oncall", {})
    fake.queue(Reply(tool_calls=(say_done(),)))

    def lookup(args: LookupTicketInput) -> str:
        return f"ticket {args.number}: open"

    async with start_coder(
        tools=[(LookupTicketInput, lookup)], additional_dynamic_tools=[spec, orphan]
    ):
        await room.ask("look up ticket 7")
        results = [json.loads(e["content"]) for e in await room.events("tool_result")]
    assert {"lookupticket", "page_oncall"} <= set(fake.requests[0].tool_names)
    by_name = {r["name"]: r for r in results}
    assert by_name["lookupticket"]["output"] == "ticket 7: open"
    assert by_name["page_oncall"]["is_error"] is True


async def test_skill_roots_reach_codex(
    start_coder: AgentStarter, room: Room, fake: FakeModel, tmp_path: Path
) -> None:
    skill = tmp_path / "skills" / "release-notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Write the release notes of a version.\n---\n"
        "Collect the merged changes and write them up.\n"
    )
    async with start_coder(skill_roots=[str(tmp_path / "skills")]):
        await room.ask("hello")
    assert "release-notes: Write the release notes of a version." in fake.requests[0].system


async def test_a_start_that_overruns_the_retention_bound_is_reported(
    band_serve: Any, room: Room, tmp_path: Path
) -> None:
    silent = [sys.executable, "-c", "import time; time.sleep(60)"]
    config = CodexAdapterConfig(codex_command=silent, retention={"transition_timeout_s": 1})
    adapter = CodexAdapter(config, workspace_for_room=workspaces(tmp_path))
    async with agent_starter(band_serve, lambda: adapter)():
        await room.ask("hello", status="failed")
        errors = await room.events("error")
    assert [e["content"] for e in errors] == ["The Codex app-server did not start within 1 s."]
