"""``GET /metrics``: what a Prometheus scrape of a node sees."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from agent_testkit import World, make_world, person_posts

from band_server.context import Platform
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample line of the Prometheus text, or fail if it is missing."""
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = re.escape(name) + (r"\{" + re.escape(wanted) + r"\}" if labels else "") + r" (\S+)"
    found = re.search(r"^" + pattern + r"$", text, re.MULTILINE)
    assert found, f"no sample {name}{{{wanted}}} in:\n{text}"
    return float(found.group(1))


async def test_metrics_count_requests_by_route_template_and_deliveries_by_state(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    await person_posts(platform, w, "hello @echo", w.seeded.agent_id)
    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    assert r.status_code == 200
    msg_id = r.json()["data"]["id"]
    claimed = await client.post(w.url(f"/messages/{msg_id}/processing"), headers=w.echo_key)
    assert claimed.status_code == 200

    r = await client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    text = r.text
    route = "/api/v1/agent/chats/{chat_id}/messages/next"
    assert sample(text, "band_http_requests_total", method="GET", route=route, status="200") == 1
    assert sample(text, "band_http_request_duration_seconds_count", method="GET", route=route) == 1
    assert sample(text, "band_deliveries", state="processing") == 1
    assert sample(text, "band_deliveries", state="processed") == 0
    assert sample(text, "band_sockets", kind="agent") == 0
    # The post, the claim: each committed by the SQLite writer and announced through the bus.
    assert sample(text, "band_db_commit_batch_units_count") >= 2
    assert sample(text, "band_fanout_lag_seconds_count") >= 2
    assert "process_cpu_seconds_total" in text
    assert "band_presence_" not in text  # a node alone: no cluster, no cluster gauges


async def test_metrics_count_the_event_loops_tasks(client: httpx.AsyncClient) -> None:
    """``band_asyncio_tasks`` and the requests in flight: what a soak watches for leaks."""
    text = (await client.get("/metrics")).text
    before = sample(text, "band_asyncio_tasks")
    assert before >= 1  # at least the request's own task
    assert sample(text, "band_http_requests_in_flight") == 1  # the scrape itself
    parked = asyncio.Event()
    waiting = [asyncio.create_task(parked.wait()) for _ in range(3)]
    try:
        during = sample((await client.get("/metrics")).text, "band_asyncio_tasks")
    finally:
        parked.set()
        await asyncio.gather(*waiting)
    assert during == before + 3


async def test_metrics_say_how_much_memory_sqlite_holds(client: httpx.AsyncClient) -> None:
    assert sample((await client.get("/metrics")).text, "band_sqlite_memory_bytes") > 100_000


async def test_an_unknown_path_is_counted_without_its_raw_path(client: httpx.AsyncClient) -> None:
    await client.get("/no/such/thing/123")
    text = (await client.get("/metrics")).text
    assert sample(text, "band_http_requests_total", method="GET", route="unmatched", status="404")
    assert "/no/such/thing" not in text
