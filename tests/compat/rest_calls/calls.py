"""The call table: one or more rows per public method of band-client-rest's sub-clients.

Runs inside a band-client-rest venv (imported by runner.py). Rows run in order and share one
`Ctx`: the seeded world (people, agents, rooms, requests) plus whatever earlier rows `keep`.
A row names the sub-client, the method, who calls it (`as_`: a person's handle or an agent's
short name), its arguments, and a `check` that asserts the answer means what the client's
docstring says (a real change, visible through a second read where it matters).

To cover a new method: add a `Call(...)` row; the runner fails any method that has none.
A method listed in PENDING_FILES_TASKS is reported PENDING instead of run (empty now: the
files, tasks and board rows are below).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from band_rest import RestClient
from band_rest.core.api_error import ApiError

PENDING_FILES_TASKS: frozenset[str] = frozenset()


class Ctx:
    """The seeded world, the ids rows keep, and one client per caller."""

    def __init__(self, world: dict[str, Any], version: str) -> None:
        self.world = world
        self.version = version
        self.kept: dict[str, Any] = {}
        self._clients: dict[str, RestClient] = {}

    @property
    def is_051(self) -> bool:
        return self.version == "0.0.51"

    def person(self, handle: str) -> dict[str, str]:
        return dict(self.world["people"][handle])

    def agent(self, name: str) -> dict[str, str]:
        return dict(self.world["agents"][name])

    def id(self, who: str) -> str:
        """The id of a seeded person or agent by handle / short name."""
        group = self.world["people"] if who in self.world["people"] else self.world["agents"]
        return str(group[who]["id"])

    def room(self, name: str) -> str:
        return str(self.kept.get(f"room:{name}") or self.world["rooms"][name])

    def __getitem__(self, key: str) -> Any:
        return self.kept[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.kept[key] = value

    def client(self, who: str) -> RestClient:
        if who not in self._clients:
            if who in self.world["people"]:
                key = self.world["people"][who]["key"]
            elif who in self.world["agents"]:
                key = self.world["agents"][who]["key"]
            else:
                key = self.kept[f"key:{who}"]
            self._clients[who] = RestClient(api_key=key, base_url=self.world["url"], timeout=30)
        return self._clients[who]

    def close(self) -> None:
        self._clients.clear()


Args = Callable[[Ctx], dict[str, Any]]
Hook = Callable[[Any, Ctx], None]


def _no_args(_: Ctx) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Call:
    sub: str
    method: str
    as_: str
    args: Args = _no_args
    keep: Hook | None = None
    check: Hook | None = None
    versions: tuple[str, ...] | None = None  # None: every client version
    returns_none: bool = False  # the method's 2xx answer has no body model
    returns_bytes: bool = False  # the method streams bytes (a download): checked joined
    label: str = ""


def expect_status(call: Callable[[], Any], status: int) -> None:
    """`call()` must raise the client's error for `status`."""
    try:
        call()
    except ApiError as exc:
        assert exc.status_code == status, f"expected {status}, got {exc.status_code}: {exc.body}"
        return
    raise AssertionError(f"expected {status}, the call succeeded")


def wait_until(probe: Callable[[], Any], *, within: float = 30.0, what: str) -> Any:
    deadline = time.monotonic() + within
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:.0f}s waiting for {what}")
        time.sleep(0.2)


def ids(rows: Any) -> list[str]:
    return [str(r.id) for r in rows]


def _set(key: str, get: Callable[[Any], Any]) -> Hook:
    def hook(answer: Any, ctx: Ctx) -> None:
        ctx[key] = get(answer)

    return hook


# ----------------------------------------------------------------------------- checks


def _profile(answer: Any, c: Ctx) -> None:
    me = c.person("alice")
    assert answer.data.id == me["id"] and answer.data.handle == "alice", answer.data
    assert answer.data.email == me["email"], f"email {answer.data.email!r}"
    assert answer.data.role == "admin", f"the first person is the admin, got {answer.data.role!r}"


def _profile_updated(answer: Any, c: Ctx) -> None:
    assert (answer.data.first_name, answer.data.last_name) == ("Alice", "Liddell"), answer.data
    again = c.client("alice").human_api_profile.get_my_profile().data
    assert (again.first_name, again.last_name) == ("Alice", "Liddell"), again


def _registered(answer: Any, c: Ctx) -> None:
    agent = answer.data.agent
    assert agent.owner_id == c.id("alice") and agent.name == "Scratch", agent
    c["scratch"] = agent.id
    c["key:scratch"] = answer.data.credentials.api_key
    assert c.client("scratch").agent_api_identity.get_agent_me().data.id == agent.id


def _agents_page(answer: Any, c: Ctx) -> None:
    meta = answer.data and answer.metadata
    assert len(answer.data) == 1 and meta.limit == 1 and meta.has_more, (answer.data, meta)
    params = {f.param for f in meta.available_filters}
    assert {"name", "is_external"} <= params, params
    assert {"name", "inserted_at"} <= {f.param for f in meta.sortable_fields}
    rest = c.client("alice").human_api_agents.list_my_agents(limit=100, cursor=meta.next_cursor)
    assert answer.data[0].id not in ids(rest.data), "the cursor page repeats a row"
    everyone = c.client("alice").human_api_agents.list_my_agents(limit=100)
    assert ids(everyone.data) == ids(answer.data) + ids(rest.data)
    assert all(a.is_external for a in everyone.data), "agents here run their own loop"


