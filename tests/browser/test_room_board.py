"""The room's board in the side panel, live: the goal an agent sets, its tasks with their
statuses and who works on them; task events styled apart in the timeline; at 400 px behind
Room details, long subjects wrapped."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from .browser_support import Platform, Shots, agent_room, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

LONG = "Reconcile-" + "x" * 180


async def test_the_board_follows_the_agents_tasks(page: Page, band: Platform, shots: Shots) -> None:
    key = await band.add_person("Mary Jackson", "mary")
    room = await agent_room(band.url, key, name="Planner Bot", title="Launch")
    await sign_in(page, band.url, key)
    await page.goto(band.url + room.url)
    await expect(page.locator("#live-status")).to_have_text("Live")
    board = page.get_by_role("region", name="Board")
    tasks = board.get_by_role("list", name="Tasks").locator("> li")
    timeline = page.get_by_role("list", name="Messages")
    await expect(board).to_be_hidden()  # no goal, no task: nothing to show

    base = f"/api/v1/agent/chats/{room.id}"
    agent = {"X-API-Key": room.agent_key}
    async with httpx.AsyncClient(base_url=band.url, timeout=10, headers=agent) as http:

        async def call(method: str, path: str, body: dict[str, Any]) -> None:
            answer = await http.request(method, base + path, json=body)
            assert answer.status_code in (200, 201), answer.text

        await call("PUT", "/board", {"goal_title": "Ship v1", "goal_summary": "Files and tasks"})
        await expect(board.get_by_text("Ship v1")).to_be_visible()
        await expect(board.get_by_text("Files and tasks")).to_be_visible()
        await call("POST", "/tasks", {"subject": "Write the report"})
        await call("POST", "/tasks", {"subject": "Review the report"})
        await expect(tasks).to_have_count(2)
        await expect(tasks.nth(0)).to_contain_text("#1")
        await expect(tasks.nth(0).locator(".status")).to_have_text("Pending")

        await call("POST", "/tasks/1", {"status": "in_progress", "active_form": "Writing it"})
        first = tasks.filter(has_text="Write the report")
        await expect(first.locator(".status")).to_have_text("In progress")
        working = first.get_by_role("list", name="Working on #1")
        await expect(working).to_have_text("Planner Bot · in progress · Writing it")
        event = timeline.locator("li.event-task", has_text="from pending to in_progress")
        await expect(event.locator(".kind")).to_have_text("task #1")
        await expect(event.locator(".status")).to_have_text("In progress")
        await shots.take(page, "board-in-progress")

        await call("POST", "/tasks/1", {"status": "completed"})
        await expect(first.locator(".status")).to_have_text("Done")
        await expect(board.get_by_text("1 of 2 tasks done")).to_be_visible()
        await call("POST", "/tasks/2", {"state": "cancelled"})
        await expect(tasks).to_have_count(1)  # the board lists active tasks
        await call("POST", "/tasks", {"subject": LONG})
        await expect(tasks).to_have_count(2)
    # Every board change is one task event, styled apart from messages.
    await expect(timeline.locator("li.event-task")).to_have_count(7)
    await expect(timeline.locator("li.msg.text")).to_have_count(0)
    await expect(timeline.locator("li.event-task .kind").first).to_have_text("goal")
    await shots.take(page, "board-done")

    await page.set_viewport_size({"width": 400, "height": 800})
    await expect(board).to_be_hidden()  # behind Room details
    details = page.get_by_role("button", name="Room details")
    await details.click()
    await expect(details).to_have_attribute("aria-expanded", "true")
    await expect(board.get_by_text(LONG)).to_be_visible()
    assert await page.evaluate("document.documentElement.scrollWidth") <= 400
    await shots.take(page, "board-400px")
