"""The Codex room commands on the real ``codex app-server``: what each one answers in the
room and what it changes in the next turn Codex sends to the model; and the continuity rule
(a resumed thread keeps its tools, so changed tools are refused until ``/thread archive``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from band.adapters import CodexAdapter
from band.testing import FakeModel

from ..band_serve import Room
from ..coding_e2e import AgentStarter, agent_starter, workspaces
from .codex_support import codex_config

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def start_coder(
    band_serve: Any, codex_bin: Path, codex_home: Path, model_url: str, tmp_path: Path
) -> AgentStarter:
    def build(tools: list[Any] | None = None, **fields: Any) -> CodexAdapter:
        config = codex_config(codex_bin, model_url, codex_home, **fields)
        return CodexAdapter(config, additional_tools=tools, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def command(room: Room, text: str) -> str:
    """The agent's notice answering ``text``."""
    before = len(await room.texts())
    await room.ask(text)
    texts = await room.texts()
    assert len(texts) == before + 1, texts[before:]
    return texts[-1]


def threads_mapped(tasks: list[dict[str, Any]]) -> list[str]:
    mapped = [t for t in tasks if t["content"] == "Codex thread mapped"]
    return [t["metadata"]["codex_thread_id"] for t in mapped]


async def test_help_lists_every_command(start_coder: AgentStarter, room: Room) -> None:
    async with start_coder():
        text = await command(room, "/help")
    names = ["/approve", "/approvals", "/permissions", "/status", "/model", "/reasoning"]
    names += ["/sandbox", "/threads", "/thread info", "/thread archive", "/usage", "/help"]
    for name in names:
        assert f"`{name}" in text, name


