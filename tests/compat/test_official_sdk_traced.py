"""band-sdk 6.0.1, unmodified, against a platform whose tracing is on (issue 36).

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, the platform puts ``traceparent`` at the top level
of every pushed ``message_created``. The official client validates pushes with band-sdk-core
2.8.0: the key must be kept and ignored, so the mention is answered as before, without a
single complaint about the wire, and the platform's spans reach the OTLP receiver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from .compat_harness import World
from .conftest import _world
from .otlp_receiver import OtlpReceiver
from .test_official_sdk import post_mention, wait_processed, wait_reply

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

pytestmark = [pytest.mark.compat, pytest.mark.timeout(240)]


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as r:
        yield r


@pytest.fixture
async def traced_world(
    tmp_path: Path, compat_python: Path, receiver: OtlpReceiver
) -> AsyncIterator[World]:
    async for w in _world(tmp_path, compat_python, receiver.env("band-server")):
        yield w


async def test_band_sdk_answers_pushes_that_carry_a_traceparent(
    traced_world: World, receiver: OtlpReceiver
) -> None:
    world = traced_world
    agent = world.spawn("echo_agent.py", "echo")
    await agent.wait_event("ready", within=60)
    posted = await post_mention(world, world.room, "traced hello")
    await agent.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])
    await wait_reply(world, world.room, posted)
    await wait_processed(world, world.room, posted["id"])
    world.assert_wire_clean()
    stored = next(m for m in await world.human.messages(world.room) if m["id"] == posted["id"])
    trace_id = stored["metadata"]["trace_id"]
    spans = receiver.wait_for(
        lambda ss: (
            {"push message_created", "band.commit"}
            <= {s.name for s in ss if s.trace_id == trace_id}
        )
    )
    names = {s.name for s in spans if s.trace_id == trace_id}
    assert "POST /api/v1/me/chats/{id}/messages" in names
