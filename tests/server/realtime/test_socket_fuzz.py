"""Property test of the socket framing: whatever an attacker sends (bad JSON, wrong arity,
unknown events, joins of topics it may not join, frames before a join, huge frames, binary
frames, in any order), a bystander's socket keeps working and receives only its own topics,
and the attacker receives nothing of anyone else's.

One platform (uvicorn, SQLite) serves every example from a thread of its own; each example
opens a fresh bystander socket (Alice's agent Echo, joined to its own topics and its room) and
a fresh attacker socket (Mallory or her agent Mal), plays the attack, then posts a mention of
Echo and a message in Mallory's room and checks who received what.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from band_server.app import create_app
from band_server.config import Settings
from band_server.services.identity import accounts
from conftest import free_port
from property_kit import serve_in_thread

WAIT = 10.0  # generous: a loaded 2-core machine
SECRET = "only-alice-and-echo-may-read-this"


@dataclass
class World:
    url: str
    ws_url: str
    alice_id: str
    alice_key: str
    echo_id: str
    echo_key: str
    echo_handle: str
    alice_room: str
    mallory_id: str
    mallory_key: str
    mal_id: str
    mal_key: str
    mallory_room: str

    def echo_topics(self) -> set[str]:
        own = {f"agent_control:{self.echo_id}", f"agent_rooms:{self.echo_id}"}
        return own | {f"chat_room:{self.alice_room}", f"room_participants:{self.alice_room}"}

    def attacker_may_see(self, attacker_id: str) -> set[str]:
        own = {
            f"agent_control:{attacker_id}",
            f"agent_rooms:{attacker_id}",
            f"agent_contacts:{attacker_id}",
            f"user_rooms:{attacker_id}",
        }
        return own | {f"chat_room:{self.mallory_room}", f"room_participants:{self.mallory_room}"}


async def _seed(data_dir: Path) -> tuple[str, str, str, str]:
    """Alice and Mallory (keys via the services, which the REST surface then uses)."""
    from band_server.store.db import Database

    db = Database(f"sqlite+aiosqlite:///{data_dir / 'band.db'}")
    try:
        async with db.write() as session:
            alice, alice_key = await accounts.create_user(session, name="Alice", handle="alice")
            mallory, mallory_key = await accounts.create_user(
                session, name="Mallory", handle="mallory"
            )
    finally:
        await db.dispose()
    return alice.id, alice_key, mallory.id, mallory_key


def _agent_and_room(c: httpx.Client, key: str, name: str) -> tuple[str, str, str, str]:
    h = {"x-api-key": key}
    r = c.post(
        "/api/v1/me/agents/register",
        json={"agent": {"name": name, "description": "A socket fuzzing peer"}},
        headers=h,
    )
    assert r.status_code == 201, r.text
    agent, agent_key = r.json()["data"]["agent"], r.json()["data"]["credentials"]["api_key"]
    room = c.post("/api/v1/me/chats", json={"chat": {"title": name}}, headers=h).json()["data"]
    r = c.post(
        f"/api/v1/me/chats/{room['id']}/participants",
        json={"participant": {"participant_id": agent["id"]}},
        headers=h,
    )
    assert r.status_code == 201, r.text
    return agent["id"], agent_key, agent["handle"], room["id"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data_dir = tmp_path_factory.mktemp("fuzz") / "data"
    settings_ = Settings(data_dir=data_dir, database_url=None, redis_url=None)
    port = free_port()
    config = uvicorn.Config(
        create_app(settings_),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_per_message_deflate=False,
        lifespan="on",
    )
    server, thread = serve_in_thread(config)
    url = f"http://127.0.0.1:{port}"
    try:
        alice_id, alice_key, mallory_id, mallory_key = asyncio.run(_seed(data_dir))
        with httpx.Client(base_url=url, timeout=WAIT) as c:
            echo_id, echo_key, echo_handle, alice_room = _agent_and_room(c, alice_key, "Echo")
            mal_id, mal_key, _, mallory_room = _agent_and_room(c, mallory_key, "Mal")
        yield World(
            url,
            f"ws://127.0.0.1:{port}/api/v1/socket/websocket",
            alice_id,
            alice_key,
            echo_id,
            echo_key,
            echo_handle,
            alice_room,
            mallory_id,
            mallory_key,
            mal_id,
            mal_key,
            mallory_room,
        )
    finally:
        server.should_exit = True
        thread.join(30)


# -- what an attacker sends -------------------------------------------------------------------

# Placeholders resolved per world: the victim's topics, the attacker's own, junk.
TOPICS = [
    "{echo_control}",
    "{echo_rooms}",
    "{alice_room}",
    "{alice_participants}",
    "{alice_user_rooms}",
    "{own_control}",
    "{own_rooms}",
    "{own_room}",
    "phoenix",
    "chat_room:",
    "chat_room:*",
    "agent_control:",
    ":",
    "",
]
EVENTS = ["phx_join", "phx_leave", "heartbeat", "phx_reply", "message_created", "supersede"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
refs = st.none() | st.integers(-3, 10**20) | st.text(max_size=12) | st.booleans() | json_values
topics = st.sampled_from(TOPICS) | st.text(max_size=30) | json_values
events = st.sampled_from(EVENTS) | st.text(max_size=20) | json_values
payloads = st.dictionaries(st.text(max_size=10), json_values, max_size=4) | json_values


@st.composite
def phoenix_frames(draw: st.DrawFn) -> list[Any]:
    frame = [draw(refs), draw(refs), draw(topics), draw(events), draw(payloads)]
    arity = draw(st.sampled_from([5, 5, 5, 0, 1, 3, 4, 6]))
    return [*frame, draw(json_values)][:arity]


@dataclass(frozen=True)
class Send:
    """One frame: text (a Phoenix frame, any JSON, raw text), binary, or a huge text frame
    (``text`` around a ``body`` of ``huge`` characters, made only when it is sent)."""

    text: str | None = None
    data: bytes | None = None
    huge: int = 0

    def frame(self) -> str | bytes:
        if self.data is not None:
            return self.data
        text = self.text or ""
        return text.replace("{body}", "x" * self.huge) if self.huge else text

    def __repr__(self) -> str:
        shown = self.text if self.text is None or len(self.text) < 200 else self.text[:200] + "..."
        return f"Send(text={shown!r}, data={self.data!r}, huge={self.huge})"


def _as_text(frame: list[Any]) -> Send:
    return Send(text=json.dumps(frame))


huge = st.builds(
    lambda size, event, topic: Send(
        text=json.dumps(["1", "1", topic, event, {"body": "{body}"}]), huge=size
    ),
    st.sampled_from([70_000, 400_000, 17_000_000]),
    st.sampled_from(["phx_join", "heartbeat", "x"]),
    st.sampled_from(["{alice_room}", "phoenix", "{own_room}"]),
)
sends = st.one_of(
    phoenix_frames().map(_as_text),
    json_values.map(lambda v: Send(text=json.dumps(v))),
    st.text(max_size=60).map(lambda t: Send(text=t)),
    st.sampled_from(["[", "[[[[[[[[[[" * 2000, '["1","1"', "null", "{}", "\ufeff[]"]).map(
        lambda t: Send(text=t)
    ),
    st.binary(max_size=64).map(lambda b: Send(data=b)),
    huge,
)
attacks = st.tuples(st.booleans(), st.lists(sends, min_size=1, max_size=12))


# -- one example ------------------------------------------------------------------------------


def _resolve(text: str, w: World, attacker_id: str) -> str:
    names = {
        "{echo_control}": f"agent_control:{w.echo_id}",
        "{echo_rooms}": f"agent_rooms:{w.echo_id}",
        "{alice_room}": f"chat_room:{w.alice_room}",
        "{alice_participants}": f"room_participants:{w.alice_room}",
        "{alice_user_rooms}": f"user_rooms:{w.alice_id}",
        "{own_control}": f"agent_control:{attacker_id}",
        "{own_rooms}": f"agent_rooms:{attacker_id}",
        "{own_room}": f"chat_room:{w.mallory_room}",
    }
    for placeholder, name in names.items():
        text = text.replace(placeholder, name)
    return text


def _server_ref(value: object) -> str | None:
    """A ref as the server reads it: strings, integers as strings, anything else None."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return str(value)


