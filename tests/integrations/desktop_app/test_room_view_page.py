"""The room view document in a real Chromium, hosted the way an MCP Apps host hosts it: in an
iframe, talking JSON-RPC over postMessage. Pins: the transcript a tool result carries is
rendered (room text as text, never markup), the view then calls the monitor tool itself as
caller "app" with its cursor and instance, renders what the monitor returns, and folds away
once told a newer view took the room over."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from band.integrations.desktop_app.view import room_view_html

CHROMIUM = Path("/usr/bin/chromium")
if importlib.util.find_spec("playwright") is None or not CHROMIUM.exists():
    pytest.skip("needs playwright and Debian's chromium", allow_module_level=True)

from playwright.async_api import async_playwright  # noqa: E402

HOST = """<!doctype html><html><body><iframe id="view" style="width:600px;height:500px"></iframe>
<script>
window.calls = [];
window.open_calls = [];  // monitor calls not answered yet: window.answer() answers the oldest
const frame = document.getElementById("view");
window.addEventListener("message", (event) => {
  const msg = event.data || {};
  if (msg.method === "ui/initialize") {
    event.source.postMessage({jsonrpc: "2.0", id: msg.id, result: {hostInfo: {name: "test"}}}, "*");
  } else if (msg.method === "tools/call") {
    window.calls.push(msg.params);
    window.open_calls.push({id: msg.id, source: event.source});
  }
});
window.answer = (result) => {
  const call = window.open_calls.shift();
  call.source.postMessage({jsonrpc: "2.0", id: call.id, result: result}, "*");
};
window.sendResult = (structured) => frame.contentWindow.postMessage({jsonrpc: "2.0",
  method: "ui/notifications/tool-result", params: {structuredContent: structured}}, "*");
</script></body></html>"""


def transcript(messages: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "chat_id": "room-1",
        "viewer": {"id": "agent-1"},
        "messages": messages,
        "pending_requests": [m for m in messages if m.get("addressed_to_viewer")],
        "next_since": "2026-01-01T00:00:02Z",
        "attention": "user_first",
        "transport": {"role": "leader", "websocket_connected": True, "events_received": 3},
        **more,
    }


async def test_the_view_renders_then_keeps_itself_current() -> None:
    hostile = "<img src=x onerror=\"document.title='pwned'\">"
    opening = transcript(
        [
            {"id": "m1", "content": hostile, "sender_name": "Mallory", "sender_id": "u2"},
            {
                "id": "m2",
                "content": "Scout, the checklist?",
                "sender_name": "Alice",
                "sender_id": "u1",
                "addressed_to_viewer": True,
                "inserted_at": "2026-01-01T00:00:02Z",
            },
        ]
    )
    later = transcript(
        [
            {
                "id": "m3",
                "content": "Done: see the doc",
                "sender_name": "Scout",
                "sender_id": "agent-1",
                "inserted_at": "2026-01-01T00:00:05Z",
            }
        ],
        next_since="2026-01-01T00:00:05Z",
    )
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.set_content(HOST)
            await page.evaluate(
                "html => { document.getElementById('view').srcdoc = html; }", room_view_html()
            )
            frame_handle = await page.wait_for_selector("#view")
            view = await frame_handle.content_frame()
            assert view is not None
            await view.wait_for_function("typeof watch === 'function'")  # its script ran
            await page.evaluate(f"window.sendResult({json.dumps(opening)})")
            await view.wait_for_selector("#messages li:nth-child(2)")
            assert await view.text_content("#pending") == "1 message(s) waiting for the agent"
            assert await view.locator("#messages li.addressed").count() == 1
            assert await view.text_content("#room-status") == "live"
            await page.wait_for_function("window.open_calls.length === 1")
            # The monitor answers with the agent's reply: rendered, and nothing waits any more.
            await page.evaluate(f"window.answer({{structuredContent: {json.dumps(later)}}})")
            await view.wait_for_selector("#messages li:nth-child(3)")
            items = await view.locator("#messages li .content").all_text_contents()
            assert items == [hostile, "Scout, the checklist?", "Done: see the doc"]
            assert await view.locator("#messages img").count() == 0
            assert await page.title() != "pwned"
            assert await view.locator("#messages li.mine").count() == 1
            assert await view.is_hidden("#pending")
            await page.wait_for_function("window.open_calls.length === 1")
            calls = await page.evaluate("window.calls")
            first, second = calls[0], calls[1]
            assert first["name"] == "band_wait_for_room_event"
            assert first["arguments"]["caller"] == "app"
            assert first["arguments"]["since"] == "2026-01-01T00:00:02Z"
            assert second["arguments"]["since"] == "2026-01-01T00:00:05Z"
            assert first["arguments"]["instance"] == second["arguments"]["instance"]

            await page.evaluate(f"window.sendResult({json.dumps({**later, 'superseded': True})})")
            await view.wait_for_selector("body.superseded")
            assert not await view.is_visible("#messages")
        finally:
            await browser.close()
