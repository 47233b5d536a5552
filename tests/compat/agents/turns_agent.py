"""An official-SDK agent whose turn does what the message asks, to exercise turn judging.

Runs ONLY inside the compat venv: `python turns_agent.py` (configuration in _common.py).
The first `[mode:<name>]` token in the message content picks the turn's behaviour:

  read_only      calls `tools.get_participants()` and returns (observe only: missing reply)
  nothing        returns at once (nothing recorded: missing reply)
  raise          raises RuntimeError (generic internal-error event)
  send_failure   `tools.send_failure(AgentFailure(...))`, then raises (that text replaces
                 the generic one)
  no_reply       `tools.execute_tool_call("band_no_reply", {...})` and returns (declines)
  echo (default) sleeps `[sleep:<seconds>]` from the content, else COMPAT_TURN_SECONDS, or
                 with `[until:<path>]` waits until that file exists (at most 180 s: a test
                 opens the gate when its premise holds, however slow the machine is),
                 then replies `echo: <content>` to the sender

Observations: `turn` when a turn begins, `tool_result` with what a tool call returned,
`replied` after a reply was posted.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from _common import emit, run

from band.core import AgentToolsProtocol, PlatformMessage, SimpleAdapter
from band_sdk_core import AgentFailure

RAISE_TEXT = "compat turns: the adapter raised on purpose"
FAILURE_PROVIDER = "compat-provider"
FAILURE_MESSAGE = "compat turns: the provider reported a failure"
NO_REPLY_REASON = "compat turns: nothing to say"

_MODE = re.compile(r"\[mode:([a-z_]+)\]")
_SLEEP = re.compile(r"\[sleep:([0-9.]+)\]")
_UNTIL = re.compile(r"\[until:([^\]]+)\]")
GATE_SECONDS = 180.0


async def _gate(path: Path) -> None:
    deadline = time.monotonic() + GATE_SECONDS
    # Another process opens the gate: a file is the signal, so it is polled.
    while not path.exists() and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.05)


def _plain(value: Any) -> Any:
    """`value` as JSON-able data (pydantic models dumped, other objects as str)."""

    def fallback(obj: Any) -> Any:
        dump = getattr(obj, "model_dump", None)
        return dump(mode="json") if callable(dump) else str(obj)

    return json.loads(json.dumps(value, default=fallback))


class TurnsAdapter(SimpleAdapter[Any]):
    def __init__(self, turn_seconds: float) -> None:
        super().__init__()
        self.turn_seconds = turn_seconds

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Any,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        found = _MODE.search(msg.content or "")
        mode = found.group(1) if found else "echo"
        emit("turn", message_id=msg.id, room_id=room_id, content=msg.content, mode=mode)
        if mode == "read_only":
            found_people = _plain(await tools.get_participants())
            emit("tool_result", message_id=msg.id, tool="get_participants", value=found_people)
            return
        if mode == "nothing":
            return
        if mode == "raise":
            raise RuntimeError(RAISE_TEXT)
        if mode == "send_failure":
            sent = await tools.send_failure(AgentFailure(FAILURE_PROVIDER, FAILURE_MESSAGE))
            emit("tool_result", message_id=msg.id, tool="send_failure", value=repr(sent))
            raise RuntimeError(RAISE_TEXT)
        if mode == "no_reply":
            result = await tools.execute_tool_call("band_no_reply", {"reason": NO_REPLY_REASON})
            emit("tool_result", message_id=msg.id, tool="band_no_reply", value=_plain(result))
            return
        gate = _UNTIL.search(msg.content or "")
        asked = _SLEEP.search(msg.content or "")
        if gate:
            await _gate(Path(gate.group(1)))
        else:
            await asyncio.sleep(float(asked.group(1)) if asked else self.turn_seconds)
        sent = await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])
        emit("replied", message_id=msg.id, room_id=room_id, reply_id=getattr(sent, "id", None))


if __name__ == "__main__":
    run(TurnsAdapter(float(os.environ.get("COMPAT_TURN_SECONDS", "0"))))
