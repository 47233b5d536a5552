"""An out-of-process MCP client: calls Band tools on a Band MCP server.

    python mcp_caller.py <url> <sse|http> <tool> '<json arguments>'

prints ``{"tools": [...], "schemas": {...}, "is_error": bool, "text": "..."}`` on one line.

    python mcp_caller.py --agent <results file>

is an agent for ``examples/mcp_tool_server.py``: from ``BAND_MCP_URL``, ``BAND_CHAT_ID`` and
``BAND_MESSAGE`` it answers in its room, after trying a room it is not in; both results are
appended to the file, a line each.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from contextlib import AsyncExitStack
from typing import Any

from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client


async def call(url: str, transport: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async with AsyncExitStack() as stack:
        if transport == "sse":
            read, write = await stack.enter_async_context(sse_client(url))
        else:
            read, write, _ = await stack.enter_async_context(streamable_http_client(url))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        listed = await session.list_tools()
        result = await session.call_tool(tool, arguments)
        text = "".join(getattr(block, "text", "") for block in result.content)
        return {
            "tools": [t.name for t in listed.tools],
            "schemas": {t.name: t.inputSchema for t in listed.tools},
            "is_error": bool(result.isError),
            "text": text,
        }


async def agent(results: str) -> None:
    url, room = os.environ["BAND_MCP_URL"], os.environ["BAND_CHAT_ID"]
    said = os.environ["BAND_MESSAGE"].rsplit(" ", 1)[-1]
    with open(results, "a") as out:
        for chat_id in ("not-my-room", room):
            args = {"chat_id": chat_id, "content": f"Done: {said}", "mentions": ["alice"]}
            out.write(json.dumps(await call(url, "http", "band_send_message", args)) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "--agent":
        asyncio.run(agent(sys.argv[2]))
    else:
        url, transport, tool, raw = sys.argv[1:5]
        print(json.dumps(asyncio.run(call(url, transport, tool, json.loads(raw)))))