def _agents_by_name(answer: Any, c: Ctx) -> None:
    assert [a.name for a in answer.data] == ["Scratch"], [a.name for a in answer.data]


def _chat_created(answer: Any, c: Ctx) -> None:
    assert answer.data.title == "Contract room", answer.data
    c["room:contract"] = answer.data.id
    got = c.client("alice").human_api_chats.get_my_chat_room(id=answer.data.id)
    assert got.data.id == answer.data.id


def _chats_listed(answer: Any, c: Ctx) -> None:
    listed = ids(answer.data)
    assert c.room("main") in listed and c.room("contract") in listed, listed
    if c.is_051:
        row = next(r for r in answer.data if r.id == c.room("main"))
        assert row.my_role == "owner" and row.membership == "participant", row
        assert row.participant_count == len(row.participants or []) >= 3, row
        assert row.last_message is not None, "main has messages"
        assert answer.metadata.total_count == len(listed), answer.metadata


def _chat_read(answer: Any, c: Ctx) -> None:
    assert answer.data.id == c.room("main") and answer.data.title == "Main", answer.data
    if c.is_051:
        counts = answer.data.message_counts
        assert counts is not None and (counts.text or 0) >= 1, counts


def _participant_added(answer: Any, c: Ctx) -> None:
    assert answer.data.id == c.id("echo") and answer.data.type == "Agent", answer.data


def _participants(answer: Any, c: Ctx) -> None:
    assert {c.id("alice"), c.id("echo")} <= set(ids(answer.data)), ids(answer.data)
    assert answer.metadata is not None
    agents = c.client("alice").human_api_participants.list_my_chat_participants(
        chat_id=c.room("contract"), participant_type="Agent"
    )
    assert ids(agents.data) == [c.id("echo")], ids(agents.data)


def _sent(answer: Any, c: Ctx) -> None:
    assert [r.id for r in answer.data.recipients] == [c.id("echo")], answer.data
    c["msg:hello"] = answer.data.id


def _messages(answer: Any, c: Ctx) -> None:
    assert c["msg:hello"] in ids(answer.data), ids(answer.data)
    assert answer.metadata.limit == 5


def _around(answer: Any, c: Ctx) -> None:
    assert c["msg:hello"] in ids(answer.data), ids(answer.data)


def _text_only(answer: Any, c: Ctx) -> None:
    assert answer.data and all(m.message_type == "text" for m in answer.data), answer.data


def _peers(answer: Any, c: Ctx) -> None:
    assert c.id("echo") in ids(answer.data) and c.id("bob") in ids(answer.data), ids(answer.data)


def _agent_peers(answer: Any, c: Ctx) -> None:
    assert answer.data and all(p.type == "Agent" for p in answer.data), answer.data


def _resolved(answer: Any, c: Ctx) -> None:
    assert (answer.data.type, answer.data.handle) == ("User", "bob"), answer.data


def _contacts(answer: Any, c: Ctx) -> None:
    assert c.id("bob") in [x.contact_id for x in answer.data], answer.data
    bob = next(x for x in answer.data if x.contact_id == c.id("bob"))
    assert bob.contact_type == "User" and bob.user is not None and bob.user.handle == "bob"


def _request_created(answer: Any, c: Ctx) -> None:
    req = answer.data
    assert (req.requester_id, req.recipient_id) == (c.id("alice"), c.id("erin")), req
    assert req.status == "pending" and req.message == "Shall we?", req
    c["req:erin"] = req.id


def _sent_requests(answer: Any, c: Ctx) -> None:
    assert c["req:erin"] in ids(answer.data), ids(answer.data)


def _cancelled(answer: Any, c: Ctx) -> None:
    assert answer.data.status == "cancelled"
    left = c.client("alice").human_api_contacts.list_sent_contact_requests(status="pending")
    assert c["req:erin"] not in ids(left.data)


def _received(answer: Any, c: Ctx) -> None:
    got = ids(answer.data)
    assert {c.world["requests"]["carol"], c.world["requests"]["dave"]} <= set(got), got
    carol = next(r for r in answer.data if r.id == c.world["requests"]["carol"])
    assert (carol.requester_id, carol.recipient_id) == (c.id("carol"), c.id("alice")), carol


def _approved(answer: Any, c: Ctx) -> None:
    assert answer.data.status == "approved"
    mine = c.client("alice").human_api_contacts.list_my_contacts()
    assert c.id("carol") in [x.contact_id for x in mine.data]


def _rejected(answer: Any, c: Ctx) -> None:
    assert answer.data.status == "rejected"
    mine = c.client("alice").human_api_contacts.list_my_contacts()
    assert c.id("dave") not in [x.contact_id for x in mine.data]


def _removed_contact(answer: Any, c: Ctx) -> None:
    assert answer.data.status == "removed"
    mine = c.client("alice").human_api_contacts.list_my_contacts()
    assert c.id("carol") not in [x.contact_id for x in mine.data]


def _memory(content: str, key: str) -> Args:
    def args(c: Ctx) -> dict[str, Any]:
        return {
            "memory": {
                "content": content,
                "segment": "user",
                "system": "long_term",
                "type": "semantic",
                "thought": "Said in the contract room",
                "scope": "subject",
                "subject_id": c.id("alice"),
            }
        }

    return args


