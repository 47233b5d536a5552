"""Seed 004's steps, literally, in a real browser, by role and label.

Sign in → Agents → Connect remote agent → the dialog (a 9-character description is refused)
→ copy ID and API Key from Agent Created Successfully! → run the seed 000 adapter (the page's
code byte for byte, on the fake OpenAI endpoint) with those values → Rooms → + → Create room
with the agent → mention it as the page does → the reply that mentions me and its tool events
appear live → Regenerate API key → the old key is refused and the new one works.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from e2e_support import AgentChild, seed_agent_env, until
from playwright.async_api import Page, expect

from band.testing import FakeModel, fake_openai_server

from .browser_support import Platform, Shots, sign_in

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(180)]

SEED_DIR = Path(__file__).resolve().parents[1] / "e2e" / "seed"
NAME = "Parlant Agent"
DESCRIPTION = "A support assistant that answers product questions."
QUESTION = "@Parlant Agent how do I reset my password?"


@pytest.fixture
def fake_model() -> Iterator[tuple[FakeModel, str]]:
    fake = FakeModel()
    with fake_openai_server(fake) as base_url:
        yield fake, base_url


async def test_seed_004_in_the_web_app(
    page: Page, band: Platform, shots: Shots, tmp_path: Path, fake_model: tuple[FakeModel, str]
) -> None:
    fake, base_url = fake_model
    key = await band.add_person("Ada Lovelace", "ada")
    await page.goto(band.url + "/")
    await shots.take(page, "sign-in")
    await sign_in(page, band.url, key)

    # "open Agents in the sidebar and click Connect remote agent"
    await page.get_by_role("navigation").get_by_role("link", name="Agents").click()
    await expect(page.get_by_role("heading", name="Agents", exact=True)).to_be_visible()
    await shots.take(page, "agents-empty")
    await page.get_by_role("button", name="Connect remote agent").click()
    dialog = page.get_by_role("dialog", name="Connect Remote Agent")
    await expect(dialog).to_be_visible()
    await dialog.get_by_label("Agent name").fill(NAME)
    await expect(dialog.get_by_label("Handle")).to_have_value("parlant-agent")  # fills in
    await dialog.get_by_label("Description").fill("Too short")  # 9 characters
    await dialog.get_by_role("button", name="Connect Agent").click()
    await expect(dialog.get_by_text("must be at least 10 characters")).to_be_visible()
    await expect(dialog.get_by_label("Description")).to_have_attribute("aria-invalid", "true")
    await shots.take(page, "description-refused")
    await dialog.get_by_label("Description").fill(DESCRIPTION)
    await dialog.get_by_label("Tag your agent").fill("support")
    await dialog.get_by_role("button", name="Connect Agent").click()

    # "In the Agent Created Successfully! dialog, copy the ID and the API Key"
    created = page.get_by_role("dialog", name="Agent Created Successfully!")
    await expect(created).to_be_visible()
    agent_id = await created.get_by_label("ID", exact=True).input_value()
    api_key = await created.get_by_label("API Key", exact=True).input_value()
    config_text = await created.get_by_role("textbox", name="agent_config.yaml").input_value()
    assert re.fullmatch(r"[0-9a-f-]{36}", agent_id) and api_key.startswith("band_a_")
    assert yaml.safe_load(config_text) == {"my_agent": {"agent_id": agent_id, "api_key": api_key}}
    await shots.take(page, "agent-created")
    await created.get_by_role("button", name="Done").click()
    await expect(page.get_by_role("heading", name=NAME)).to_be_visible()
    assert api_key not in await page.content()  # shown once; a reload never shows it again
    await page.reload()
    assert api_key not in await page.content()

    # "create agent_config.yaml and paste both values under the key my_agent", then run
    # the seed 000 adapter and its run script, byte for byte.
    workdir = tmp_path / "band-agent"
    workdir.mkdir()
    for name in ("chat_adapter.py", "run_agent.py"):
        shutil.copyfile(SEED_DIR / name, workdir / name)
    (workdir / "agent_config.yaml").write_text(config_text, encoding="utf-8")
    env = seed_agent_env(band.url, band.server.ws_url, base_url, tmp_path)
    agent = AgentChild.start(
        workdir / "run_agent.py", cwd=workdir, env=env, log_path=tmp_path / "agent.log"
    )
    try:
        await agent.wait_log(f"Agent started: {NAME} (band-sdk 6.0.1)")
        await page.reload()
        await expect(page.get_by_text("Online", exact=True)).to_be_visible()
        await shots.take(page, "agent-online")

        # "open Rooms in the sidebar and click + (New room). In the Create room dialog,
        # select Parlant Agent under Agents, then click Create room"
        await page.get_by_role("navigation").get_by_role("link", name="Rooms").click()
        await page.get_by_role("button", name="New room").click()
        create = page.get_by_role("dialog", name="Create room")
        await create.get_by_role("group", name="Agents").get_by_label(NAME).check()
        await shots.take(page, "create-room")
        await create.get_by_role("button", name="Create room").click()
        await page.wait_for_url(re.compile(r"/rooms/[0-9a-f-]{36}$"))
        await expect(page.locator("#live-status")).to_have_text("Live")
        room_id = page.url.rsplit("/", 1)[1]
        await expect(page.get_by_role("heading", name=NAME, exact=True)).to_be_visible()

        # "Send a message that mentions the agent, for example @Parlant Agent how do I …"
        composer = page.get_by_label("Message", exact=True)
        await composer.click()
        await composer.press_sequentially("@Parl")
        suggestion = page.get_by_role("option", name=re.compile(NAME))
        await expect(suggestion).to_be_visible()  # the @mention autocomplete
        await shots.take(page, "mention-autocomplete")
        await composer.press_sequentially(QUESTION[len("@Parl") :])
        await expect(suggestion).to_be_hidden()
        await composer.press("Enter")

        # "The agent replies in the room and mentions you": live, no reload.
        timeline = page.get_by_role("list", name="Messages")
        mine = timeline.locator("li.msg.text", has_text="how do I reset my password?")
        await expect(mine.locator(".mention")).to_have_text(f"@{NAME}")
        reply = timeline.locator("li.msg.text.mentions-me")
        await expect(reply).to_be_visible()
        await expect(reply.locator(".mention.me")).to_have_text("@Ada Lovelace")
        tool = timeline.locator("li.tool", has_text="band_send_message")
        await expect(tool.locator(".tool-state")).to_have_text("done")
        await expect(mine.locator(".delivery")).to_contain_text("processed")
        await shots.take(page, "reply-live")
        await tool.locator("summary").click()
        await expect(tool.get_by_text("Arguments")).to_be_visible()
        await expect(tool.get_by_text("Result")).to_be_visible()
        await shots.take(page, "tool-call-expanded")
        assert "@[[" not in await timeline.inner_text()

        # The agent read the mention once, as its handle.
        spoken = [e.text for e in fake.requests[0].entries if e.role == "user"]
        assert spoken[-1].endswith("@ada/parlant-agent how do I reset my password?"), spoken
        assert spoken[-1].count("@") == 1, spoken

        # "open the agent's menu and choose Regenerate API key, which invalidates the old key"
        await page.get_by_role("navigation").get_by_role("link", name="Agents").click()
        await page.wait_for_load_state("load")  # the page's scripts ran: the menu has a handler
        await page.get_by_role("button", name=f"Menu for {NAME}").click()
        await page.get_by_role("menuitem", name="Regenerate API key").click()
        confirm = page.get_by_role("dialog", name="Regenerate API key?")
        await shots.take(page, "regenerate-confirm")
        await confirm.get_by_role("button", name="Regenerate").click()
        fresh = page.get_by_role("dialog", name="New API key")
        new_key = await fresh.get_by_label("API Key", exact=True).input_value()
        assert new_key.startswith("band_a_") and new_key != api_key
        await shots.take(page, "new-key")
        async with httpx.AsyncClient(base_url=band.url, timeout=10) as http:
            old = await http.get("/api/v1/agent/me", headers={"X-API-Key": api_key})
            assert old.status_code == 401, old.text
            new = await http.get("/api/v1/agent/me", headers={"X-API-Key": new_key})
            assert new.status_code == 200 and new.json()["data"]["id"] == agent_id
            # The agent on the old key was disconnected for good.
            await until(lambda: _exited(agent), within=20, what="the agent to stop")
            room = await http.get(f"/api/v1/agent/chats/{room_id}", headers={"X-API-Key": new_key})
            assert room.status_code == 200
        await fresh.get_by_role("button", name="Done").click()
        await expect(page.get_by_text("Offline", exact=True)).to_be_visible()
        await shots.take(page, "agents-after-regenerate")
    finally:
        agent.close()


async def _exited(agent: AgentChild) -> bool:
    return agent.proc.poll() is not None
