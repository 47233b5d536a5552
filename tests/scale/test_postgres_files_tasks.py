"""Files, tasks and the board on a real PostgreSQL, with concurrent writers."""

from __future__ import annotations

import asyncio

from .test_postgres import Pg, pg  # noqa: F401  (fixture)


async def test_concurrent_task_creates_get_distinct_numbers_and_updates_land(
    pg: Pg,  # noqa: F811
) -> None:
    async def create(n: int) -> int:
        r = await pg.client.post(pg.room("/tasks"), headers=pg.agent, json={"subject": f"Task {n}"})
        assert r.status_code == 201, r.text
        return int(r.json()["data"]["number"])

    numbers = await asyncio.gather(*(create(n) for n in range(12)))
    assert sorted(numbers) == list(range(1, 13))
    r = await pg.client.post(pg.room("/tasks/3"), headers=pg.agent, json={"status": "in_progress"})
    assert r.json()["data"]["overall_status"] == "in_progress"
    r = await pg.client.post(pg.room("/tasks/3"), headers=pg.agent, json={"status": "in_review"})
    r = await pg.client.post(pg.room("/tasks/3"), headers=pg.agent, json={"status": "pending"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_status_transition"
    history = await pg.client.get(pg.room("/tasks/3/history"), headers=pg.agent)
    assert [h["event"] for h in history.json()["data"]] == [
        "created",
        "status_changed",
        "status_changed",
    ]
    board = await pg.client.put(pg.room("/board"), headers=pg.agent, json={"goal_title": "Ünï ✓"})
    assert board.json()["data"]["goal_title"] == "Ünï ✓"


async def test_concurrent_uploads_of_the_same_bytes_are_one_record(pg: Pg) -> None:  # noqa: F811
    async def upload(name: str) -> dict[str, object]:
        headers = {**pg.agent, "x-file-name": name, "content-type": "text/plain"}
        r = await pg.client.put(pg.room("/files"), headers=headers, content=b"same bytes")
        assert r.status_code in (200, 201), r.text
        data: dict[str, object] = r.json()["data"]
        return data

    answers = await asyncio.gather(*(upload(f"copy-{n}.txt") for n in range(6)))
    assert len({a["id"] for a in answers}) == 1
    file_id = answers[0]["id"]
    got = await pg.client.get(pg.room(f"/files/{file_id}"), headers=pg.agent)
    assert got.content == b"same bytes"
    r = await pg.client.post(
        pg.room("/messages"),
        headers=pg.agent,
        json={
            "message": {
                "content": "see file",
                "mentions": [{"handle": "alice"}],
                "attachment_ids": [file_id],
            }
        },
    )
    assert r.status_code == 201, r.text
    log = await pg.client.get(
        f"/api/v1/me/chats/{pg.room_id}/messages", params={"sort_order": "asc"}, headers=pg.alice
    )
    assert log.json()["data"][-1]["attachments"][0]["id"] == file_id