def _memory_kept(key: str) -> Hook:
    def hook(answer: Any, c: Ctx) -> None:
        assert answer.data is not None and answer.data.subject_id == c.id("alice"), answer.data
        c[key] = answer.data.id

    return hook


def _memory_status(key: str, status: str) -> Hook:
    def check(answer: Any, c: Ctx) -> None:
        assert answer.data.id == c[key] and answer.data.status == status, answer.data

    return check


def _memory_listed(answer: Any, c: Ctx) -> None:
    assert c["mem:tea"] in ids(answer.data or []), ids(answer.data or [])


def _memory_deleted(_: Any, c: Ctx) -> None:
    expect_status(
        lambda: c.client("alice").human_api_memories.get_user_memory(id=c["mem:gone"]), 404
    )


def _agent_deleted(answer: Any, c: Ctx) -> None:
    assert answer.data.id == c["scratch"] and answer.data.executions_deleted == 0, answer.data
    expect_status(lambda: c.client("scratch").agent_api_identity.get_agent_me(), 401)


def _job_done(c: Ctx, job_id: str) -> Any:
    show = c.client("alice").human_api_bulk_deletions.show_my_bulk_deletion

    def probe() -> Any:
        job = show(id=job_id).data
        return job if job.status in ("completed", "failed") else None

    return wait_until(probe, what=f"bulk deletion {job_id} to finish")


def _chats_job(answer: Any, c: Ctx) -> None:
    job = answer.data
    assert job.resource_type == "chat" and job.total == 2, job
    c["job:chats"] = job.id
    done = _job_done(c, job.id)
    assert done.status == "completed", done
    assert [r.id for r in done.results] == [c.room("contract"), "not-a-room-id"], done.results
    assert [r.status for r in done.results] == ["succeeded", "failed"], done.results
    assert done.results[1].error is not None and done.results[1].error.code == "not_found"
    assert (done.succeeded, done.failed, done.processed) == (1, 1, 2), done
    expect_status(
        lambda: c.client("alice").human_api_chats.get_my_chat_room(id=c.room("contract")), 404
    )


def _register_spare(c: Ctx) -> dict[str, Any]:
    made = c.client("alice").human_api_agents.register_my_agent(
        agent={"name": "Spare", "description": "An agent the bulk deletion removes"}
    )
    c["spare"] = made.data.agent.id
    return {"ids": [made.data.agent.id], "force": True}


def _agents_job(answer: Any, c: Ctx) -> None:
    job = answer.data
    assert job.resource_type == "agent" and job.force is True, job
    done = _job_done(c, job.id)
    assert done.status == "completed" and done.succeeded == 1, done
    expect_status(lambda: c.client("alice").human_api_agents.delete_my_agent(id=c["spare"]), 404)


def _job_shown(answer: Any, c: Ctx) -> None:
    assert answer.data.id == c["job:chats"] and answer.data.status == "completed", answer.data


def _participant_removed(answer: Any, c: Ctx) -> None:
    assert answer.data.id == c.id("other"), answer.data
    left = c.client("alice").human_api_participants.list_my_chat_participants(
        chat_id=c.room("main")
    )
    assert c.id("other") not in ids(left.data)


# agent surface


def _me(answer: Any, c: Ctx) -> None:
    assert answer.data.id == c.id("echo") and answer.data.owner_uuid == c.id("alice")


def _agent_chats(answer: Any, c: Ctx) -> None:
    assert c.room("main") in ids(answer.data), ids(answer.data)
    if c.is_051:
        row = next(r for r in answer.data if r.id == c.room("main"))
        assert row.participants and c.id("alice") in ids(row.participants), row


def _agent_chat_created(answer: Any, c: Ctx) -> None:
    c["room:echo"] = answer.data.id
    assert answer.data.title == "Echo's room"


def _renamed(answer: Any, c: Ctx) -> None:
    assert answer.data.title == "Echo's renamed room", answer.data
    again = c.client("echo").agent_api_chats.get_agent_chat(id=c.room("echo"))
    assert again.data.title == "Echo's renamed room", again.data


def _next(answer: Any, c: Ctx) -> None:
    assert answer is not None and answer.data.id == c["msg:hello"], answer


def _status(status: str, attempt: int) -> Hook:
    def check(answer: Any, c: Ctx) -> None:
        assert (answer.data.status, answer.data.attempt_number) == (status, attempt), answer.data

    return check


def _second_message(c: Ctx) -> dict[str, Any]:
    sent = c.client("alice").human_api_messages.send_my_chat_message(
        chat_id=c.room("main"),
        message={"content": "@alice/echo second", "mentions": [{"id": c.id("echo")}]},
    )
    c["msg:second"] = sent.data.id
    c.client("echo").agent_api_messages.mark_agent_message_processing(
        chat_id=c.room("main"), id=sent.data.id
    )
    return {"chat_id": c.room("main"), "id": sent.data.id, "error": "the tool broke"}


def _queue(answer: Any, c: Ctx) -> None:
    assert {c["msg:hello"], c["msg:second"]} <= set(ids(answer.data)), ids(answer.data)


def _context(answer: Any, c: Ctx) -> None:
    assert c["msg:hello"] in ids(answer.data), ids(answer.data)


def _roster(answer: Any, c: Ctx) -> None:
    assert {c.id("alice"), c.id("echo"), c.id("bob")} <= set(ids(answer.data)), ids(answer.data)


NOTES = b"Q3 numbers: up and to the right\n"


