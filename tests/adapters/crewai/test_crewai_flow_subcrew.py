"""A sub-crew inside a CrewAI Flow posts through Band's tools under reserve, send, confirm
(``CrewAIFlowSubCrewReporter``), on real CrewAI and the live platform: its note reaches the
room once, is recorded as a side effect of the run, and a retried turn does not post it
again.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adapters.framework_support import Person, require, running

require("crewai", "BAND_REQUIRE_CREWAI")

from crewai import LLM  # noqa: E402
from runtime_support import until  # noqa: E402

from adapters.crewai.flows import subcrew_flow  # noqa: E402
from band.adapters import CrewAIFlowAdapter  # noqa: E402
from band.adapters._flow_effects import SideEffectExecutor  # noqa: E402
from band.testing import FakeModel  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.filterwarnings("ignore::ImportWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]
NOTE = "Looking into it now."


def flow_agent(base_url: str) -> CrewAIFlowAdapter:
    llm = LLM(model="openai/fake-model", base_url=base_url, api_key="fake", max_retries=0)
    return CrewAIFlowAdapter(flow_factory=lambda: subcrew_flow(llm))


def script(fake: FakeModel, turns: int, alice: str) -> None:
    """Each turn: the crew posts the note, then gives its final answer."""
    for _ in range(turns):
        fake.call_tool("band_send_message", {"content": NOTE, "mentions": [alice]})
        fake.reply("Final Answer: Friday is fine.")


async def sent_by(alice: Person, room: str, sender: str, text: str) -> list[dict[str, Any]]:
    return [
        m for m in await alice.listing(room) if m["sender_id"] == sender and text in m["content"]
    ]


async def test_a_sub_crews_post_is_a_confirmed_side_effect_of_the_run(
    live_server: Any, seeded: Any, alice: Person, base_url: str, fake: FakeModel
) -> None:
    script(fake, 1, seeded.user_handle)
    room = await alice.create_room("Research", seeded.agent_id)
    async with running(live_server, seeded, flow_agent(base_url)):
        await alice.say(room, "Ship on Friday?", seeded.agent_id)
        await until(lambda: sent_by(alice, room, seeded.agent_id, "Crew says"), limit=60)
    listing = await alice.listing(room)
    notes = await sent_by(alice, room, seeded.agent_id, NOTE)
    assert len(notes) == 1
    records = [
        m["metadata"][f"crewai_flow:{seeded.agent_id}"]
        for m in listing
        if m["message_type"] == "task" and m["content"].startswith("subcrew_sent:")
    ]
    assert len(records) == 1
    effect = records[0]["side_effects"][0]
    assert effect["side_effect_key"].endswith(":subcrew:1")
    assert effect["message_id"] == notes[0]["id"]
    # The sub-crew's reporter narrates nothing: no tool events for the note.
    assert not [m for m in listing if m["message_type"] in ("tool_call", "tool_result")]


async def test_a_retried_turn_does_not_post_the_sub_crews_note_again(
    monkeypatch: pytest.MonkeyPatch,
    live_server: Any,
    seeded: Any,
    alice: Person,
    base_url: str,
    fake: FakeModel,
) -> None:
    script(fake, 2, seeded.user_handle)
    original = SideEffectExecutor._confirm
    stopped: list[bool] = []

    async def hang_at_final(self: SideEffectExecutor, *args: Any) -> Any:
        if not stopped and args[2].startswith("finalized:"):
            stopped.append(True)  # the agent is as good as dead here
            await asyncio.Event().wait()
        return await original(self, *args)

    monkeypatch.setattr(SideEffectExecutor, "_confirm", hang_at_final)
    room = await alice.create_room("Research", seeded.agent_id)
    async with running(live_server, seeded, flow_agent(base_url)):
        await alice.say(room, "Ship on Friday?", seeded.agent_id)
        await until(lambda: bool(stopped), limit=60)
    async with running(live_server, seeded, flow_agent(base_url)):

        async def confirmed() -> bool:
            listing = await alice.listing(room)
            return any(m["content"].startswith("finalized:") for m in listing)

        await until(confirmed, limit=60)
    assert len(await sent_by(alice, room, seeded.agent_id, NOTE)) == 1
    assert len(await sent_by(alice, room, seeded.agent_id, "Crew says")) == 1
