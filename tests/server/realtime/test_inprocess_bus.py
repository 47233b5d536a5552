"""The in-process bus hands each broadcast to the node's delivery in publish order: a
``PlainDeliver``'s work straight from ``publish`` (what it returns is done already), any
other delivery as the coroutine it always was."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from band_server.fanout.bus import Broadcast, InProcessBus, PlainDeliver


def _broadcasts(n: int) -> list[Broadcast]:
    return [Broadcast(f"chat_room:r-{i % 3}", "message_created", {"n": i}) for i in range(n)]


def test_plain_delivery_is_done_before_the_await() -> None:
    async def run() -> None:
        got: list[Broadcast] = []
        bus = InProcessBus()
        await bus.start(PlainDeliver(got.append))
        sent = _broadcasts(20)
        for i, b in enumerate(sent):
            pending = bus.publish(b)
            assert got == sent[: i + 1]  # delivered by the call itself
            assert not inspect.iscoroutine(pending)
            assert isinstance(pending, asyncio.Future) and pending.done()
            await pending
            await pending  # awaited by any number of publishers
        assert got == sent
        assert await bus.health() is None
        await bus.stop()
        await bus.publish(sent[0])  # stopped: nothing is delivered
        assert got == sent
        assert await bus.health() == "not started"

    asyncio.run(run())


def test_a_plain_delivery_raises_to_its_publisher() -> None:
    def refuse(b: Broadcast) -> None:
        raise RuntimeError(b.topic)

    async def run() -> None:
        bus = InProcessBus()
        await bus.start(PlainDeliver(refuse))
        with pytest.raises(RuntimeError, match="chat_room:r-0"):
            await bus.publish(_broadcasts(1)[0])

    asyncio.run(run())


def test_any_other_delivery_runs_when_awaited() -> None:
    async def run() -> None:
        got: list[Broadcast] = []

        async def deliver(b: Broadcast) -> None:
            got.append(b)

        bus = InProcessBus()
        await bus.publish(_broadcasts(1)[0])  # not started: nothing is delivered
        await bus.start(deliver)
        sent = _broadcasts(5)
        for b in sent:
            pending = bus.publish(b)
            assert inspect.iscoroutine(pending)
            await pending
        assert got == sent

    asyncio.run(run())


def test_a_plain_deliver_is_a_deliver() -> None:
    """Awaited as any ``Deliver`` (the presence's, a traced delivery's inner one), it does
    its work once."""
    got: list[Broadcast] = []
    b = _broadcasts(1)[0]
    asyncio.run(PlainDeliver(got.append)(b))
    assert got == [b]
