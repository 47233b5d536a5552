"""An official-SDK agent that reports a tool call and its result, then replies to the sender.

Runs ONLY inside the compat venv: `python echo_agent.py` (configuration in _common.py), or
with the project's interpreter, where the same source runs on our SDK (tests/faults).
`COMPAT_TURN_SECONDS` (default 0) makes each turn wait that long before it posts anything.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from _common import emit, run

from band.core import AgentToolsProtocol, PlatformMessage, SimpleAdapter


class EchoAdapter(SimpleAdapter[Any]):
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
        emit(
            "turn",
            message_id=msg.id,
            room_id=room_id,
            content=msg.content,
            sender_id=msg.sender_id,
            sender_type=msg.sender_type,
            bootstrap=is_session_bootstrap,
            history=len(history) if hasattr(history, "__len__") else None,
            participants=participants_msg,
        )
        await asyncio.sleep(float(os.environ.get("COMPAT_TURN_SECONDS", "0")))
        call_id = f"call_{msg.id.replace('-', '')[:12]}"
        call = {"name": "echo", "args": {"text": msg.content}, "tool_call_id": call_id}
        await tools.send_event(content=json.dumps(call), message_type="tool_call", metadata=call)
        output = f"echoed {len(msg.content)} chars"
        result = {"name": "echo", "output": output, "tool_call_id": call_id}
        await tools.send_event(
            content=json.dumps(result), message_type="tool_result", metadata=result
        )
        sent = await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])
        emit("replied", message_id=msg.id, room_id=room_id, reply_id=getattr(sent, "id", None))


if __name__ == "__main__":
    run(EchoAdapter())