def _events_by_ref(texts: list[str]) -> dict[tuple[str | None, str], set[str]]:
    """(ref as the server reads it, topic) -> the events sent with them, for reading replies."""
    out: dict[tuple[str | None, str], set[str]] = {}
    for text in texts:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(data, list) or len(data) != 5:
            continue
        ref, topic, event = _server_ref(data[1]), data[2], data[3]
        if isinstance(topic, str) and isinstance(event, str):
            out.setdefault((ref, topic), set()).add(event)
    return out


def _url(w: World, key: str, agent_id: str | None = None) -> tuple[str, dict[str, str]]:
    query = {"vsn": "2.0.0", **({"agent_id": agent_id} if agent_id else {})}
    return f"{w.ws_url}?{urlencode(query)}", {"x-api-key": key}


async def _sync(ws: ClientConnection, ref: str, seen: list[list[Any]]) -> None:
    """Heartbeat with ``ref``; every frame before its reply goes into ``seen``."""
    await ws.send(json.dumps([None, ref, "phoenix", "heartbeat", {}]))
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        if frame[3] == "phx_reply" and frame[1] == ref and frame[2] == "phoenix":
            return
        seen.append(frame)


async def _join(ws: ClientConnection, topic: str, ref: str) -> None:
    await ws.send(json.dumps([ref, ref, topic, "phx_join", {}]))
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        if frame[3] == "phx_reply" and frame[1] == ref:
            assert frame[4]["status"] == "ok", frame
            return


