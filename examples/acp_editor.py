"""An editor in miniature: talks to Band peers through ``band-acp`` over ACP (stdio).

Zed, or any ACP editor, does the same with this in its agent settings::

    {"command": "band-acp", "args": ["--peer", "alice/coder"],
     "env": {"BAND_AGENT_ID": "...", "BAND_API_KEY": "...",
             "BAND_REST_URL": "http://127.0.0.1:8080",
             "BAND_WS_URL": "ws://127.0.0.1:8080/api/v1/socket/websocket"}}

    BAND_AGENT_ID=... BAND_API_KEY=... BAND_REST_URL=... BAND_WS_URL=... \
    python acp_editor.py alice/coder "what does this repository do?"
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from typing import Any

import acp
from acp.schema import AllowedOutcome, RequestPermissionResponse


class Editor:
    """Prints what the peers say; asks on the terminal when a peer wants approval."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        text = getattr(getattr(update, "content", None), "text", None)
        if text:
            print(text, flush=True)

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        print(f"\n{tool_call.title}")
        for number, option in enumerate(options, 1):
            print(f"  {number}. {option.name}")
        choice = await asyncio.to_thread(input, "choose: ")
        chosen = options[int(choice) - 1] if choice.strip().isdigit() else options[-1]
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )


async def main(peer: str, question: str) -> None:
    command = shutil.which("band-acp") or "band-acp"
    async with acp.spawn_agent_process(
        lambda _agent: Editor(), command, "--peer", peer, env=dict(os.environ)
    ) as (conn, _process):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await conn.new_session(cwd=os.getcwd())
        answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block(question)])
        print(f"[{answer.stop_reason}]")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], " ".join(sys.argv[2:])))
