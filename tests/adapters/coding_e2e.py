"""What the coding-agent end-to-end tests (Codex, ACP) share: the proof-command model
script, the fake model endpoint, and starting the agent under test against ``band serve``.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from runtime_support import make_agent, until

from band.core import SimpleAdapter
from band.testing import FakeModel, ModelRequest, Reply, ToolCall, default_policy, serve_fake_models

from .band_serve import BandServe, Room

__all__ = [
    "JOURNEY_OUT",
    "PROOF",
    "AgentStarter",
    "CrashCase",
    "agent_starter",
    "anthropic_url",
    "approve_command",
    "crash_between_turns",
    "crash_mid_turn",
    "journey",
    "kill_agent",
    "model_url",
    "proof_policy",
    "resumes_the_same_session",
    "status_help_texts",
    "timed_journey",
    "workspaces",
]

A = TypeVar("A", bound=SimpleAdapter[Any])
PROOF = "echo band-proof > proof.txt && cat proof.txt"
AgentStarter = Callable[..., AbstractAsyncContextManager[Any]]


def proof_policy(
    command: ToolCall, last_call: Callable[[ModelRequest], str | None]
) -> Callable[[ModelRequest], Reply]:
    """A model that runs ``command`` when asked to "run the proof command", then reports
    (through ``band_send_message``) whether it printed ``band-proof``; otherwise it answers
    like :func:`default_policy`. ``last_call`` reads the latest tool call's name."""

    def policy(request: ModelRequest) -> Reply:
        last = request.answering_tool()
        if last is not None:
            if last_call(request) != command.name:
                return Reply(text="")
            first = (last.text.strip().splitlines() or [""])[0][:120]
            content = (
                "I ran the proof command; it printed band-proof."
                if "band-proof" in last.text
                else f"I did not run the proof command: {first}"
            )
            send = request.offered("band_send_message") or "band_send_message"
            call = ToolCall(send, {"content": content, "mentions": ["alice"]})
            return Reply(tool_calls=(call,))
        if any("run the proof command" in text for text in _latest_user_texts(request)):
            return Reply(tool_calls=(command,))
        outcome = default_policy(request)
        assert isinstance(outcome, Reply)
        return outcome

    return policy


def _latest_user_texts(request: ModelRequest) -> list[str]:
    """The user texts after the model's last turn (Claude Code sends reminders after the
    prompt as user text of their own)."""
    texts: list[str] = []
    for entry in reversed([e for e in request.entries if e.role != "system"]):
        if entry.role != "user":
            break
        texts.append(entry.text)
    return texts


@pytest.fixture
def model_url(fake: FakeModel) -> Iterator[str]:
    """The OpenAI-style base URL (ending in ``/v1``) of the module's ``fake`` model."""
    with serve_fake_models(fake) as server:
        yield server.openai_base_url


@pytest.fixture
def anthropic_url(fake: FakeModel) -> Iterator[str]:
    """The Anthropic base URL of the module's ``fake`` model."""
    with serve_fake_models(fake) as server:
        yield server.anthropic_base_url


def agent_starter(serve: BandServe, build: Callable[..., A]) -> AgentStarter:
    """``async with start(**options) as adapter``: ``build(**options)`` runs as the seeded
    agent against ``serve`` until the block ends."""

    @asynccontextmanager
    async def start(**options: Any) -> AsyncIterator[A]:
        adapter = build(**options)
        world = serve.world
        agent = make_agent(serve, world.agent_id, world.agent_key, adapter)
        await agent.start()
        try:
            yield adapter
        finally:
            await agent.stop(10)

    return start


def workspaces(root: Path) -> Callable[[str], Path]:
    """``workspace_for_room`` putting each room's folder under ``root``."""
    return lambda room: root / room


async def kill_agent(adapter: Any, room_id: str, name: str | None = None) -> int:
    """``kill -9`` the room's agent process: the descendant called ``name`` when given (the
    native ``codex`` under its npm wrapper), else the process the adapter started; waits
    until the adapter sees it gone. Returns the killed pid."""
    proc = adapter.processes.current(room_id)
    assert proc is not None and proc.alive and proc.pid is not None
    target = proc.pid
    if name is not None:
        import psutil  # a dev dependency (the framework venvs import this module too)

        found = [c for c in psutil.Process(target).children(recursive=True) if c.name() == name]
        assert found, f"no {name} process under {target}"
        target = found[0].pid
    os.kill(target, signal.SIGKILL)
    await until(lambda: not proc.alive, limit=30)
    return target


@dataclass(frozen=True)
class CrashCase:
    """How one coding adapter shows up after its process is killed."""

    label: str  # the adapter's LABEL, as its notices name it
    session_key: str  # the resume-state metadata key
    native: str | None = None  # the process to kill under the one started, if any


