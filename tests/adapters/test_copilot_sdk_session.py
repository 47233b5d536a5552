"""band.adapters._copilot_sdk_session: a Copilot room's records (a turn's tokens and
incidents) and ``CopilotRoom``'s prompt: kept by the session manager, aborted when stopped
mid-prompt, closed through the manager."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from band.adapters._copilot_sdk_session import CopilotRoom, TurnState, turn_incident
from band.core.types import TurnUsage
from band.integrations.copilot_sdk import CopilotSessionManager


class Session:
    def __init__(self) -> None:
        self.log: list[str] = []
        self.release = asyncio.Event()

    def on(self, handler: Any) -> None:
        self.handler = handler

    async def send_and_wait(self, text: str, **options: Any) -> None:
        self.log.append(f"send {text}")
        await self.release.wait()

    async def abort(self) -> None:
        self.log.append("abort")

    async def disconnect(self) -> None:
        self.log.append("disconnect")


def usage(i: int, o: int) -> Any:
    return SimpleNamespace(
        input_tokens=i, output_tokens=o, cache_read_tokens=None, cache_write_tokens=1
    )


def test_a_turn_adds_up_its_model_calls() -> None:
    turn = TurnState({"id": "alice"})
    turn.add_usage(usage(10, 2))
    turn.add_usage(usage(5, 1))
    assert turn.usage == TurnUsage(15, 3, 0, 2)


def test_incidents_explain_a_silent_turn_in_one_line() -> None:
    failed = SimpleNamespace(
        error_type=None,
        failure_kind=SimpleNamespace(value="rate_limited"),
        status_code=429,
        error_message="slow down",
    )
    assert turn_incident("model.call_failure", failed) == (
        "a model call failed: rate_limited (status 429) slow down"
    )
    tool = SimpleNamespace(success=False, tool_call_id="c1", error=None)
    assert turn_incident("tool.execution_complete", tool) == "tool call c1 failed: no details"
    assert turn_incident("tool.execution_complete", SimpleNamespace(success=True)) is None
    assert turn_incident("abort", SimpleNamespace(reason="user")) == "aborted: user"
    assert turn_incident("assistant.message", object()) is None


async def test_a_stopped_prompt_is_aborted_and_the_session_closed_by_the_manager() -> None:
    session = Session()
    manager = CopilotSessionManager(SimpleNamespace(_state="connected"), owns_client=False)
    room = CopilotRoom("room-1", session, manager, created=True)
    assert manager.get_session("room-1") is session
    sending = asyncio.create_task(room.send("hello", 30))
    await asyncio.sleep(0.05)
    assert room.live.prompting
    sending.cancel()
    await asyncio.gather(sending, return_exceptions=True)
    assert session.log == ["send hello", "abort"] and not room.live.prompting
    done = asyncio.create_task(room.send("again", 30))
    await asyncio.sleep(0.05)
    session.release.set()
    await done
    assert not room.live.prompting
    await room.abort()  # nothing running: nothing to abort
    await room.close()
    assert session.log[-1] == "disconnect" and manager.get_session("room-1") is None
