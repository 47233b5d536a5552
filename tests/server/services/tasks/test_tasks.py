"""Room tasks and the board on both surfaces: lifecycle, statuses, history, timeline, refusals."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from agent_testkit import World, counts, make_room, make_world, recording
from sqlalchemy import func, select

from band_server.context import Platform
from band_server.services.tasks import room_tasks as tasks
from band_server.store.models import BoardHistory, TaskHistory
from conftest import Seeded, make_user


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


def agent_url(w: World, suffix: str, room_id: str | None = None) -> str:
    return f"/api/v1/agent/chats/{room_id or w.room_id}{suffix}"


def human_url(w: World, suffix: str, room_id: str | None = None) -> str:
    return f"/api/v1/me/chats/{room_id or w.room_id}{suffix}"


async def create(
    client: httpx.AsyncClient, w: World, subject: str = "Write the report", **extra: Any
) -> dict[str, Any]:
    r = await client.post(
        agent_url(w, "/tasks"), headers=w.echo_key, json={"subject": subject, **extra}
    )
    assert r.status_code == 201, r.text
    task: dict[str, Any] = r.json()["data"]
    return task


async def update(
    client: httpx.AsyncClient, w: World, ref: str | int, headers: dict[str, str], **body: Any
) -> httpx.Response:
    url = agent_url(w, f"/tasks/{ref}") if headers == w.echo_key else human_url(w, f"/tasks/{ref}")
    return await client.post(url, headers=headers, json=body)


async def history_rows(platform: Platform) -> int:
    async with platform.db.read() as session:
        tasks = await session.scalar(select(func.count()).select_from(TaskHistory))
        boards = await session.scalar(select(func.count()).select_from(BoardHistory))
        return int(tasks or 0) + int(boards or 0)


def assert_error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    error: dict[str, Any] = r.json()["error"]
    assert error["code"] == code and error["message"] and error["request_id"]
    return error


# -- creating and reading --------------------------------------------------------------------


async def test_created_task_has_the_contract_shape_a_number_and_a_timeline_event(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        task = await create(client, w, detail="Q3 numbers")
    assert task["number"] == 1
    assert task["chat_room_id"] == w.room_id
    assert (task["subject"], task["detail"]) == ("Write the report", "Q3 numbers")
    assert (task["state"], task["overall_status"]) == ("active", "pending")
    assert task["assignments"] == []
    assert task["created_by"] == {
        "id": w.echo,
        "name": "Echo",
        "handle": w.seeded.agent_handle,
        "type": "Agent",
    }
    assert task["superseded_by_id"] is None
    assert task["started_at"] is None and task["completed_at"] is None
    assert task["inserted_at"].endswith("Z") and task["updated_at"].endswith("Z")
    assert (await create(client, w, "Second"))["number"] == 2

    [pushed] = rec.events("message_created")
    assert pushed.agents == frozenset() and pushed.users is True  # never starts a turn
    assert pushed.payload["message_type"] == "task"
    assert pushed.payload["content"] == 'Echo created task #1 "Write the report"'
    meta = pushed.payload["metadata"]["band_task"]
    assert meta["event"] == "created" and meta["task_id"] == task["id"] and meta["number"] == 1
    log = await client.get(human_url(w, "/messages"), headers=w.alice_key)
    assert [m["message_type"] for m in log.json()["data"]] == ["task", "task"]


async def test_a_task_is_read_by_id_number_or_hash_number(
    client: httpx.AsyncClient, w: World
) -> None:
    task = await create(client, w)
    for ref in (task["id"], "1", "%231"):
        r = await client.get(agent_url(w, f"/tasks/{ref}"), headers=w.echo_key)
        assert r.status_code == 200 and r.json()["data"]["id"] == task["id"]
    r = await client.get(
        human_url(w, "/tasks/1"), headers=w.alice_key, params={"include": "history"}
    )
    data = r.json()["data"]
    assert [h["event"] for h in data["history"]] == ["created"]
    assert data["history"][0]["payload"] == {"subject": "Write the report", "detail": ""}
    assert data["history_truncated"] is False


async def test_listing_filters_by_state_and_pages_by_number(
    client: httpx.AsyncClient, w: World
) -> None:
    for n in range(3):
        await create(client, w, f"Task {n + 1}")
    await update(client, w, 2, w.echo_key, state="cancelled")
    active = await client.get(agent_url(w, "/tasks"), headers=w.echo_key)
    assert [t["number"] for t in active.json()["data"]] == [1, 3]
    assert active.json()["metadata"] == {"has_more": False, "limit": 50, "next_cursor": None}
    cancelled = await client.get(
        agent_url(w, "/tasks"), headers=w.echo_key, params={"state": "cancelled"}
    )
    assert [t["number"] for t in cancelled.json()["data"]] == [2]
    first = await client.get(
        agent_url(w, "/tasks"), headers=w.echo_key, params={"state": "all", "limit": 2}
    )
    meta = first.json()["metadata"]
    assert [t["number"] for t in first.json()["data"]] == [1, 2] and meta["has_more"] is True
    rest = await client.get(
        agent_url(w, "/tasks"),
        headers=w.echo_key,
        params={"state": "all", "limit": 2, "cursor": meta["next_cursor"]},
    )
    assert [t["number"] for t in rest.json()["data"]] == [3]
    assert rest.json()["metadata"]["has_more"] is False


# -- statuses ---------------------------------------------------------------------------------


async def test_status_writes_join_the_caller_and_roll_up(
    client: httpx.AsyncClient, w: World
) -> None:
    await create(client, w)
    r = await update(client, w, 1, w.echo_key, status="in_progress", active_form="Drafting")
    task = r.json()["data"]
    [mine] = task["assignments"]
    assert mine["assignee"]["id"] == w.echo and mine["status"] == "in_progress"
    assert mine["active_form"] == "Drafting" and mine["linked_native_id"] == ""
    assert task["overall_status"] == "in_progress" and task["started_at"] is not None

    r = await update(client, w, 1, w.alice_key, status="completed")
    assert r.json()["data"]["overall_status"] == "in_progress"  # Echo is still at it
    r = await update(client, w, 1, w.echo_key, status="in_review")
    assert r.json()["data"]["overall_status"] == "in_review"
    r = await update(client, w, 1, w.echo_key, status="completed", linked_native_id="gh-7")
    task = r.json()["data"]
    assert task["overall_status"] == "completed" and task["completed_at"] is not None
    assert len(task["assignments"]) == 2

    history = await client.get(agent_url(w, "/tasks/1/history"), headers=w.echo_key)
    rows = history.json()["data"]
    assert [(h["event"], h["actor"]["id"]) for h in rows] == [
        ("created", w.echo),
        ("status_changed", w.echo),
        ("status_changed", w.alice),
        ("status_changed", w.echo),
        ("status_changed", w.echo),
    ]
    assert rows[1]["payload"] == {"status": {"from": "pending", "to": "in_progress"}}
    assert rows[4]["payload"] == {
        "status": {"from": "in_review", "to": "completed"},
        "linked_native_id": "gh-7",
    }
    log = await client.get(human_url(w, "/messages"), headers=w.alice_key)
    texts = [m["content"] for m in log.json()["data"]]
    assert 'Echo moved task #1 "Write the report" from pending to in_progress' in texts


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        (["completed"], "pending"),
        (["in_progress", "completed"], "failed"),
        (["blocked"], "completed"),
        ([], "in_review"),
        (["failed"], "completed"),
    ],
)
async def test_invalid_status_transitions_are_refused_and_change_nothing(
    client: httpx.AsyncClient, platform: Platform, w: World, path: list[str], refused: str
) -> None:
    await create(client, w)
    for status in path:
        assert (await update(client, w, 1, w.echo_key, status=status)).status_code == 200
    before = (await counts(platform, w.room_id), await history_rows(platform))
    r = await update(client, w, 1, w.echo_key, status=refused, comment="trying")
    error = assert_error(r, 422, "invalid_status_transition")
    assert refused in error["details"]["/status"][0]
    assert (await counts(platform, w.room_id), await history_rows(platform)) == before


async def test_the_same_status_again_changes_nothing(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    await create(client, w)
    await update(client, w, 1, w.echo_key, status="in_progress")
    before = await history_rows(platform)
    r = await update(client, w, 1, w.echo_key, status="in_progress", active_form="Still going")
    assert (
        r.status_code == 200 and r.json()["data"]["assignments"][0]["active_form"] == "Still going"
    )
    assert await history_rows(platform) == before


# -- lifecycle --------------------------------------------------------------------------------


async def test_finish_and_tidy_in_one_call_then_only_comments_until_restored(
    client: httpx.AsyncClient, w: World
) -> None:
    await create(client, w)
    r = await update(client, w, 1, w.echo_key, status="completed", state="archived")
    assert r.json()["data"]["state"] == "archived"
    assert r.json()["data"]["overall_status"] == "completed"
    assert_error(
        await update(client, w, 1, w.echo_key, status="in_progress"), 422, "task_not_active"
    )
    assert_error(await update(client, w, 1, w.echo_key, subject="New"), 422, "task_not_active")
    assert (await update(client, w, 1, w.echo_key, comment="archived, fine")).status_code == 200
    r = await update(client, w, 1, w.alice_key, state="active")
    assert r.json()["data"]["state"] == "active"
    history = await client.get(agent_url(w, "/tasks/1/history"), headers=w.echo_key)
    rows = history.json()["data"]
    assert [h["event"] for h in rows] == [
        "created",
        "status_changed",
        "archived",
        "commented",
        "unarchived",
    ]
    assert rows[2]["payload"] == {"state": {"from": "active", "to": "archived"}}
    assert rows[3]["payload"] == {"text": "archived, fine"}


@pytest.mark.parametrize(("first", "then"), [("cancelled", "active"), ("cancelled", "archived")])
async def test_cancelled_is_final(
    client: httpx.AsyncClient, platform: Platform, w: World, first: str, then: str
) -> None:
    await create(client, w)
    assert (await update(client, w, 1, w.echo_key, state=first)).status_code == 200
    before = await history_rows(platform)
    assert_error(
        await update(client, w, 1, w.echo_key, state=then), 422, "invalid_state_transition"
    )
    assert await history_rows(platform) == before


async def test_superseding_retires_the_old_task_and_points_at_the_new(
    client: httpx.AsyncClient, w: World
) -> None:
    old = await create(client, w, "Old plan")
    new = await create(client, w, "New plan", supersedes_id="#1")
    got = await client.get(agent_url(w, f"/tasks/{old['id']}"), headers=w.echo_key)
    data = got.json()["data"]
    assert data["state"] == "superseded" and data["superseded_by_id"] == new["id"]
    history = await client.get(agent_url(w, "/tasks/1/history"), headers=w.echo_key)
    assert history.json()["data"][-1] == {
        "event": "superseded",
        "actor": history.json()["data"][-1]["actor"],
        "at": history.json()["data"][-1]["at"],
        "payload": {"state": {"from": "active", "to": "superseded"}, "superseded_by_id": new["id"]},
    }
    r = await client.post(
        agent_url(w, "/tasks"), headers=w.echo_key, json={"subject": "x", "supersedes_id": "1"}
    )
    assert_error(r, 422, "task_not_active")
    r = await client.post(
        agent_url(w, "/tasks"), headers=w.echo_key, json={"subject": "x", "supersedes_id": "99"}
    )
    assert_error(r, 422, "unknown_task")
    assert_error(
        await update(client, w, 1, w.echo_key, state="active"), 422, "invalid_state_transition"
    )


async def test_edits_record_from_and_to(client: httpx.AsyncClient, w: World) -> None:
    await create(client, w, detail="old detail")
    r = await update(client, w, 1, w.alice_key, subject="Write the final report", detail="new")
    assert r.json()["data"]["subject"] == "Write the final report"
    history = await client.get(human_url(w, "/tasks/1/history"), headers=w.alice_key)
    assert history.json()["data"][-1]["payload"] == {
        "subject": {"from": "Write the report", "to": "Write the final report"},
        "detail": {"from": "old detail", "to": "new"},
    }


async def test_history_pages_with_a_cursor(client: httpx.AsyncClient, w: World) -> None:
    await create(client, w)
    for n in range(4):
        await update(client, w, 1, w.echo_key, comment=f"note {n}")
    first = await client.get(
        agent_url(w, "/tasks/1/history"), headers=w.echo_key, params={"limit": 3}
    )
    meta = first.json()["metadata"]
    assert meta["has_more"] is True and meta["limit"] == 3
    rest = await client.get(
        agent_url(w, "/tasks/1/history"),
        headers=w.echo_key,
        params={"limit": 3, "cursor": meta["next_cursor"]},
    )
    events = [h["payload"].get("text") for h in first.json()["data"] + rest.json()["data"]]
    assert events == [None, "note 0", "note 1", "note 2", "note 3"]
    bad = await client.get(
        agent_url(w, "/tasks/1/history"), headers=w.echo_key, params={"cursor": "zz"}
    )
    assert_error(bad, 422, "validation_error")


# -- the board ---------------------------------------------------------------------------------


async def test_board_starts_empty_then_records_only_real_changes(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    empty = await client.get(agent_url(w, "/board"), headers=w.echo_key)
    assert empty.json()["data"] == {
        "chat_room_id": w.room_id,
        "goal_title": None,
        "goal_summary": None,
        "created_by": None,
        "updated_by": None,
        "inserted_at": None,
        "updated_at": None,
        "history": None,
        "history_truncated": None,
    }
    r = await client.put(agent_url(w, "/board"), headers=w.echo_key, json={"goal_title": "Ship v1"})
    board = r.json()["data"]
    assert board["goal_title"] == "Ship v1" and board["created_by"]["id"] == w.echo
    before = await history_rows(platform)
    again = await client.put(
        agent_url(w, "/board"), headers=w.echo_key, json={"goal_title": "Ship v1"}
    )
    assert again.status_code == 200 and await history_rows(platform) == before
    r = await client.put(
        human_url(w, "/board"), headers=w.alice_key, json={"goal_summary": "Everything by Friday"}
    )
    assert r.json()["data"]["updated_by"]["id"] == w.alice
    got = await client.get(
        agent_url(w, "/board"), headers=w.echo_key, params={"include": "history"}
    )
    history = got.json()["data"]["history"]
    assert [(h["event"], h["payload"]) for h in history] == [
        ("goal_set", {"goal_title": {"from": None, "to": "Ship v1"}}),
        ("goal_edited", {"goal_summary": {"from": None, "to": "Everything by Friday"}}),
    ]
    log = await client.get(human_url(w, "/messages"), headers=w.alice_key)
    [second, first] = [m for m in log.json()["data"] if "band_board" in m["metadata"]]
    assert first["content"] == 'Echo set the room goal: "Ship v1"'
    assert second["metadata"]["band_board"]["event"] == "goal_edited"


# -- refused input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [{}, {"subject": "   "}, {"subject": "x" * 501}, {"detail": "no subject"}, {"subject": 5}],
)
async def test_bad_create_bodies_are_422_and_change_nothing(
    client: httpx.AsyncClient, platform: Platform, w: World, body: dict[str, Any]
) -> None:
    before = await counts(platform, w.room_id)
    r = await client.post(agent_url(w, "/tasks"), headers=w.echo_key, json=body)
    assert_error(r, 422, "validation_error")
    assert await counts(platform, w.room_id) == before and await history_rows(platform) == 0


@pytest.mark.parametrize(
    "body", [{}, {"status": "done"}, {"state": "superseded"}, {"subject": ""}, {"comment": 3}]
)
async def test_bad_update_bodies_are_422(
    client: httpx.AsyncClient, platform: Platform, w: World, body: dict[str, Any]
) -> None:
    await create(client, w)
    before = await history_rows(platform)
    r = await update(client, w, 1, w.echo_key, **body)
    assert_error(r, 422, "validation_error")
    assert await history_rows(platform) == before


async def test_malformed_json_is_400(client: httpx.AsyncClient, w: World) -> None:
    for method, url in (("POST", "/tasks"), ("PUT", "/board")):
        r = await client.request(
            method,
            agent_url(w, url),
            headers={**w.echo_key, "content-type": "application/json"},
            content=b"{not json",
        )
        assert_error(r, 400, "malformed_json")
    assert_error(
        await client.put(agent_url(w, "/board"), headers=w.echo_key, json={}),
        422,
        "validation_error",
    )


async def test_unknown_ids_another_rooms_task_and_foreign_rooms_are_the_same_404(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    side = await make_room(platform, w.alice, w.echo, title="Side")
    r = await client.post(
        agent_url(w, "/tasks", side), headers=w.echo_key, json={"subject": "side"}
    )
    theirs = r.json()["data"]
    await create(client, w)
    carol_id, _ = await make_user(platform, "carol")
    foreign = await make_room(platform, carol_id, title="Carol's")
    for url in (
        agent_url(w, f"/tasks/{theirs['id']}"),
        agent_url(w, "/tasks/2"),
        agent_url(w, "/tasks/00000000-0000-0000-0000-000000000000"),
        agent_url(w, f"/tasks/{'9' * 40}"),
        agent_url(w, f"/tasks/{theirs['id']}/history"),
        agent_url(w, "/tasks", foreign),
        agent_url(w, "/board", foreign),
    ):
        assert_error(await client.get(url, headers=w.echo_key), 404, "not_found")
    before = await history_rows(platform)
    assert_error(
        await client.post(
            agent_url(w, f"/tasks/{theirs['id']}"), headers=w.echo_key, json={"comment": "hi"}
        ),
        404,
        "not_found",
    )
    assert_error(
        await client.post(
            agent_url(w, "/tasks", foreign), headers=w.echo_key, json={"subject": "x"}
        ),
        404,
        "not_found",
    )
    assert_error(
        await client.put(
            agent_url(w, "/board", foreign), headers=w.echo_key, json={"goal_title": "x"}
        ),
        404,
        "not_found",
    )
    assert await history_rows(platform) == before


async def test_wrong_kind_of_key_is_403(client: httpx.AsyncClient, w: World) -> None:
    r = await client.get(agent_url(w, "/tasks"), headers=w.alice_key)
    assert_error(r, 403, "agent_key_required")
    r = await client.get(human_url(w, "/board"), headers=w.echo_key)
    assert_error(r, 403, "user_key_required")


async def test_agent_me_says_room_tasks_are_served(client: httpx.AsyncClient, w: World) -> None:
    r = await client.get("/api/v1/agent/me", headers=w.echo_key)
    assert r.json()["data"]["feature_flags"]["ff_room_tasks"] is True


async def test_task_counts_per_room_count_active_tasks_by_status(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    for n in range(3):
        await create(client, w, f"Task {n + 1}")
    await update(client, w, 1, w.echo_key, status="in_progress")
    await update(client, w, 2, w.echo_key, status="completed")
    await update(client, w, 3, w.echo_key, state="cancelled")
    empty = await make_room(platform, w.alice, title="Empty")
    async with platform.db.read() as session:
        counts = await tasks.task_counts(session, [w.room_id, empty])
    zero = dict.fromkeys(
        ("pending", "in_progress", "blocked", "in_review", "failed", "completed"), 0
    )
    assert counts == {w.room_id: {**zero, "in_progress": 1, "completed": 1}, empty: zero}
