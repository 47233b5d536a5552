"""A turn's timeline: the delivery status of a mention opens the agent's turn, which follows
the turn live (processing, a tool call running then done with its arguments, result and
duration, usage, the reply) and ends with its total time; a failed turn shows its error."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest
from playwright.async_api import Page, expect

from band.platform.rest import BandRestClient
from band.platform.turn_keys import turn_scope

from .browser_support import Platform, Shots, agent_room, post_as, sign_in

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


async def test_two_overlapping_turns_in_one_room_keep_their_own_steps(
    page: Page, band: Platform, shots: Shots
) -> None:
    """One agent works on two mentions at once through the SDK's client (each turn in its own
    ``turn_scope``, their posts interleaved): each turn's timeline shows its own tool call and
    reply only, because every post carries its turn's id."""
    key = await band.add_person("Olaf Overlap", "olaf_overlap")
    made = await agent_room(band.url, key, name="Weather Bot")
    oslo = await post_as(band.url, key, made.id, "Rain in Oslo?", mentions=[{"id": made.agent_id}])
    bergen = await post_as(
        band.url, key, made.id, "Rain in Bergen?", mentions=[{"id": made.agent_id}]
    )
    rest = BandRestClient(band.url, made.agent_key)
    try:
        people = await rest.get_participants(made.id)
        me = next(p["id"] for p in people if p["type"] == "User")
        for message in (oslo, bergen):
            assert (await rest.mark_processing(made.id, message["id"])).ok
        turn_of = {"Oslo": oslo["id"], "Bergen": bergen["id"]}
        gates = {city: asyncio.Event() for city in turn_of}

        async def work(city: str, other: str, mm: int) -> None:
            """One turn; it hands over to the other turn between its steps."""
            with turn_scope(made.agent_id, turn_of[city]):
                call = {"name": "forecast", "args": {"city": city}, "tool_call_id": "c1"}
                await rest.post_event(made.id, json.dumps(call), "tool_call")
                gates[other].set()
                await gates[city].wait()
                result = {"tool_call_id": "c1", "output": f"{city}: {mm} mm"}
                await rest.post_event(made.id, json.dumps(result), "tool_result")
                await rest.post_message(made.id, f"{city} gets {mm} mm.", [{"id": me}])
            await rest.mark_processed(made.id, turn_of[city])

        gates["Oslo"].set()
        await asyncio.gather(work("Oslo", "Bergen", 12), work("Bergen", "Oslo", 3))
    finally:
        await rest.aclose()

    await sign_in(page, band.url, key)
    await page.goto(band.url + made.url)
    # The room folds each call with its own result, though both turns said "c1".
    tools = page.locator("#timeline li.msg.tool")
    await expect(tools).to_have_count(2)
    for city, mm in (("Oslo", 12), ("Bergen", 3)):
        row = tools.filter(has_text=f'"city": "{city}"')
        await expect(row.locator(".tool-output")).to_contain_text(f"{city}: {mm} mm")
    for city, mm, other in (("Oslo", 12, "Bergen"), ("Bergen", 3, "Oslo")):
        asked = page.locator("#timeline li.msg").filter(has_text=f"Rain in {city}?")
        await asked.get_by_role("button", name="Weather Bot processed").click()
        dialog = page.get_by_role("dialog", name="Weather Bot's turn")
        steps = dialog.get_by_role("list", name="Steps of the turn")
        await expect(dialog.get_by_role("status")).to_contain_text("processed in")
        labels = await steps.locator(".turn-label").all_inner_texts()
        assert [text.split(" ·")[0] for text in labels] == [
            "Delivered", "Processing", "Tool forecast", "Reply", "Finished",
        ], city  # fmt: skip
        await expect(steps).to_contain_text(f'"city": "{city}"')
        await expect(steps).to_contain_text(f"{city} gets {mm} mm.")
        await expect(steps).not_to_contain_text(other)
        await shots.take(page, f"turn-{city.lower()}-alone")
        await page.keyboard.press("Escape")
        await expect(dialog).to_be_hidden()
