"""An official-SDK agent whose every turn raises, to exercise `/failed` and the error event.

Runs ONLY inside the compat venv: `python failing_agent.py` (configuration in _common.py).
"""

from __future__ import annotations

from typing import Any

from _common import emit, run

from band.core import AgentToolsProtocol, PlatformMessage, SimpleAdapter

FAILURE_TEXT = "compat boom: the adapter raised on purpose"


class FailingAdapter(SimpleAdapter[Any]):
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
        emit("turn", message_id=msg.id, room_id=room_id, content=msg.content)
        raise RuntimeError(FAILURE_TEXT)


if __name__ == "__main__":
    run(FailingAdapter())
