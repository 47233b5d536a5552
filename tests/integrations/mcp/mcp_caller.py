"""An out-of-process MCP client: calls one Band tool on a Band MCP server and prints the result.

    python mcp_caller.py <url> <sse|http> <tool> '<json arguments>'

Prints ``{"tools": [...names...], "is_error": bool, "text": "..."}`` on one line.
"""

from __future__ import annotations

import asyncio
import json
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


if __name__ == "__main__":
    url, transport, tool, raw = sys.argv[1:5]
    print(json.dumps(asyncio.run(call(url, transport, tool, json.loads(raw)))))