def _file_stored(answer: Any, c: Ctx) -> None:
    att = answer.data
    assert (att.name, att.bytes, att.content_type) == ("notes.txt", len(NOTES), "text/plain"), att
    assert att.sha_256 == hashlib.sha256(NOTES).hexdigest() and att.has_thumb is False, att
    c["file"] = att.id
    again = c.client("echo").agent_api_files.upload_agent_chat_file(
        chat_id=c.room(M), request=NOTES, request_options=_file_headers("copy.txt")
    )
    assert again.data.id == att.id, "the same bytes in one room are one record"
    sent = c.client("echo").agent_api_messages.create_agent_chat_message(
        chat_id=c.room(M),
        message={
            "content": "Shared a file: notes.txt",
            "mentions": [{"id": c.id("alice")}],
            "attachment_ids": [att.id],
        },
    )
    context = c.client("echo").agent_api_context.get_agent_chat_context(chat_id=c.room(M))
    [shown] = [m for m in context.data if m.id == sent.data.id]
    assert [a.id for a in shown.attachments or []] == [att.id], shown


def _file_headers(name: str) -> dict[str, Any]:
    headers = {
        "x-file-name": name,
        "x-file-sha256": hashlib.sha256(NOTES).hexdigest(),
        "content-type": "text/plain",
    }
    return {"additional_headers": headers}


def _file_bytes(answer: Any, c: Ctx) -> None:
    assert answer == NOTES, answer
    ranged = b"".join(
        c.client("echo").agent_api_files.download_agent_chat_file(
            chat_id=c.room(M), id=c["file"], range="bytes=0-1"
        )
    )
    assert ranged == NOTES[:2], ranged
    expect_status(
        lambda: b"".join(
            c.client("echo").agent_api_files.download_agent_chat_file(
                chat_id=c.room(M), id="00000000-0000-0000-0000-000000000000"
            )
        ),
        404,
    )


def _task_created(answer: Any, c: Ctx) -> None:
    task = answer.data
    assert (task.number, task.state, task.overall_status) == (1, "active", "pending"), task
    assert task.created_by.id == c.id("echo") and task.assignments == [], task
    c["task"] = task.id


def _tasks_listed(answer: Any, c: Ctx) -> None:
    assert [t.id for t in answer.data] == [c["task"]], answer.data
    assert answer.metadata.has_more is False and answer.metadata.limit == 50, answer.metadata


def _task_moved(answer: Any, c: Ctx) -> None:
    task = answer.data
    [mine] = task.assignments
    assert (mine.assignee.id, mine.status, mine.active_form) == (
        c.id("echo"),
        "in_progress",
        "Drafting",
    ), mine
    assert task.overall_status == "in_progress", task
    if c.is_051:
        assert task.started_at is not None and task.completed_at is None, task
    # completed can't go to blocked: the platform refuses it with 422 and changes nothing.
    tasks = c.client("echo").agent_api_chat_tasks
    tasks.update_chat_task(chat_id=c.room(M), id="1", status="completed")
    expect_status(lambda: tasks.update_chat_task(chat_id=c.room(M), id="1", status="blocked"), 422)
    assert tasks.get_chat_task(chat_id=c.room(M), id="1").data.overall_status == "completed"


def _task_read(answer: Any, c: Ctx) -> None:
    task = answer.data
    assert task.id == c["task"] and task.history_truncated is False, task
    events = [h.event for h in task.history or []]
    assert events == ["created", "status_changed", "status_changed"], events


def _task_history(answer: Any, c: Ctx) -> None:
    rows = answer.data
    assert rows[1].payload == {"status": {"from": "pending", "to": "in_progress"}}, rows
    assert rows[1].actor.id == c.id("echo") and answer.metadata.has_more is False


def _goal_set(answer: Any, c: Ctx) -> None:
    board = answer.data
    assert (board.goal_title, board.goal_summary) == ("Ship Q3", None), board
    assert board.created_by is not None and board.created_by.id == c.id("echo"), board


def _goal_read(answer: Any, c: Ctx) -> None:
    board = answer.data
    assert board.goal_title == "Ship Q3" and board.chat_room_id == c.room(M), board
    assert [(h.event, h.payload) for h in board.history or []] == [
        ("goal_set", {"goal_title": {"from": None, "to": "Ship Q3"}})
    ], board.history


def _agent_contact(answer: Any, c: Ctx) -> None:
    assert answer.data is not None and answer.data.status == "approved", answer.data


def _agent_contacts(answer: Any, c: Ctx) -> None:
    assert c.id("alice") in ids(answer.data or []), answer.data


def _pending_to_helper(answer: Any, c: Ctx) -> None:
    assert answer.data is not None and answer.data.status == "pending", answer.data
    c["req:helper"] = answer.data.id


def _helper_requests(answer: Any, c: Ctx) -> None:
    assert c["req:helper"] in ids(answer.data.received), answer.data


def _helper_approved(answer: Any, c: Ctx) -> None:
    assert answer.data is not None and answer.data.status == "approved", answer.data


def _agent_contact_removed(answer: Any, c: Ctx) -> None:
    assert answer.data is not None and answer.data.status == "removed"
    left = c.client("echo").agent_api_contacts.list_agent_contacts()
    assert c.id("helper") not in ids(left.data or [])


def _token(answer: Any, c: Ctx) -> None:
    d = c.world["delegation"]
    assert answer.access_token and answer.obo.audience == d["audience"], answer
    assert (answer.obo.agent_uuid, answer.obo.originator_uuid) == (c.id("echo"), c.id("bob"))


