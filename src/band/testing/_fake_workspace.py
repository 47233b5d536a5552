"""The fake platform's files, tasks and board: routes answered in memory, the platform's rules.

Errors are the platform's: ``BandRestError`` with the status and code the REST API answers
(404 ``not_found``, 422 ``invalid_status_transition``, ...), so tools translate them the same.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Mapping
from typing import Any

from band.platform.errors import BandRestError
from band_protocol import iso, utcnow
from band_protocol.tasks import STATE_MOVES, STATUS_MOVES, overall_status, state_event

from ._fake_routes import Call, Routes

__all__ = ["FakeWorkspace"]

Page = tuple[list[dict[str, Any]], dict[str, Any]]
CHAT = "/agent/chats/{room}"
TASK = CHAT + "/tasks/{task}"
FILE_FIELDS = ("id", "name", "content_type", "bytes", "sha256", "has_thumb", "expires_at")


def _not_found(what: str) -> BandRestError:
    return BandRestError(404, "not_found", f"{what} not found")


def _refused(code: str, pointer: str, message: str) -> BandRestError:
    return BandRestError(422, code, message, {pointer: [message]})


def _seed_file(seed: Mapping[str, Any], n: int) -> dict[str, Any]:
    raw = seed.get("content", b"")
    content = raw.encode() if isinstance(raw, str) else bytes(raw)
    entry = {
        "id": f"file-{n}",
        "name": f"file-{n}.txt",
        "content_type": "text/plain",
        "bytes": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
        "has_thumb": False,
        "expires_at": None,
    }
    return {**entry, **{k: v for k, v in seed.items() if k != "content"}, "content": content}


class FakeWorkspace:
    """Mixin of ``FakePlatform``: ``files`` (descriptors plus ``content`` bytes), ``tasks``
    and ``board`` are plain, mutable lists and dicts."""

    agent_id: str = "agent-fake"
    agent_name: str = "Fake Agent"
    routes: Routes

    def _init_workspace(
        self,
        files: Iterable[Mapping[str, Any]],
        tasks: Iterable[Mapping[str, Any]],
        board: Mapping[str, Any] | None,
    ) -> None:
        self._serial = itertools.count(1)
        self.files = [_seed_file(f, next(self._serial)) for f in files]
        self.tasks = [dict(t) for t in tasks]
        self.task_history: dict[str, list[dict[str, Any]]] = {}
        self.board: dict[str, Any] = dict(board or {})
        self.board_history: list[dict[str, Any]] = []
        for method, path, handler in (
            ("PUT", CHAT + "/files", self._upload),
            ("GET", CHAT + "/files/{file}", lambda call: self._file(call.path["file"])["content"]),
            ("GET", CHAT + "/tasks", self._list_tasks),
            ("POST", CHAT + "/tasks", self._create_task),
            ("GET", TASK, self._get_task),
            ("POST", TASK, self._update_task),
            ("GET", TASK + "/history", self._task_history),
            ("GET", CHAT + "/board", lambda call: {"data": self._board(call)}),
            ("PUT", CHAT + "/board", self._set_board),
        ):
            self.routes.add(method, path, handler)

    # files

    def file_view(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        return {k: entry.get(k) for k in FILE_FIELDS}

    def _file(self, file_id: str) -> dict[str, Any]:
        for entry in self.files:
            if entry["id"] == file_id:
                return entry
        raise _not_found("File")

    def check_attachments(self, attachment_ids: Iterable[str]) -> list[dict[str, Any]]:
        known = {f["id"] for f in self.files}
        missing = [i for i, a in enumerate(attachment_ids) if a not in known]
        if missing:
            raise _refused(
                "unknown_attachment", f"/message/attachment_ids/{missing[0]}", "unknown_attachment"
            )
        return [self.file_view(self._file(a)) for a in attachment_ids]

    def _upload(self, call: Call) -> dict[str, Any]:
        content, sha256 = call.content, call.headers["x-file-sha256"]
        filename, content_type = call.headers["x-file-name"], call.headers["content-type"]
        if hashlib.sha256(content).hexdigest() != sha256:
            raise _refused("checksum_mismatch", "/x-file-sha256", "x-file-sha256 does not match")
        for entry in self.files:
            if entry["sha256"] == sha256:
                return {"data": self.file_view(entry)}
        entry = _seed_file(
            {"name": filename, "content_type": content_type, "content": content},
            next(self._serial),
        )
        self.files.append(entry)
        return {"data": self.file_view(entry)}

    # The platform finds a room's files through the agent's context; the fake keeps a list.

    async def list_room_files(self, room_id: str, cursor: str | None = None) -> Page:
        return [self.file_view(f) for f in self.files], {"next_cursor": None, "has_more": False}

    async def find_room_file(self, room_id: str, file_id: str) -> dict[str, Any] | None:
        try:
            return self.file_view(self._file(file_id))
        except BandRestError:
            return None

    # tasks

    def _actor(self) -> dict[str, Any]:
        return {"id": self.agent_id, "name": self.agent_name, "handle": None, "type": "Agent"}

    def _log(self, task: dict[str, Any], event: str, payload: dict[str, Any]) -> None:
        row = {"event": event, "actor": self._actor(), "at": iso(utcnow()), "payload": payload}
        self.task_history.setdefault(task["id"], []).append(row)

    def _task(self, task_id: str) -> dict[str, Any]:
        ref = str(task_id).strip().removeprefix("#")
        for task in self.tasks:
            if task["id"] == ref or str(task["number"]) == ref:
                return task
        raise _not_found("Task")

    def _roll_up(self, task: dict[str, Any]) -> None:
        status = overall_status(a["status"] for a in task["assignments"])
        now = iso(utcnow())
        if status != "pending" and task.get("started_at") is None:
            task["started_at"] = now
        task["completed_at"] = (task.get("completed_at") or now) if status == "completed" else None
        task["overall_status"] = status
        task["updated_at"] = now

    def _list_tasks(self, call: Call) -> dict[str, Any]:
        wanted = call.query.get("state") or "active"
        rows = [t for t in self.tasks if wanted == "all" or t["state"] == wanted]
        size = call.number("limit") or 50
        meta = {"has_more": len(rows) > size, "limit": size, "next_cursor": None}
        return {"data": [dict(t) for t in rows[:size]], "metadata": meta}

    def _create_task(self, call: Call) -> dict[str, Any]:
        subject, detail = call.body["subject"], call.body.get("detail")
        supersedes_id = call.body.get("supersedes_id")
        old = self._task(supersedes_id) if supersedes_id else None
        if old is not None and old["state"] != "active":
            raise _refused("task_not_active", "/supersedes_id", "only an active task")
        now = iso(utcnow())
        task: dict[str, Any] = {
            "id": f"task-{next(self._serial)}",
            "number": max((t["number"] for t in self.tasks), default=0) + 1,
            "chat_room_id": call.path["room"],
            "subject": subject,
            "detail": detail or "",
            "state": "active",
            "overall_status": "pending",
            "assignments": [],
            "created_by": self._actor(),
            "superseded_by_id": None,
            "started_at": None,
            "completed_at": None,
            "inserted_at": now,
            "updated_at": now,
        }
        self.tasks.append(task)
        self._log(task, "created", {"subject": subject, "detail": task["detail"]})
        if old is not None:
            old.update(state="superseded", superseded_by_id=task["id"], updated_at=now)
            change = {"state": {"from": "active", "to": "superseded"}}
            self._log(old, "superseded", {**change, "superseded_by_id": task["id"]})
        return {"data": dict(task)}

    def _get_task(self, call: Call) -> dict[str, Any]:
        task = dict(self._task(call.path["task"]))
        if call.query.get("include") == "history":
            rows = self.task_history.get(task["id"], [])
            task.update(history=rows[-100:], history_truncated=len(rows) > 100)
        return {"data": task}

    def _update_task(self, call: Call) -> dict[str, Any]:
        fields: dict[str, Any] = call.body
        task = self._task(call.path["task"])
        state = fields.get("state")
        work = [k for k in ("status", "active_form", "subject", "detail") if fields.get(k)]
        if work and task["state"] != "active":
            raise _refused("task_not_active", f"/{work[0]}", f"task is {task['state']}")
        if state and state != task["state"] and state not in STATE_MOVES[task["state"]]:
            raise _refused("invalid_state_transition", "/state", f"{task['state']} to {state}")
        mine = next((a for a in task["assignments"] if a["assignee"]["id"] == self.agent_id), None)
        status = fields.get("status")
        if status:
            old = mine["status"] if mine else "pending"
            if status != old and status not in STATUS_MOVES[old]:
                raise _refused("invalid_status_transition", "/status", f"{old} to {status}")
            if mine is None:
                mine = {"assignee": self._actor(), "status": "pending", "active_form": ""}
                mine["linked_native_id"] = ""
                task["assignments"].append(mine)
            if status != old or mine["status"] != status:
                mine["status"] = status
                self._log(task, "status_changed", {"status": {"from": old, "to": status}})
            mine["updated_at"] = iso(utcnow())
        if fields.get("active_form") is not None and mine is not None:
            mine["active_form"] = fields["active_form"]
        for name in ("subject", "detail"):
            if fields.get(name) is not None and fields[name] != task[name]:
                self._log(task, "edited", {name: {"from": task[name], "to": fields[name]}})
                task[name] = fields[name]
        if fields.get("comment"):
            self._log(task, "commented", {"text": fields["comment"]})
        if state and state != task["state"]:
            change = {"state": {"from": task["state"], "to": state}}
            self._log(task, state_event(state), change)
            task["state"] = state
        self._roll_up(task)
        return {"data": dict(task)}

    def _task_history(self, call: Call) -> dict[str, Any]:
        rows = self.task_history.get(self._task(call.path["task"])["id"], [])
        start = int(call.query.get("cursor") or 0)
        size = call.number("limit") or 50
        more = len(rows) > start + size
        meta = {"has_more": more, "limit": size, "next_cursor": str(start + size) if more else None}
        return {"data": rows[start : start + size], "metadata": meta}

    # the board

    def _board(self, call: Call) -> dict[str, Any]:
        room = call.path["room"]
        board = {"chat_room_id": room, "goal_title": None, "goal_summary": None, **self.board}
        if call.query.get("include") == "history":
            board.update(history=self.board_history[-100:], history_truncated=False)
        return board

    def _set_board(self, call: Call) -> dict[str, Any]:
        goal_title, goal_summary = call.body.get("goal_title"), call.body.get("goal_summary")
        changes = {
            name: {"from": self.board.get(name), "to": value}
            for name, value in (("goal_title", goal_title), ("goal_summary", goal_summary))
            if value is not None and value != self.board.get(name)
        }
        if changes:
            first = not self.board_history
            now = iso(utcnow())
            row = {"event": "goal_set" if first else "goal_edited", "actor": self._actor()}
            self.board_history.append({**row, "at": now, "payload": changes})
            self.board.update({name: c["to"] for name, c in changes.items()})
            self.board.setdefault("created_by", self._actor())
            self.board.setdefault("inserted_at", now)
            self.board.update(updated_by=self._actor(), updated_at=now)
        return {"data": self._board(call)}