async def crash_mid_turn(start: AgentStarter, room: Room, fake: FakeModel, case: CrashCase) -> None:
    """Killed while the model is thinking: the message fails with one report, and the next
    one is answered once by a new process on the same session."""
    async with start() as adapter:
        await room.ask("hello")
        fake.queue(Reply(text="too late", delay=5))
        asked = len(fake.requests)
        slow = await room.say("take your time")
        await until(lambda: len(fake.requests) > asked, limit=60)
        await kill_agent(adapter, room.id, case.native)
        await room.wait_status(slow, "failed")
        await room.ask("are you back?")
        texts, errors = await room.texts(), await room.events("error")
    assert [e["content"] for e in errors] == [
        f"The {case.label} process of this room stopped ({errors[0]['content'].split('(')[1]}"
    ]
    assert "a new one starts with the next message" in errors[0]["content"]
    assert not any("had exited" in t for t in texts)  # reported once, by the failed turn
    assert sum("You said: are you back?" in t for t in texts) == 1
    assert not any("take your time" in t or "too late" in t for t in texts)
    await _same_session(room, case)


async def crash_between_turns(
    start: AgentStarter, room: Room, fake: FakeModel, case: CrashCase
) -> None:
    """Killed while idle: the next message says so once and is answered once."""
    async with start() as adapter:
        await room.ask("hello")
        await kill_agent(adapter, room.id, case.native)
        await room.ask("still there?")
        await room.ask("and again?")
        texts, errors = await room.texts(), await room.events("error")
    assert errors == []
    exited = [t for t in texts if "had exited" in t]
    assert len(exited) == 1 and f"The {case.label} process of this room had exited" in exited[0]
    assert exited[0].endswith("starting a new one.")
    assert sum("You said: still there?" in t for t in texts) == 1
    assert sum("You said: and again?" in t for t in texts) == 1
    await _same_session(room, case)


async def _same_session(room: Room, case: CrashCase) -> None:
    tasks = await room.events("task")
    sessions = {t["metadata"][case.session_key] for t in tasks if case.session_key in t["metadata"]}
    assert len(sessions) == 1, sessions


async def resumes_the_same_session(
    start: AgentStarter, room: Room, fake: FakeModel, key: str
) -> set[str]:
    """A restarted agent answers on the room's saved session (``key`` in its task events)
    and the model sees the earlier conversation; the session ids seen."""
    async with start():
        await room.ask("remember the number 7")
    fake.reset()
    async with start():
        await room.ask("what was it?")
        tasks = await room.events("task")
    sessions = {t["metadata"][key] for t in tasks if key in t["metadata"]}
    assert len(sessions) == 1, sessions
    users = fake.requests[-1].texts("user")
    assert any("remember the number 7" in u for u in users[:-1])
    return sessions


async def bad_credentials_errors(
    start: AgentStarter, room: Room, fake: FakeModel, refusal: Any
) -> str:
    """The model endpoint refuses every call with ``refusal``: the message fails with one
    error event, whose text is returned."""
    fake.policy = lambda request: refusal
    async with start():
        await room.ask("hello", status="failed")
        errors = [e["content"] for e in await room.events("error")]
    assert len(errors) == 1, errors
    return str(errors[0])


async def status_help_texts(start: AgentStarter, room: Room) -> tuple[str, str, str]:
    """``/status`` before any message, ``/status`` after one, ``/help``: their notices."""
    async with start():
        await room.ask("/status")
        await room.ask("hello")
        await room.ask("/status")
        await room.ask("/help")
        texts = await room.texts()
    assert "`/approve <id>`" in texts[3] and "`/status`" in texts[3], texts[3]
    return texts[0], texts[2], texts[3]


JOURNEY_OUT = "BAND_JOURNEY_OUT"
journey = pytest.mark.skipif(
    not os.environ.get(JOURNEY_OUT), reason=f"timings for bench/coding_journeys.py ({JOURNEY_OUT})"
)


def approve_command(kind: str) -> Callable[[Room], Awaitable[str]]:
    """Waits for the approval notice of ``kind``; the answer granting it."""

    async def grant(room: Room) -> str:
        return f"/approve {await room.approval_token(kind)}"

    return grant


async def timed_journey(
    adapter: str,
    start: AgentStarter,
    room: Room,
    grant: Callable[[Room], Awaitable[str]],
    *,
    ask: str = "please run the proof command",
    done: Callable[[str], bool] = lambda text: "I ran the proof command" in text,
) -> dict[str, float]:
    """One person's journey with a coding agent, timed (seconds) and appended as a JSON line
    to the file ``$BAND_JOURNEY_OUT`` names: ``start`` (the agent online), ``first_reply``
    (a mention answered; the room's agent process starts), ``approval_asked`` (``ask`` to the
    approval request), ``approval_round_trip`` (the grant to the reply ``done`` accepts) and
    ``resume`` (a restarted agent answering on the room's saved session)."""
    clock, times = time.perf_counter, {}
    began = clock()
    async with start():
        times["start"] = clock() - began
        began = clock()
        await room.say("hello there")
        await room.wait_text(lambda text: "You said: hello there" in text)
        times["first_reply"] = clock() - began
        began = clock()
        await room.say(ask)
        answer = await grant(room)
        times["approval_asked"] = clock() - began
        began = clock()
        await room.say(answer)
        await room.wait_text(done)
        times["approval_round_trip"] = clock() - began
    began = clock()
    async with start():
        await room.say("are you back?")
        await room.wait_text(lambda text: "You said: are you back?" in text)
        times["resume"] = clock() - began
    with open(os.environ[JOURNEY_OUT], "a", encoding="utf-8") as out:
        out.write(json.dumps({"adapter": adapter, **times}) + "\n")
    return times