def _delegation_args(c: Ctx) -> dict[str, Any]:
    sent = c.client("bob").human_api_messages.send_my_chat_message(
        chat_id=c.room("main"),
        message={"content": "@alice/echo read my calendar", "mentions": [{"id": c.id("echo")}]},
    )
    return {"audience": c.world["delegation"]["audience"], "message_id": sent.data.id}


def _agent_memories(answer: Any, c: Ctx) -> None:
    assert c["mem:tea"] in ids(answer.data or []), answer.data


def _agent_memory(answer: Any, c: Ctx) -> None:
    assert answer.data is not None and answer.data.id == c["mem:tea"], answer.data


def _left_room(answer: Any, c: Ctx) -> None:
    assert answer.data.id == c.id("other")
    roster = c.client("echo").agent_api_participants.list_agent_chat_participants(
        chat_id=c.room("echo")
    )
    assert c.id("other") not in ids(roster.data)


# a person reading the timeline the agent wrote, and walking their rooms


def _timeline(c: Ctx) -> list[Any]:
    """The room oldest first. The client documents its list as newest first: checked here."""
    rows = c.client("alice").human_api_messages.list_my_chat_messages(chat_id=c.room(M), limit=200)
    stamps = [m.inserted_at for m in rows.data]
    assert stamps == sorted(stamps, reverse=True), stamps
    return list(reversed(rows.data))


def _only_thoughts(answer: Any, c: Ctx) -> None:
    kinds = {m.message_type for m in answer.data}
    assert kinds == {"thought"}, kinds


def _no_tool_traffic(answer: Any, c: Ctx) -> None:
    kinds = {m.message_type for m in answer.data}
    assert "thought" not in kinds and "text" in kinds, kinds
    assert c["msg:hello"] in ids(answer.data)
    everything = _timeline(c)
    assert len(answer.data) == sum(m.message_type != "thought" for m in everything)


def _since_hello(c: Ctx) -> dict[str, Any]:
    hello = next(m for m in _timeline(c) if m.id == c["msg:hello"])
    c["at:hello"] = hello.inserted_at
    return {"chat_id": c.room(M), "since": hello.inserted_at, "limit": 200}


def _after_since(answer: Any, c: Ctx) -> None:
    got = ids(answer.data)
    later = [m.id for m in _timeline(c) if m.inserted_at > c["at:hello"]]
    assert got == later[::-1] and c["msg:hello"] not in got and later, (got, later)


def _after_hello(answer: Any, c: Ctx) -> None:
    timeline = ids(_timeline(c))
    at = timeline.index(c["msg:hello"])
    assert ids(answer.data) == timeline[at + 1 : at + 3], (ids(answer.data), timeline)
    assert answer.metadata.has_more == (len(timeline) > at + 3) and not answer.metadata.next_cursor


def _before_args(c: Ctx) -> dict[str, Any]:
    return {"chat_id": c.room(M), "before": _timeline(c)[-1].id, "limit": 2}


def _before_last(answer: Any, c: Ctx) -> None:
    timeline = ids(_timeline(c))
    assert ids(answer.data) == timeline[-3:-1][::-1], (ids(answer.data), timeline)


def _walked(answer: Any, c: Ctx) -> None:
    chats = c.client("alice").human_api_chats
    seen, page = ids(answer.data), answer
    while page.metadata.has_more:
        page = chats.list_my_chats(limit=1, cursor=page.metadata.next_cursor)
        assert len(page.data) == 1, page
        seen += ids(page.data)
    everyone = chats.list_my_chats(limit=100)
    assert seen == ids(everyone.data) and len(seen) >= 2, (seen, ids(everyone.data))
    newest_first = sorted(everyone.data, key=lambda r: (r.inserted_at, r.id), reverse=True)
    assert ids(everyone.data) == ids(newest_first), "the default order is newest first"


def _by_update(answer: Any, c: Ctx) -> None:
    stamps = [(r.updated_at, r.id) for r in answer.data]
    assert stamps == sorted(stamps) and len(stamps) >= 2, stamps


def _groups(answer: Any, c: Ctx) -> None:
    assert c.room(M) in ids(answer.data) and all(r.type == "group" for r in answer.data)
    direct = c.client("alice").human_api_chats.list_my_chats(type="direct")
    assert c.room("contract") in ids(direct.data), ids(direct.data)
    assert c.room(M) not in ids(direct.data)


def _active_only(answer: Any, c: Ctx) -> None:
    assert c.room(M) in ids(answer.data) and all(r.status == "active" for r in answer.data)
    archived = c.client("alice").human_api_chats.list_my_chats(status="archived")
    assert archived.data == [], "nothing is archived"


# ----------------------------------------------------------------------------- the table

M = "main"

