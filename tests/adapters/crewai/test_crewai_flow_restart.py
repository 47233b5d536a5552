"""CrewAIFlowAdapter stopped and restarted mid-run, on the live platform: no delegation and
no final answer is sent twice, and none is lost.

Visible writes go under reserve, send, confirm. The cases stop the flow agent (Echo) at each
step of a write (a fresh adapter then starts, as a new process would): after its
delegations went out, between a reservation and its send, between a send and its
confirmation, and between the final answer and its confirmation. The platform serves the
unfinished message again; the new instance reads the run back over REST and settles it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adapters.framework_support import Person, require, running

require("crewai", "BAND_REQUIRE_CREWAI")

from runtime_support import until  # noqa: E402

from adapters.crewai.test_crewai_flow import final_answer, flow_agent, room_with_peers  # noqa: E402
from band.adapters._flow_effects import SideEffectExecutor  # noqa: E402
from band.runtime.formatters import strip_leading_mentions  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.filterwarnings("ignore::ImportWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]
VIEWS = {"Scout": "Scout thinks yes.", "Sage": "Sage thinks no."}


class Crash(RuntimeError):
    """The agent stopping at a chosen step of a visible write (its turn fails there)."""


def crash_once(monkeypatch: pytest.MonkeyPatch, name: str, when: Callable[..., bool]) -> list[bool]:
    """Make ``SideEffectExecutor.<name>`` raise once, when ``when(*args)`` holds."""
    original = getattr(SideEffectExecutor, name)
    crashed: list[bool] = []

    async def step(self: SideEffectExecutor, *args: Any, **kwargs: Any) -> Any:
        if not crashed and when(*args, **kwargs):
            crashed.append(True)
            raise Crash(f"stopped at {name}")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(SideEffectExecutor, name, step)
    return crashed


async def messages_of(alice: Person, room: str, sender: str, text: str) -> list[dict[str, Any]]:
    return [
        m for m in await alice.listing(room) if m["sender_id"] == sender and text in m["content"]
    ]


async def assert_once_each(
    alice: Person, room: str, seeded: Any, peers: dict[str, str]
) -> dict[str, Any]:
    """One final answer with both views; exactly one ask per peer, one answer in all."""
    answer = await final_answer(alice, room, seeded.agent_id)
    asks = await messages_of(alice, room, seeded.agent_id, "Please give")
    assert [strip_leading_mentions(a["content"]) for a in asks] == [
        "Please give your view on: Ship on Friday?"
    ] * 2
    mentioned = [m["id"] for a in asks for m in a["metadata"]["mentions"]]
    assert sorted(mentioned) == sorted(peers.values())  # one ask to each peer
    assert len(await messages_of(alice, room, seeded.agent_id, "Summary")) == 1
    assert "Scout said: Scout thinks yes." in answer["content"]
    assert "Sage said: Sage thinks no." in answer["content"]
    return answer


async def test_a_restart_after_delegating_joins_the_replies_that_came_meanwhile(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    async with room_with_peers(live_server, seeded, alice, VIEWS) as (room, peers):
        async with running(live_server, seeded, flow_agent()):
            await alice.say(room, "Ship on Friday?", seeded.agent_id, *peers.values())

            async def both_asked() -> bool | None:
                asks = await messages_of(alice, room, seeded.agent_id, "Please give")
                return len(asks) == 2 or None

            await until(both_asked, limit=30)
        # Echo is down while the peers answer; a fresh instance picks the run up.

        async def both_replied() -> bool | None:
            replies = [m for m in await alice.listing(room) if m["sender_id"] in peers.values()]
            return len(replies) >= 2 or None

        await until(both_replied, limit=30)
        async with running(live_server, seeded, flow_agent()):
            await assert_once_each(alice, room, seeded, peers)


@pytest.mark.parametrize(
    ("step", "when"),
    [
        pytest.param("post", lambda key, *a, **k: ":delegate:" in key, id="reserved-not-sent"),
        pytest.param(
            "_confirm",
            lambda status, stage, note: note.startswith("delegated:"),
            id="sent-not-confirmed",
        ),
        pytest.param(
            "_confirm",
            lambda status, stage, note: note.startswith("finalized:"),
            id="answered-not-confirmed",
        ),
    ],
)
async def test_a_write_cut_short_is_settled_by_the_next_instance_once(
    step: str,
    when: Callable[..., bool],
    monkeypatch: pytest.MonkeyPatch,
    live_server: Any,
    seeded: Any,
    alice: Person,
) -> None:
    crashed = crash_once(monkeypatch, step, when)
    async with room_with_peers(live_server, seeded, alice, VIEWS) as (room, peers):
        async with running(live_server, seeded, flow_agent()):
            await alice.say(room, "Ship on Friday?", seeded.agent_id, *peers.values())
            await until(lambda: _true(crashed), limit=60)
        async with running(live_server, seeded, flow_agent()):
            try:
                await assert_once_each(alice, room, seeded, peers)
            except BaseException:
                from adapters.crewai._dbg import dump

                await dump(alice, room)
                raise


async def _true(flags: list[bool]) -> bool | None:
    return bool(flags) or None
