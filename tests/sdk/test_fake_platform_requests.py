"""``FakePlatform`` is the real REST client over an in-memory request layer: the tools'
calls go out as the requests Band would get, and the routes answer them from the fake's lists."""

from __future__ import annotations

import pytest

from band.platform.errors import BandRestError
from band.platform.rest import BandRestClient
from band.testing import FakeAgentTools, FakePlatform


async def test_the_tools_calls_cross_the_clients_request_layer() -> None:
    tools = FakeAgentTools(participants=[{"id": "u1", "name": "Alice", "handle": "alice"}])
    assert isinstance(tools.platform, BandRestClient)
    before = tools.platform.request_count
    await tools.send_message("hi", mentions=["alice"])
    await tools.store_memory("likes tea", "long_term", "semantic", "user", "noted", "subject")
    assert tools.platform.request_count == before + 2
    assert tools.platform.posted_messages[0]["mentions"] == [{"id": "u1", "handle": "alice"}]
    assert tools.memories[0]["content"] == "likes tea" and tools.memories[0]["subject_id"] is None


async def test_a_request_the_fake_does_not_serve_is_the_platforms_404() -> None:
    with pytest.raises(BandRestError) as info:
        await FakePlatform().get_me()
    assert (info.value.status, info.value.code) == (404, "not_found")


async def test_what_a_route_raises_reaches_the_caller_unchanged() -> None:
    platform = FakePlatform()
    platform.message_error = ConnectionError("offline")
    with pytest.raises(ConnectionError, match="offline"):
        await platform.post_message("r1", "hi", [{"id": "u1"}])
    with pytest.raises(ValueError, match="No peer with id p9"):
        await platform.add_participant("r1", "p9")