CALLS: list[Call] = [
    # --- a person's profile, agents and rooms
    Call("human_api_profile", "get_my_profile", "alice", check=_profile),
    Call(
        "human_api_profile",
        "update_my_profile",
        "alice",
        lambda c: {"user": {"first_name": "Alice", "last_name": "Liddell"}},
        check=_profile_updated,
    ),
    Call(
        "human_api_agents",
        "register_my_agent",
        "alice",
        lambda c: {"agent": {"name": "Scratch", "description": "A scratch agent for the test"}},
        check=_registered,
    ),
    Call("human_api_agents", "list_my_agents", "alice", lambda c: {"limit": 1}, check=_agents_page),
    Call(
        "human_api_agents",
        "list_my_agents",
        "alice",
        lambda c: {"name": "Scratch", "sort": "name", "order": "asc"},
        check=_agents_by_name,
        label="filtered by name",
    ),
    Call(
        "human_api_chats",
        "create_my_chat_room",
        "alice",
        lambda c: {"chat": {"title": "Contract room"}},
        check=_chat_created,
    ),
    Call(
        "human_api_participants",
        "add_my_chat_participant",
        "alice",
        lambda c: {"chat_id": c.room("contract"), "participant": {"participant_id": c.id("echo")}},
        check=_participant_added,
    ),
    Call(
        "human_api_participants",
        "list_my_chat_participants",
        "alice",
        lambda c: {"chat_id": c.room("contract")},
        check=_participants,
    ),
    Call(
        "human_api_messages",
        "send_my_chat_message",
        "alice",
        lambda c: {
            "chat_id": c.room(M),
            "message": {"content": "@alice/echo hello", "mentions": [{"id": c.id("echo")}]},
        },
        check=_sent,
    ),
    Call(
        "human_api_messages",
        "list_my_chat_messages",
        "alice",
        lambda c: {"chat_id": c.room(M), "limit": 5},
        check=_messages,
    ),
    Call(
        "human_api_messages",
        "list_my_chat_messages",
        "alice",
        lambda c: {"chat_id": c.room(M), "message_types": ["text"], "limit": 20},
        check=_text_only,
        label="filtered by type",
    ),
    Call(
        "human_api_messages",
        "list_my_chat_messages",
        "alice",
        lambda c: {"chat_id": c.room(M), "around": c["msg:hello"], "limit": 3},
        check=_around,
        versions=("0.0.51",),
        label="around a message",
    ),
    Call(
        "human_api_chats",
        "list_my_chats",
        "alice",
        lambda c: (
            {"limit": 20, "include": ["membership", "participants", "last_message", "total_count"]}
            if c.is_051
            else {"limit": 20}
        ),
        check=_chats_listed,
    ),
    Call(
        "human_api_chats",
        "get_my_chat_room",
        "alice",
        lambda c: {"id": c.room(M), **({"include": ["message_counts"]} if c.is_051 else {})},
        check=_chat_read,
    ),
    Call("human_api_peers", "list_my_peers", "alice", check=_peers),
    Call(
        "human_api_peers",
        "list_my_peers",
        "alice",
        lambda c: {"type": "Agent"},
        check=_agent_peers,
        label="agents only",
    ),
    # --- a person's contacts
    Call(
        "human_api_contacts",
        "resolve_handle",
        "alice",
        lambda c: {"handle": "@bob"},
        check=_resolved,
    ),
    Call("human_api_contacts", "list_my_contacts", "alice", check=_contacts),
    Call(
        "human_api_contacts",
        "create_contact_request",
        "alice",
        lambda c: {"contact_request": {"recipient_handle": "erin", "message": "Shall we?"}},
        check=_request_created,
    ),
    Call("human_api_contacts", "list_sent_contact_requests", "alice", check=_sent_requests),
    Call(
        "human_api_contacts",
        "cancel_contact_request",
        "alice",
        lambda c: {"id": c["req:erin"]},
        check=_cancelled,
    ),
    Call("human_api_contacts", "list_received_contact_requests", "alice", check=_received),
    Call(
        "human_api_contacts",
        "approve_contact_request",
        "alice",
        lambda c: {"id": c.world["requests"]["carol"]},
        check=_approved,
    ),
    Call(
        "human_api_contacts",
        "reject_contact_request",
        "alice",
        lambda c: {"id": c.world["requests"]["dave"]},
        check=_rejected,
    ),
    Call(
        "human_api_contacts",
        "remove_my_contact",
        "alice",
        lambda c: {"handle": "carol"},
        check=_removed_contact,
    ),
    # --- an agent at work in the main room
    Call("agent_api_identity", "get_agent_me", "echo", check=_me),
    Call(
        "agent_api_chats",
        "list_agent_chats",
        "echo",
        lambda c: {"include": ["participants"]} if c.is_051 else {},
        check=_agent_chats,
    ),
    Call("agent_api_chats", "get_agent_chat", "echo", lambda c: {"id": c.room(M)}),
    Call(
        "agent_api_chats",
        "create_agent_chat",
        "echo",
        lambda c: {"chat": {"title": "Echo's room"}},
        check=_agent_chat_created,
    ),
    Call(
        "agent_api_chats",
        "rename_agent_chat",
        "echo",
        lambda c: {"id": c.room("echo"), "chat": {"title": "  Echo's renamed room "}},
        check=_renamed,
    ),
    Call(
        "agent_api_messages",
        "get_agent_next_message",
        "echo",
        lambda c: {"chat_id": c.room(M)},
        check=_next,
    ),
    Call(
        "agent_api_messages",
        "mark_agent_message_processing",
        "echo",
        lambda c: {"chat_id": c.room(M), "id": c["msg:hello"]},
        check=_status("processing", 1),
    ),
    Call(
        "agent_api_activity",
        "report_agent_chat_activity",
        "echo",
        lambda c: {"chat_id": c.room(M), "working": True, "activity": {"kind": "reasoning"}},
    ),
    Call(
        "agent_api_events",
        "create_agent_chat_event",
        "echo",
        lambda c: {
            "chat_id": c.room(M),
            "event": {"content": "Looking it up", "message_type": "thought"},
        },
    ),
    Call(
        "agent_api_messages",
        "create_agent_chat_message",
        "echo",
        lambda c: {
            "chat_id": c.room(M),
            "message": {"content": "@alice hello to you", "mentions": [{"id": c.id("alice")}]},
        },
    ),
    Call(
        "agent_api_messages",
        "mark_agent_message_processed",
        "echo",
        lambda c: {"chat_id": c.room(M), "id": c["msg:hello"]},
        check=_status("processed", 1),
    ),
    Call(
        "agent_api_messages",
        "mark_agent_message_failed",
        "echo",
        _second_message,
        check=_status("failed", 1),
    ),
    Call(
        "agent_api_messages",
        "list_agent_messages",
        "echo",
        lambda c: {"chat_id": c.room(M), "status": "all", "limit": 50},
        check=_queue,
    ),
    Call(
        "agent_api_context",
        "get_agent_chat_context",
        "echo",
        lambda c: {"chat_id": c.room(M), "limit": 50},
        check=_context,
    ),
    Call(
        "agent_api_participants",
        "list_agent_chat_participants",
        "echo",
        lambda c: {"chat_id": c.room(M)},
        check=_roster,
    ),
    Call(
        "agent_api_participants",
        "add_agent_chat_participant",
        "echo",
        lambda c: {"chat_id": c.room("echo"), "participant": {"participant_id": c.id("other")}},
    ),
    Call(
        "agent_api_participants",
        "remove_agent_chat_participant",
        "echo",
        lambda c: {"chat_id": c.room("echo"), "id": c.id("other")},
        check=_left_room,
    ),
    Call("agent_api_peers", "list_agent_peers", "echo", check=lambda a, c: _roster_peers(a, c)),
    # --- room files (upload, attach, download) and the task board
    Call(
        "agent_api_files",
        "upload_agent_chat_file",
        "echo",
        lambda c: {
            "chat_id": c.room(M),
            "request": NOTES,
            "request_options": _file_headers("notes.txt"),
        },
        check=_file_stored,
    ),
    Call(
        "agent_api_files",
        "download_agent_chat_file",
        "echo",
        lambda c: {"chat_id": c.room(M), "id": c["file"]},
        check=_file_bytes,
        returns_bytes=True,
    ),
    Call(
        "agent_api_chat_tasks",
        "create_chat_task",
        "echo",
        lambda c: {"chat_id": c.room(M), "subject": "Write the report", "detail": "Q3"},
        check=_task_created,
    ),
    Call(
        "agent_api_chat_tasks",
        "list_chat_tasks",
        "echo",
        lambda c: {"chat_id": c.room(M)},
        check=_tasks_listed,
    ),
    Call(
        "agent_api_chat_tasks",
        "update_chat_task",
        "echo",
        lambda c: {
            "chat_id": c.room(M),
            "id": c["task"],
            "status": "in_progress",
            "active_form": "Drafting",
        },
        check=_task_moved,
    ),
    Call(
        "agent_api_chat_tasks",
        "get_chat_task",
        "echo",
        lambda c: {"chat_id": c.room(M), "id": "1", "include": "history"},
        check=_task_read,
    ),
    Call(
        "agent_api_chat_tasks",
        "get_chat_task_history",
        "echo",
        lambda c: {"chat_id": c.room(M), "id": c["task"]},
        check=_task_history,
    ),
    Call(
        "agent_api_chat_tasks",
        "put_chat_board",
        "echo",
        lambda c: {"chat_id": c.room(M), "goal_title": "Ship Q3"},
        check=_goal_set,
    ),
    Call(
        "agent_api_chat_tasks",
        "get_chat_board",
        "echo",
        lambda c: {"chat_id": c.room(M), "include": "history"},
        check=_goal_read,
    ),
    # --- a person reads what the agent wrote, and walks their rooms
    Call(
        "human_api_messages",
        "list_my_chat_messages",
        "alice",
        lambda c: {"chat_id": c.room(M), "message_type": "thought", "limit": 50},
        check=_only_thoughts,
        label="one type",
    ),
    Call(
        "human_api_messages",
        "list_my_chat_messages",
        "alice",
        lambda c: {"chat_id": c.room(M), "exclude_message_types": ["thought"], "limit": 200},
        check=_no_tool_traffic,
        label="types excluded",
    ),
    Call(
        "human_api_messages",
        "list_my_chat_messages",
        "alice",
        _since_hello,
        check=_after_since,
        label="since a time",
    ),
    Call(
        "human_api_messages",
        "list_my_chat_messages",
        "alice",
        lambda c: {"chat_id": c.room(M), "after": c["msg:hello"], "limit": 2},
        check=_after_hello,
        versions=("0.0.51",),
        label="after a message",
    ),
    Call(
        "human_api_messages",
        "list_my_chat_messages",
        "alice",
        _before_args,
        check=_before_last,
        versions=("0.0.51",),
        label="before a message",
    ),
    Call(
        "human_api_chats",
        "list_my_chats",
        "alice",
        lambda c: {"limit": 1},
        check=_walked,
        label="cursor walk",
    ),
    Call(
        "human_api_chats",
        "list_my_chats",
        "alice",
        lambda c: {"sort_by": "updated_at", "order": "asc", "limit": 100},
        check=_by_update,
        label="sorted by update",
    ),
    Call(
        "human_api_chats",
        "list_my_chats",
        "alice",
        lambda c: {"type": "group"},
        check=_groups,
        label="by type",
    ),
    Call(
        "human_api_chats",
        "list_my_chats",
        "alice",
        lambda c: {"status": "active"},
        check=_active_only,
        label="by status",
    ),
    # --- an agent's contacts
    Call(
        "agent_api_contacts",
        "add_agent_contact",
        "echo",
        lambda c: {"handle": "alice"},
        check=_agent_contact,
    ),
    Call("agent_api_contacts", "list_agent_contacts", "echo", check=_agent_contacts),
    Call(
        "agent_api_contacts",
        "add_agent_contact",
        "echo",
        lambda c: {"handle": "bob/helper", "message": "Work together?"},
        check=_pending_to_helper,
        label="across accounts",
    ),
    Call(
        "agent_api_contacts",
        "list_agent_contact_requests",
        "helper",
        lambda c: {"sent_status": "all"},
        check=_helper_requests,
    ),
    Call(
        "agent_api_contacts",
        "respond_to_agent_contact_request",
        "helper",
        lambda c: {"action": "approve", "handle": "alice/echo"},
        check=_helper_approved,
    ),
    Call(
        "agent_api_contacts",
        "remove_agent_contact",
        "echo",
        lambda c: {"handle": "bob/helper"},
        check=_agent_contact_removed,
    ),
    # --- memories (stored by the agent, curated by its owner)
    Call(
        "agent_api_memories",
        "create_agent_memory",
        "echo",
        _memory("Alice likes tea", "mem:tea"),
        keep=_memory_kept("mem:tea"),
    ),
    Call(
        "agent_api_memories",
        "create_agent_memory",
        "echo",
        _memory("Alice moved to Leeds", "mem:gone"),
        keep=_memory_kept("mem:gone"),
        label="a second memory",
    ),
    Call(
        "agent_api_memories",
        "create_agent_memory",
        "echo",
        _memory("Alice's cat is Dinah", "mem:cat"),
        keep=_memory_kept("mem:cat"),
        label="a third memory",
    ),
    Call(
        "agent_api_memories",
        "list_agent_memories",
        "echo",
        lambda c: {"limit": 20},
        check=_agent_memories,
    ),
    Call(
        "agent_api_memories",
        "get_agent_memory",
        "echo",
        lambda c: {"id": c["mem:tea"]},
        check=_agent_memory,
    ),
    Call(
        "agent_api_memories",
        "archive_agent_memory",
        "echo",
        lambda c: {"id": c["mem:cat"]},
        check=_memory_status("mem:cat", "archived"),
    ),
    Call(
        "human_api_memories",
        "list_user_memories",
        "alice",
        lambda c: {"limit": 20},
        check=_memory_listed,
    ),
    Call(
        "human_api_memories",
        "get_user_memory",
        "alice",
        lambda c: {"id": c["mem:tea"]},
        check=_memory_status("mem:tea", "active"),
    ),
    Call(
        "human_api_memories",
        "archive_user_memory",
        "alice",
        lambda c: {"id": c["mem:tea"]},
        check=_memory_status("mem:tea", "archived"),
    ),
    Call(
        "human_api_memories",
        "restore_user_memory",
        "alice",
        lambda c: {"id": c["mem:tea"]},
        check=_memory_status("mem:tea", "active"),
    ),
    Call(
        "human_api_memories",
        "supersede_user_memory",
        "alice",
        lambda c: {"id": c["mem:tea"]},
        check=_memory_status("mem:tea", "superseded"),
    ),
    Call(
        "agent_api_memories",
        "supersede_agent_memory",
        "echo",
        lambda c: {"id": c["mem:gone"]},
        check=_memory_status("mem:gone", "superseded"),
    ),
    Call(
        "human_api_memories",
        "delete_user_memory",
        "alice",
        lambda c: {"id": c["mem:gone"]},
        check=_memory_deleted,
        returns_none=True,
    ),
    # --- delegated token: bob (another account) asks alice's agent; bob consented
    Call(
        "agent_api_delegation",
        "exchange_delegated_token",
        "echo",
        _delegation_args,
        check=_token,
    ),
    # --- removals and bulk deletions, last
    Call(
        "human_api_participants",
        "remove_my_chat_participant",
        "alice",
        lambda c: {"chat_id": c.room(M), "id": c.id("other")},
        check=_participant_removed,
    ),
    Call(
        "human_api_agents",
        "delete_my_agent",
        "alice",
        lambda c: {"id": c["scratch"]},
        check=_agent_deleted,
    ),
    Call(
        "human_api_bulk_deletions",
        "bulk_delete_my_chats",
        "alice",
        lambda c: {"ids": [c.room("contract"), "not-a-room-id"]},
        check=_chats_job,
    ),
    Call(
        "human_api_bulk_deletions",
        "show_my_bulk_deletion",
        "alice",
        lambda c: {"id": c["job:chats"]},
        check=_job_shown,
    ),
    Call(
        "human_api_bulk_deletions",
        "bulk_delete_my_agents",
        "alice",
        _register_spare,
        check=_agents_job,
    ),
]


def _roster_peers(answer: Any, c: Ctx) -> None:
    got = ids(answer.data)
    assert c.id("alice") in got and c.id("other") in got and c.id("echo") not in got, got