async def test_reasoning_is_shown_checked_and_sent_with_the_next_turn(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_coder():
        await room.ask("hello")  # the room's process answers model/list from here on
        await command(room, "/model gpt-6.1-sol")  # a model Codex lists, with its efforts
        shown = await command(room, "/reasoning")
        refused = await command(room, "/reasoning extreme")
        accepted = await command(room, "/reasoning high")
        summary = await command(room, "/reasoning summary detailed")
        await command(room, "/model fake-model")
        await room.ask("again")
    assert "effort `default`" in shown and "`gpt-6.1-sol` supports `low`, `medium`" in shown
    assert refused.endswith(
        "`gpt-6.1-sol` does not support reasoning effort `extreme`; "
        "it supports `low`, `medium`, `high`, `xhigh`, `max`, `ultra`."
    )
    assert "now `high`" in accepted and "now `detailed`" in summary
    assert fake.requests[0].body["reasoning"] == {"summary": "auto"}
    assert fake.requests[-1].body["reasoning"] == {"effort": "high", "summary": "detailed"}


async def test_sandbox_changes_what_the_model_is_told_and_escalation_needs_confirming(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_coder(sandbox="workspace-write"):
        await room.ask("hello")
        shown = await command(room, "/sandbox")
        unconfirmed = await command(room, "/sandbox danger-full-access")
        unknown = await command(room, "/sandbox wide-open")
        asked = len(fake.requests)
        confirmed = await command(room, "/sandbox danger-full-access --confirm")
        await room.ask("and now")
        status = await command(room, "/status")
        permissions = await command(room, "/permissions")
    assert "Sandbox in this room: `workspace-write`" in shown
    assert "send `/sandbox danger-full-access --confirm`" in unconfirmed
    assert "Unknown sandbox mode `wide-open`" in unknown
    assert "now `danger-full-access`" in confirmed
    assert "`sandbox_mode` is `workspace-write`" in fake.requests[0].system
    assert "`sandbox_mode` is `danger-full-access`" in fake.requests[asked].system
    assert "sandbox `danger-full-access`" in status
    assert "sandbox `danger-full-access`" in permissions


async def test_without_a_configured_sandbox_the_thread_keeps_codexs_own_default(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_coder():
        await room.ask("hello")
        shown = await command(room, "/sandbox")
    assert "Sandbox in this room: `default`" in shown
    assert "`sandbox_mode` is `read-only`" in fake.requests[0].system


async def test_usage_threads_and_thread_info_describe_the_rooms_thread(
    start_coder: AgentStarter, room: Room
) -> None:
    async with start_coder():
        before = await command(room, "/usage")
        await room.ask("hello")
        usage = await command(room, "/usage")
        threads = await command(room, "/threads")
        info = await command(room, "/thread info")
        thread = threads_mapped(await room.events("task"))[0]
    assert before == before.split("] ")[0] + "] This room has no Codex thread yet, so no usage."
    assert re.search(rf"Thread `{thread}`: \d+ tokens: input \d+", usage)
    assert f"- `{thread}` (current)" in threads
    assert f"Thread `{thread}`" in info and "Token usage: " in info


async def test_thread_archive_starts_a_new_thread_that_a_restart_resumes(
    start_coder: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_coder():
        await room.ask("remember the number 7")
        archived = await command(room, "/thread archive")
        await room.ask("a fresh start")
    first, second = threads_mapped(await room.events("task"))
    async with start_coder():
        await room.ask("still there?")
    resumed = [t for t in await room.events("task") if t["content"] == "Codex thread resumed"]
    assert f"Thread `{first}` archived" in archived
    assert first != second
    assert [t["metadata"]["codex_thread_id"] for t in resumed] == [second]
    fresh = next(r for r in fake.requests if "a fresh start" in " ".join(r.texts("user")))
    assert not any("remember the number 7" in u for u in fresh.texts("user"))


async def test_model_list_shows_codexs_models(start_coder: AgentStarter, room: Room) -> None:
    async with start_coder():
        early = await command(room, "/model list")
        await room.ask("hello")
        listed = await command(room, "/model list")
        shown = await command(room, "/model")
    assert "mention me once" in early
    assert re.search(r"Models \(\d+\): `gpt-6\.1-sol`", listed)
    assert "Model in this room: `fake-model`" in shown


class TicketInput(BaseModel):
    """Look a ticket up."""

    number: int


async def test_a_thread_resumed_with_other_tools_is_refused_until_archived(
    start_coder: AgentStarter, room: Room
) -> None:
    async with start_coder():
        await room.ask("hello")
    async with start_coder(tools=[(TicketInput, lambda args: "open")]):
        await room.ask("hello again", status="failed")
        refused = [e["content"] for e in await room.events("error")]
        await command(room, "/thread archive")
        await room.ask("and now?")
    thread = threads_mapped(await room.events("task"))[0]
    assert refused == [
        f"Codex thread `{thread}` keeps the tools it was started with, and this room's tools "
        "have changed since (ticket). Send `/thread archive` to start a new thread."
    ]
    assert len(threads_mapped(await room.events("task"))) == 2


async def test_a_thread_resumed_in_another_folder_is_refused_until_archived(
    band_serve: Any, codex_bin: Path, codex_home: Path, model_url: str, tmp_path: Path, room: Room
) -> None:
    def starter(root: Path) -> AgentStarter:
        def build(**fields: Any) -> CodexAdapter:
            config = codex_config(codex_bin, model_url, codex_home, **fields)
            return CodexAdapter(config, workspace_for_room=workspaces(root))

        return agent_starter(band_serve, build)

    async with starter(tmp_path / "first")():
        await room.ask("hello")
    started = [t for t in await room.events("task") if t["content"] == "Codex thread mapped"]
    async with starter(tmp_path / "moved")():
        await room.ask("hello again", status="failed")
        refused = [e["content"] for e in await room.events("error")]
        await command(room, "/thread archive")
        await room.ask("and now?")
    thread = threads_mapped(await room.events("task"))[0]
    saved = started[0]["metadata"]["codex_thread_settings"]
    assert saved["cwd"] == str(tmp_path / "first" / room.id)
    assert len(refused) == 1 and refused[0].startswith(
        f"Codex thread `{thread}` was started with other settings (cwd "
    )
    assert f"became '{tmp_path / 'moved' / room.id}'" in refused[0]
    assert len(threads_mapped(await room.events("task"))) == 2