async def _until_push(ws: ClientConnection, content: str, seen: list[list[Any]]) -> None:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        seen.append(frame)
        if frame[3] == "message_created" and frame[4].get("content", "").endswith(content):
            return


async def play(w: World, as_person: bool, attack: list[Send]) -> None:
    attacker_id = w.mallory_id if as_person else w.mal_id
    attacker_key = w.mallory_key if as_person else w.mal_key
    secret = f"{SECRET} {uuid.uuid4().hex}"
    mine = f"for mallory's room {uuid.uuid4().hex}"
    url, headers = _url(w, w.echo_key, w.echo_id)
    async with connect(url, additional_headers=headers, max_size=None) as echo:
        for i, topic in enumerate(sorted(w.echo_topics())):
            await _join(echo, topic, f"e{i}")
        url, headers = _url(w, attacker_key)
        async with connect(url, additional_headers=headers, max_size=None) as attacker:
            attacker_seen: list[list[Any]] = []
            attacker_alive = True
            sent_texts = [_resolve(i.text, w, attacker_id) for i in attack if i.text and not i.huge]
            try:
                for item in attack:
                    frame = item.frame()
                    if isinstance(frame, str):
                        frame = _resolve(frame, w, attacker_id)
                    await attacker.send(frame)
                await _sync(attacker, "sync-1", attacker_seen)
            except ConnectionClosed:
                attacker_alive = False  # the server may end the attacker's own socket
            async with httpx.AsyncClient(base_url=w.url, timeout=WAIT) as c:
                r = await c.post(
                    f"/api/v1/me/chats/{w.alice_room}/messages",
                    json={"message": {"content": f"@{w.echo_handle} {secret}"}},
                    headers={"x-api-key": w.alice_key},
                )
                assert r.status_code == 201, r.text
                r = await c.post(
                    f"/api/v1/me/chats/{w.mallory_room}/messages",
                    json={"message": {"content": mine}},
                    headers={"x-api-key": w.mallory_key},
                )
                assert r.status_code == 201, r.text
            echo_seen: list[list[Any]] = []
            await _until_push(echo, secret, echo_seen)
            await _sync(echo, "sync-echo", echo_seen)
            if attacker_alive:
                with contextlib.suppress(ConnectionClosed):
                    await _sync(attacker, "sync-2", attacker_seen)
    # The bystander received only its own topics, and nothing of Mallory's room.
    for frame in echo_seen:
        assert frame[2] in w.echo_topics(), frame
        assert mine not in json.dumps(frame), frame
    # The attacker got no push, and no successful join, of a topic that is not its own.
    allowed = w.attacker_may_see(attacker_id)
    sent = _events_by_ref(sent_texts)
    for frame in attacker_seen:
        assert secret not in json.dumps(frame), frame
        if frame[3] != "phx_reply":
            assert frame[2] in allowed, frame
        elif frame[4].get("status") == "ok" and frame[2] not in allowed:
            # An ok reply on a foreign topic may only answer a leave (leaving is idempotent).
            answered = sent.get((frame[1], frame[2]), set())
            assert answered and answered != {"phx_join"}, (frame, answered)


@settings(
    max_examples=40,
    deadline=20_000,  # ms per example: the 17 MB frames on a loaded machine
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(attacks)
def test_no_frame_breaks_another_socket_or_leaks_a_topic(
    world: World, attack: tuple[bool, list[Send]]
) -> None:
    as_person, frames = attack
    asyncio.run(play(world, as_person, frames))
    health = httpx.get(f"{world.url}/health", timeout=WAIT)
    assert health.status_code == 200, health.text
