"""A turn's timeline: the delivery status of a mention opens the agent's turn, which follows
the turn live (processing, a tool call running then done with its arguments, result and
duration, usage, the reply) and ends with its total time; a failed turn shows its error."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from playwright.async_api import Page, expect

from .browser_support import Platform, Shots, agent_room, sign_in

DURATION = re.compile(r"Tool forecast · \d+(\.\d)? m?s")  # the call's duration, ms or s
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]


async def test_the_turn_opens_from_the_delivery_status_and_follows_the_agent(
    page: Page, band: Platform, shots: Shots
) -> None:
    key = await band.add_person("Tess Turner", "tess")
    made = await agent_room(band.url, key, name="Weather Bot")
    await sign_in(page, band.url, key)
    await page.goto(band.url + made.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    composer = page.get_by_label("Message", exact=True)
    await composer.fill("@Weather Bot will it rain in Oslo?")
    await composer.press("Enter")
    status = page.get_by_role("button", name="Weather Bot delivered")
    await expect(status).to_be_visible()

    base = f"/api/v1/agent/chats/{made.id}"
    agent = {"X-API-Key": made.agent_key}
    async with httpx.AsyncClient(base_url=band.url, timeout=10, headers=agent) as http:

        async def event(kind: str, content: str, metadata: dict[str, object] | None = None) -> None:
            body = {"event": {"message_type": kind, "content": content, "metadata": metadata}}
            sent = await http.post(f"{base}/events", json=body)
            assert sent.status_code == 201, sent.text

        message_id = (await http.get(f"{base}/messages/next")).json()["data"]["id"]
        await http.post(f"{base}/messages/{message_id}/processing")
        await page.get_by_role("button", name="Weather Bot processing").click()
        dialog = page.get_by_role("dialog", name="Weather Bot's turn")
        await expect(dialog).to_be_visible()
        await expect(dialog.get_by_role("status")).to_contain_text("processing")
        steps = dialog.get_by_role("list", name="Steps of the turn")
        await expect(steps.get_by_role("listitem")).to_have_count(2)  # delivered, processing

        call = {"name": "forecast", "args": {"city": "Oslo"}, "tool_call_id": "c1"}
        await event("tool_call", json.dumps(call))
        await expect(steps).to_contain_text("Tool forecast (running)")
        await shots.take(page, "turn-running")
        await event("tool_result", json.dumps({"tool_call_id": "c1", "output": "rain, 12 mm"}))
        await event("thought", "Rain is likely; answer briefly.")
        usage = {"band_usage": {"input_tokens": 120, "output_tokens": 18}}
        await event("task", "Token usage: input=120 output=18", usage)
        people = (await http.get(f"{base}/participants")).json()["data"]
        me = next(p["id"] for p in people if p["type"] == "User")
        reply = {"content": "Yes, about 12 mm of rain.", "mentions": [{"id": me}]}
        assert (await http.post(f"{base}/messages", json={"message": reply})).status_code == 201
        await http.post(f"{base}/messages/{message_id}/processed")

        await expect(dialog.get_by_role("status")).to_contain_text("processed in")
        tool = steps.get_by_role("listitem").filter(has_text="Tool forecast")
        await expect(tool).to_contain_text('"city": "Oslo"')
        await expect(tool).to_contain_text("rain, 12 mm")
        await expect(tool.locator(".turn-label")).to_have_text(DURATION)
        labels = await steps.locator(".turn-label").all_inner_texts()
        assert [text.split(" ·")[0] for text in labels] == [
            "Delivered", "Processing", "Tool forecast", "Thought", "Usage", "Reply", "Finished",
        ]  # fmt: skip
        await expect(steps).to_contain_text("Tokens: 120 input, 18 output")
        await expect(steps).to_contain_text("@Tess Turner Yes, about 12 mm of rain.")
        await shots.take(page, "turn-finished")
        await page.keyboard.press("Escape")
        await expect(dialog).to_be_hidden()
        await expect(page.get_by_role("button", name="Weather Bot processed")).to_be_focused()
