"""``band serve`` started while Redis or PostgreSQL is out of reach (issue 27): the node waits
instead of exiting. It logs one line every few seconds naming what is missing, answers
``/healthz``, ``/health`` and everything else 503 (a socket upgrade too) meanwhile, serves as
soon as the dependency is back, and gives up after ``--wait-for-dependencies`` seconds with
one line and status 1. Two nodes waiting for one database migrate it once."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from band_server.config import Settings

from .nodes import ProcessNode, serve_process
from .real_services import PostgresServer, RedisServer, free_port

WITHIN = 60.0  # a node's start on a loaded machine, with its dependency back
WAITING = re.compile(r"WARNING +band_server\.startup: waiting for (\w+)")


@pytest.fixture
def stopped_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster of this test alone, stopped: the test starts it (``resume``)."""
    server = PostgresServer()
    try:
        server.start()
        server.pause()
        yield server
    finally:
        server.stop()


async def _answer(node: ProcessNode, path: str) -> httpx.Response:
    """The node's answer to GET ``path`` once it listens (it waits for nothing to listen)."""
    deadline = time.monotonic() + WITHIN
    async with httpx.AsyncClient(base_url=node.url, timeout=10) as client:
        while True:
            assert node.process.poll() is None, node.log.read_text()
            try:
                return await client.get(path)
            except httpx.TransportError:
                assert time.monotonic() < deadline, f"{path}: nothing listens"
                await asyncio.sleep(0.1)


async def _until(node: ProcessNode, path: str, status: int) -> httpx.Response:
    deadline = time.monotonic() + WITHIN
    while (r := await _answer(node, path)).status_code != status:
        assert time.monotonic() < deadline, f"{path} stayed {r.status_code}: {r.text}"
        await asyncio.sleep(0.2)
    return r


def _waiting_lines(node: ProcessNode) -> list[str]:
    return [line for line in node.log.read_text().splitlines() if WAITING.search(line)]


async def _lines(node: ProcessNode, count: int) -> list[str]:
    """At least ``count`` "waiting for" lines of the node's log."""
    deadline = time.monotonic() + WITHIN
    while len(lines := _waiting_lines(node)) < count:
        assert time.monotonic() < deadline, node.log.read_text()
        await asyncio.sleep(0.2)
    return lines


def _stamp(line: str) -> float:
    """The time of a log line (``2026-01-02 10:11:12,345 ...``), in seconds."""
    clock = line.split()[1]
    hours, minutes, seconds = clock.replace(",", ".").split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def _unavailable(r: httpx.Response, missing: str) -> dict[str, Any]:
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == "5"
    error: dict[str, Any] = r.json()["error"]
    assert error["code"] == "unavailable" and missing in error["message"], error
    return error


async def _refused_socket(node: ProcessNode) -> int:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(f"{node.ws_url}?vsn=2.0.0", open_timeout=10):
            pass
    return refused.value.response.status_code


def _admin_key(node: ProcessNode) -> str:
    return node.log.read_text().split("keep it safe):", 1)[1].split()[0]


async def test_a_node_started_while_redis_is_away_waits_and_serves_once_it_is_back(
    tmp_path: Path, pg_url: str
) -> None:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")  # not started yet
    settings = Settings(data_dir=tmp_path / "data", database_url=pg_url, redis_url=redis.url)
    try:
        async with serve_process(settings, healthy=False) as node:
            for path in ("/healthz", "/health"):
                error = _unavailable(await _answer(node, path), "redis")
                assert error["message"] == "unreachable: redis"
                assert error["details"]["starting"] is True
                assert "cannot reach Redis" in error["details"]["checks"]["redis"]["error"]
            _unavailable(await _answer(node, "/api/v1/me/profile"), "waiting for redis")
            assert await _refused_socket(node) == 503
            first, second = (await _lines(node, 2))[:2]
            assert "redis (cannot reach Redis at redis://127.0.0.1:" in first
            assert "giving up in" in first
            assert 3.0 <= _stamp(second) - _stamp(first) <= 8.0  # a few seconds apart
            redis.start()
            await _until(node, "/health", 200)
            assert (await _answer(node, "/healthz")).json() == {"status": "ok"}
            key = _admin_key(node)  # made once the database was there
            async with httpx.AsyncClient(base_url=node.url, timeout=10) as client:
                me = await client.get("/api/v1/me/profile", headers={"X-API-Key": key})
            assert me.status_code == 200 and me.json()["data"]["handle"] == "admin"
    finally:
        redis.stop()


async def test_two_nodes_started_while_postgresql_is_away_migrate_it_once_it_is_back(
    tmp_path: Path, stopped_postgres: PostgresServer
) -> None:
    stopped_postgres.resume()
    url = await stopped_postgres.create_database()  # empty: the nodes migrate it
    stopped_postgres.pause()
    a_settings = Settings(data_dir=tmp_path / "a", database_url=url, redis_url=None)
    b_settings = Settings(data_dir=tmp_path / "b", database_url=url, redis_url=None)
    async with (
        serve_process(a_settings, healthy=False) as a,
        serve_process(b_settings, healthy=False) as b,
    ):
        for node in (a, b):
            error = _unavailable(await _answer(node, "/health"), "database")
            assert error["message"] == "unreachable: database"
            _unavailable(await _answer(node, "/healthz"), "database")
            await _lines(node, 1)
        stopped_postgres.resume()
        for node in (a, b):
            await _until(node, "/health", 200)
        logs = a.log.read_text() + b.log.read_text()
        upgrades = re.findall(r"Running upgrade (\S*) -> (\S+)", logs)
        assert upgrades and len(upgrades) == len(set(upgrades)), upgrades  # each step once
        assert logs.count("Created the first person") == 1  # and one admin
        key = _admin_key(a) if "keep it safe" in a.log.read_text() else _admin_key(b)
        async with httpx.AsyncClient(timeout=10) as client:
            for node in (a, b):
                me = await client.get(f"{node.url}/api/v1/me/profile", headers={"X-API-Key": key})
                assert me.status_code == 200, me.text


async def test_a_node_gives_up_after_its_wait_with_one_line_and_status_1(
    tmp_path: Path, pg_url: str
) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    settings = Settings(data_dir=tmp_path / "data", database_url=pg_url, redis_url=nowhere)
    began = time.monotonic()
    async with serve_process(settings, "--wait-for-dependencies", "3", healthy=False) as node:
        status = await asyncio.to_thread(node.process.wait, WITHIN)
    assert status == 1
    assert time.monotonic() - began < WITHIN
    out = node.log.read_text()
    assert "Traceback" not in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("band serve: gave up after 3s: still out of reach: redis (cannot"), last
