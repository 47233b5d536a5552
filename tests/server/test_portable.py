"""``band export`` / ``band import`` between two platforms in this process (issue 36).

Platform A holds a workspace; a person's export (and an admin's, of the whole deployment) is
imported into platform B by B's admin. What a person then reads on B is what they read on A;
nothing imported becomes a turn; an import run twice, or resumed after an interruption,
makes nothing twice; only an admin imports, and records out of order change nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from band.client.rest import AsyncRestClient
from band.portable import export_archive, import_archive
from band.portable.progress import LineProgress
from band.testing import LocalPlatform
from compat.portable_world import Party, history, ok, seed

pytestmark = pytest.mark.timeout(120)


class World:
    def __init__(self, a: LocalPlatform, b: LocalPlatform) -> None:
        self.a, self.b = a, b

    async def build(self) -> None:
        self.admin_a = await self.a.person("root")
        alice, bob = await self.a.person("alice"), await self.a.person("bob")
        echo = await self.a.agent(alice, "Echo", "Echo answers every question it gets")
        self.alice = Party(alice.id, alice.key, alice.handle)
        self.bob = Party(bob.id, bob.key, bob.handle)
        self.echo = Party(echo.id, echo.key, echo.handle)
        self.room = await seed(self.a.rest_url, self.alice, self.bob, self.echo)
        self.admin_b = await self.b.person("admin")


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with LocalPlatform(tmp_path / "a") as a, LocalPlatform(tmp_path / "b") as b:
        w = World(a, b)
        await w.build()
        yield w


async def _export(url: str, key: str, path: Path, scope: Any = "person") -> Any:
    async with AsyncRestClient(base_url=url, api_key=key) as client:
        return await export_archive(client, path, scope=scope, source_url=url)


async def _import(url: str, key: str, path: Path, **kw: Any) -> Any:
    async with AsyncRestClient(base_url=url, api_key=key) as client:
        return await import_archive(client, path, **kw)


async def _read(url: str, key: str, room: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    async with httpx.AsyncClient(base_url=url, headers={"X-API-Key": key}) as c:
        msgs = ok(await c.get(f"/api/v1/me/chats/{room}/messages?sort_order=asc&limit=100"))
        roster = ok(await c.get(f"/api/v1/me/chats/{room}/participants"))
    return msgs["data"], {p["id"]: p["handle"] for p in roster["data"]}


def _key(summary: Any, note: str) -> str:
    return next(k.api_key for k in summary.keys if note in k.note)


async def test_a_persons_rooms_read_the_same_on_the_deployment_they_moved_to(
    world: World, tmp_path: Path
) -> None:
    archive = tmp_path / "alice.tar.gz"
    exported = await _export(world.a.rest_url, world.alice.key, archive)
    # 6 mentions, a thought, a reply, two task events and the goal's.
    assert exported.counts["message"] == 11 and exported.counts["file"] == 1
    done = await _import(world.b.rest_url, world.admin_b.key, archive)
    assert done.created["message"] == 11 and not done.resumed
    alice_b = _key(done, "@alice")
    echo_b = _key(done, "@alice/echo")

    src, src_handles = await _read(world.a.rest_url, world.alice.key, world.room)
    async with httpx.AsyncClient(base_url=world.b.rest_url, headers={"X-API-Key": alice_b}) as c:
        rooms = ok(await c.get("/api/v1/me/chats"))["data"]
        assert [r["title"] for r in rooms] == ["Launch"]
        room_b = rooms[0]["id"]
        tasks = ok(await c.get(f"/api/v1/me/chats/{room_b}/tasks"))["data"]
        board = ok(await c.get(f"/api/v1/me/chats/{room_b}/board"))["data"]
        contacts = ok(await c.get("/api/v1/me/contacts"))["data"]
        got, handles = await _read(world.b.rest_url, alice_b, room_b)
        first = got[0]["attachments"][0]
        raw = await c.get(f"/api/v1/me/chats/{room_b}/files/{first['id']}")
    assert history(got, handles) == history(src, src_handles)
    async with httpx.AsyncClient(
        base_url=world.a.rest_url, headers={"X-API-Key": world.alice.key}
    ) as c:
        rooms_a = ok(await c.get("/api/v1/me/chats"))["data"]
    # The room's last activity (its newest message's time) came with its history.
    launch_a = next(r for r in rooms_a if r["id"] == world.room)
    assert rooms[0]["last_message_at"] == launch_a["last_message_at"] is not None
    assert raw.content == b"minutes of the kick-off meeting\n"
    assert [(t["number"], t["subject"], t["overall_status"]) for t in tasks] == [
        (1, "Ship it", "in_progress")
    ]
    assert board["goal_title"] == "Launch"
    assert [c["handle"] for c in contacts] == ["bob"]
    # History, not work: the imported agent has nothing to answer, and its new key works.
    async with httpx.AsyncClient(base_url=world.b.rest_url, headers={"X-API-Key": echo_b}) as c:
        assert ok(await c.get("/api/v1/agent/me"))["data"]["handle"] == "alice/echo"
        assert (await c.get(f"/api/v1/agent/chats/{room_b}/messages/next")).status_code == 204
        context_b = ok(await c.get(f"/api/v1/agent/chats/{room_b}/context?limit=100"))["data"]
    # Its context (what it sent, the texts mentioning it) is the one it had on A.
    async with httpx.AsyncClient(
        base_url=world.a.rest_url, headers={"X-API-Key": world.echo.key}
    ) as c:
        context_a = ok(await c.get(f"/api/v1/agent/chats/{world.room}/context?limit=100"))["data"]
    assert len(context_a) >= 2
    assert [(m["seq"], m["message_type"]) for m in context_b] == [
        (m["seq"], m["message_type"]) for m in context_a
    ]
    # A message posted after the import continues the room's sequence.
    async with httpx.AsyncClient(base_url=world.b.rest_url, headers={"X-API-Key": alice_b}) as c:
        body = {"message": {"content": "@alice/echo welcome back"}}
        ok(await c.post(f"/api/v1/me/chats/{room_b}/messages", json=body), 201)
        last = ok(await c.get(f"/api/v1/me/chats/{room_b}/messages?limit=1"))["data"][0]
    assert last["seq"] == got[-1]["seq"] + 1


async def test_people_the_deployment_has_are_mapped_by_handle_and_get_no_new_key(
    world: World, tmp_path: Path
) -> None:
    alice_b = await world.b.person("alice")  # alice has an account on B already
    archive = tmp_path / "alice"
    await _export(world.a.rest_url, world.alice.key, archive)
    done = await _import(world.b.rest_url, world.admin_b.key, archive)
    assert "person: mapped to @alice" in done.notes
    # Keys only for what the import made: alice's key on B stays hers.
    assert {k.note for k in done.keys} == {"created @bob", "created @alice/echo"}
    async with httpx.AsyncClient(
        base_url=world.b.rest_url, headers={"X-API-Key": alice_b.key}
    ) as c:
        rooms = ok(await c.get("/api/v1/me/chats"))["data"]
        assert [r["title"] for r in rooms] == ["Launch"]
        got, handles = await _read(world.b.rest_url, alice_b.key, rooms[0]["id"])
    mine = [m for m in got if m["sender_type"] == "User"]
    assert mine and {m["sender_id"] for m in mine} == {alice_b.id}
    assert handles[alice_b.id] == "alice"


async def test_an_import_run_twice_makes_nothing_new(world: World, tmp_path: Path) -> None:
    archive = tmp_path / "alice"
    await _export(world.a.rest_url, world.alice.key, archive)
    await _import(world.b.rest_url, world.admin_b.key, archive)
    again = await _import(world.b.rest_url, world.admin_b.key, archive)
    assert again.created == {} and again.keys == [] and again.resumed
    alice_b = await _alice_on_b(world)
    async with httpx.AsyncClient(base_url=world.b.rest_url, headers={"X-API-Key": alice_b}) as c:
        rooms = ok(await c.get("/api/v1/me/chats"))["data"]
    assert len(rooms) == 1


async def _alice_on_b(world: World) -> str:
    """A fresh key for alice on B (the import's was shown once, to another run)."""
    from sqlalchemy import select

    from band_server.services.identity import accounts
    from band_server.services.unit import write
    from band_server.store.models import User

    async with write(world.b._app.state.platform) as uow:
        user_id = await uow.session.scalar(select(User.id).where(User.handle == "alice"))
        assert user_id is not None
        return await accounts.issue_key(uow.session, "user", user_id)


class _Interrupt(Exception):
    pass


class _StopAfter(LineProgress):
    """Progress that breaks the run once ``limit`` messages went up (a crash, in effect)."""

    def __init__(self, limit: int) -> None:
        super().__init__(every=1e9)
        self.limit, self.sent = limit, 0

    def advance(self, count: int = 1) -> None:
        super().advance(count)
        if self.label.startswith("importing messages"):
            self.sent += count
            if self.sent >= self.limit:
                raise _Interrupt


async def test_an_interrupted_import_resumes_where_it_stopped_and_doubles_nothing(
    world: World, tmp_path: Path
) -> None:
    archive = tmp_path / "alice.tar"
    await _export(world.a.rest_url, world.alice.key, archive)
    with pytest.raises(_Interrupt):
        await _import(world.b.rest_url, world.admin_b.key, archive, batch=3, progress=_StopAfter(4))
    resumed = await _import(world.b.rest_url, world.admin_b.key, archive, batch=3)
    # Two batches of three were in when it stopped: the rest, and the contact after them.
    assert resumed.resumed and resumed.created == {"message": 11 - 6, "contact": 1}
    alice_b = await _alice_on_b(world)
    async with httpx.AsyncClient(base_url=world.b.rest_url, headers={"X-API-Key": alice_b}) as c:
        room_b = ok(await c.get("/api/v1/me/chats"))["data"][0]["id"]
    got, _ = await _read(world.b.rest_url, alice_b, room_b)
    assert [m["seq"] for m in got] == list(range(1, 12))


async def test_an_admin_exports_the_whole_deployment(world: World, tmp_path: Path) -> None:
    async with httpx.AsyncClient(
        base_url=world.a.rest_url, headers={"X-API-Key": world.bob.key}
    ) as c:
        ok(await c.post("/api/v1/me/chats", json={"chat": {"title": "Bob alone"}}), 201)
    archive = tmp_path / "all"
    exported = await _export(world.a.rest_url, world.admin_a.key, archive, "deployment")
    assert exported.counts["room"] == 2 and exported.counts["person"] == 3
    done = await _import(world.b.rest_url, world.admin_b.key, archive)
    assert done.created["room"] == 2
    bob_b = _key(done, "@bob")
    async with httpx.AsyncClient(base_url=world.b.rest_url, headers={"X-API-Key": bob_b}) as c:
        titles = sorted(r["title"] for r in ok(await c.get("/api/v1/me/chats"))["data"])
    assert titles == ["Bob alone", "Launch"]


async def test_only_an_admin_imports_and_a_batch_out_of_order_changes_nothing(
    world: World,
) -> None:
    url = world.b.rest_url
    async with httpx.AsyncClient(base_url=url, headers={"X-API-Key": world.admin_b.key}) as c:
        run = ok(await c.post("/api/v1/admin/imports", json={"archive_id": "a-1"}), 201)["data"]
        again = ok(await c.post("/api/v1/admin/imports", json={"archive_id": "a-1"}))["data"]
        assert again["id"] == run["id"]
        records = f"/api/v1/admin/imports/{run['id']}/records"
        message = {
            "id": "m1",
            "chat_room_id": "r-unknown",
            "seq": 1,
            "content": "hi",
            "message_type": "text",
            "sender_id": "p1",
            "sender_type": "User",
            "inserted_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        }
        refused = await c.post(records, json={"kind": "message", "records": [message]})
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "import_out_of_order"
        bad = await c.post(records, json={"kind": "message", "records": [{**message, "seq": 0}]})
        assert bad.status_code == 422
        assert "/records/0/seq" in bad.json()["error"]["details"]
        state = ok(await c.get(f"/api/v1/admin/imports/{run['id']}"))["data"]
        assert state["applied"] == {} and state["status"] == "running"
        # A person made by an import: its key is shown this once, and never cached.
        zed = {"id": "p-zed", "name": "Zed", "handle": "zed"}
        made = await c.post(records, json={"kind": "person", "records": [zed]})
        assert ok(made)["data"]["records"][0]["api_key"].startswith("band_u_")
        assert made.headers["cache-control"] == "no-store"
    stranger = await world.b.person("stranger")
    async with httpx.AsyncClient(base_url=url, headers={"X-API-Key": stranger.key}) as c:
        denied = await c.post("/api/v1/admin/imports", json={"archive_id": "a-2"})
    assert denied.status_code == 403
    assert denied.json()["error"]["code"] == "admin_required"
