"""``band replay``: every mention of an exported room, asked again of an adapter, offline.

For each mention of the agent in the room (oldest first), a throwaway platform in this process
(``band.testing.LocalPlatform``) gets a fresh room holding the room's history as it was just
before that mention (imported through the platform's import endpoint, so authors, order and
``seq`` are the original's), and the mention is posted again by its author. The agent runs
your adapter on this SDK and answers as it would now; its reply, tool calls and timing are
paired with the original's in a report (``replay_report``). Each mention starts a new room,
so the adapter always sees the original history, never its own new answers.
"""

from __future__ import annotations

import asyncio
import importlib
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from band_protocol.archive import AgentRecord, MessageRecord, PersonRecord

from .archive import ArchiveReader, plain
from .progress import LineProgress, Progress

__all__ = [
    "Case",
    "Pair",
    "ReplayError",
    "ReplayReport",
    "load_adapter",
    "plan",
    "readable",
    "replay_archive",
]

TOKEN = re.compile(r"@\[\[([^\]]+)\]\]")
TOOL_EVENTS = ("tool_call", "tool_result")
TURN_TIMEOUT = 120.0


class ReplayError(Exception):
    """The replay can't start as asked (no such room, agent or adapter)."""


@dataclass
class Pair:
    """One side of a replayed mention: the answer, the tool calls before it, the time taken."""

    content: str | None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    seconds: float | None = None
    status: str = "answered"  # answered | no answer | failed
    error: str | None = None


@dataclass
class Case:
    """A mention to ask again: its place in the room and what was answered then."""

    number: int
    mention: MessageRecord
    before: list[MessageRecord]
    original: Pair
    replay: Pair | None = None
    text: str = ""  # the mention as people read it (@handle, not @[[id]])

    @property
    def same(self) -> bool:
        return self.replay is not None and self.replay.content == self.original.content


@dataclass
class ReplayReport:
    archive: str
    room: dict[str, Any]
    agent: dict[str, Any]
    adapter: str
    model: str
    cases: list[Case]
    seconds: float = 0.0


def load_adapter(spec: str) -> Callable[[], Any]:
    """``module:Class`` (the module importable from here or the working folder) as a factory."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ReplayError(f"--adapter must be module:Class, not {spec!r}")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ReplayError(f"cannot import {module_name}: {exc}") from exc
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ReplayError(f"{module_name} has no class {attr}")
    return factory  # type: ignore[no-any-return]


# -- what to replay -----------------------------------------------------------------------------


def _at(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _mentions(msg: MessageRecord, agent_id: str) -> bool:
    ids = {m.get("id") for m in msg.metadata.get("mentions") or [] if isinstance(m, dict)}
    return (
        msg.message_type == "text"
        and msg.sender_id != agent_id
        and (agent_id in ids or f"@[[{agent_id}]]" in msg.content)
    )


def readable(content: str, handles: dict[str, str]) -> str:
    """``@[[id]]`` tokens as ``@handle`` (as the agent's runtime shows them to a model)."""
    return TOKEN.sub(lambda t: "@" + handles.get(t[1], t[1]), content)


def _tool(msg: MessageRecord) -> dict[str, Any]:
    return {"type": msg.message_type, "content": msg.content, "at": msg.inserted_at}


def plan(
    reader: ArchiveReader, room: str | None, agent: str | None
) -> tuple[dict[str, Any], AgentRecord, list[Case]]:
    """The room (by id or title), its agent (by handle, else the one mentioned most), and one
    case per mention of it, with the original answer."""
    rooms = [r.model_dump() for _, r in reader.records("room")]
    chosen = [r for r in rooms if room in (None, r["id"], r.get("title"))]
    if len(chosen) != 1:
        titles = ", ".join(repr(r.get("title") or r["id"]) for r in rooms)
        raise ReplayError(f"name one room with --room (the archive has: {titles})")
    the_room = chosen[0]
    messages = sorted(
        (m for _, m in reader.records("message") if isinstance(m, MessageRecord)),
        key=lambda m: m.seq,
    )
    messages = [m for m in messages if m.chat_room_id == the_room["id"]]
    agents = {a.id: a for _, a in reader.records("agent") if isinstance(a, AgentRecord)}
    handles = {a.id: a.handle for a in agents.values()}
    handles.update(
        {p.id: p.handle for _, p in reader.records("person") if isinstance(p, PersonRecord)}
    )
    if agent is not None:
        found = [a for a in agents.values() if agent.lstrip("@") in (a.handle, a.id)]
    else:
        counts = {a: sum(_mentions(m, a) for m in messages) for a in agents}
        found = [agents[a] for a in sorted(counts, key=lambda a: -counts[a])[:1] if counts[a]]
    if not found:
        raise ReplayError("no agent is mentioned in that room (name one with --agent)")
    target = found[0]
    marks = [i for i, m in enumerate(messages) if _mentions(m, target.id)]
    cases = []
    for n, i in enumerate(marks):
        end = marks[n + 1] if n + 1 < len(marks) else len(messages)
        after = messages[i + 1 : end]
        mine = [m for m in after if m.sender_id == target.id]
        answer = next((m for m in mine if m.message_type == "text"), None)
        tools = [_tool(m) for m in mine if m.message_type in TOOL_EVENTS]  # the whole turn's
        original = Pair(
            readable(answer.content, handles) if answer else None,
            tools,
            _at(answer.inserted_at) - _at(messages[i].inserted_at) if answer else None,
            "answered" if answer else "no answer",
        )
        text = readable(messages[i].content, handles)
        cases.append(Case(n + 1, messages[i], messages[:i], original, text=text))
    return the_room, target, cases


# -- running it ---------------------------------------------------------------------------------


@contextmanager
def model_endpoint(model: str) -> Iterator[str]:
    """Point OpenAI and Anthropic clients at ``model``: ``fake`` (band.testing's offline
    scripted model, served here) or a base URL. Restores the environment after."""
    import os

    saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")}
    saved_keys = {k: os.environ.get(k) for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    try:
        if model == "fake":
            from band.testing import FakeModel, serve_fake_models

            with serve_fake_models(FakeModel()) as server:
                os.environ["OPENAI_BASE_URL"] = server.openai_base_url
                os.environ["ANTHROPIC_BASE_URL"] = server.anthropic_base_url
                for key in saved_keys:
                    os.environ.setdefault(key, "offline")
                yield "fake (band.testing's offline scripted model)"
            return
        os.environ["OPENAI_BASE_URL"] = model
        os.environ["ANTHROPIC_BASE_URL"] = model
        for key in saved_keys:
            os.environ.setdefault(key, "replay")
        yield model
    finally:
        for key, value in {**saved, **saved_keys}.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class _Platform:
    """The throwaway platform: each case's history imported into a room of its own."""

    def __init__(self, local: Any, admin_key: str) -> None:
        from band.client.rest import AsyncRestClient

        self.local = local
        self.admin_key = admin_key
        self.admin = AsyncRestClient(base_url=local.rest_url, api_key=admin_key)
        self.keys: dict[str, str] = {}  # source id -> key (people and agents)
        self.ids: dict[str, str] = {}  # source id -> id here
        self.handles: dict[str, str] = {}  # id here -> handle

    async def seed_case(
        self, reader: ArchiveReader, room: dict[str, Any], case: Case, run: str
    ) -> str:
        """A room holding ``case.before``; its id here."""
        api = self.admin.admin_api_imports
        started = plain((await api.start_import(archive_id=f"{run}-{case.number}")).data)
        import_id = started["id"]
        parties = {p.id: p for _, p in reader.records("person")}
        parties.update({a.id: a for _, a in reader.records("agent")})
        roster = [
            p for _, p in reader.records("participant") if p.model_dump()["room_id"] == room["id"]
        ]
        batches: list[tuple[str, list[dict[str, Any]]]] = [
            ("person", [_dump(p) for p in parties.values() if isinstance(p, PersonRecord)]),
            ("agent", [_dump(a) for a in parties.values() if isinstance(a, AgentRecord)]),
            ("room", [{**room, "title": f"{room.get('title') or 'Room'} (replay {case.number})"}]),
            ("participant", [_dump(p) for p in roster]),
            ("message", [{**_dump(m), "attachments": []} for m in case.before]),
        ]
        room_here = ""
        for kind, records in batches:
            for start in range(0, len(records), 200):
                chunk = records[start : start + 200]
                answer = plain((await api.import_records(import_id, kind=kind, records=chunk)).data)
                for item, record in zip(answer["records"], chunk, strict=True):
                    self.ids[record["id"]] = item["target_id"]
                    if item.get("api_key"):
                        self.keys[record["id"]] = item["api_key"]
                    if kind == "room":
                        room_here = item["target_id"]
                    if kind in ("person", "agent"):
                        self.handles[item["target_id"]] = record["handle"]
        await api.finish_import(import_id)
        return room_here

    async def post_mention(self, room_here: str, mention: MessageRecord, agent_id: str) -> str:
        """Post the mention again, as its author; the new message's id."""
        import httpx

        key = self.keys.get(mention.sender_id)
        if key is None:
            raise ReplayError(f"no key for the author of message {mention.id}")
        here = {source: self.handles.get(mine, source) for source, mine in self.ids.items()}
        content = readable(mention.content, here)
        surface = "agent" if mention.sender_type == "Agent" else "me"
        body = {"message": {"content": content, "mentions": [{"id": self.ids[agent_id]}]}}
        async with httpx.AsyncClient(
            base_url=self.local.rest_url, headers={"X-API-Key": key}, timeout=30
        ) as http:
            posted = await http.post(f"/api/v1/{surface}/chats/{room_here}/messages", json=body)
            posted.raise_for_status()
            return str(posted.json()["data"]["id"])

    async def outcome(self, room_here: str, mention_id: str, agent_here: str) -> Pair:
        """Wait for the agent's turn on the mention to end; what it did."""
        import httpx

        url = f"/api/v1/admin/chats/{room_here}/messages"
        deadline = time.monotonic() + TURN_TIMEOUT
        async with httpx.AsyncClient(
            base_url=self.local.rest_url, headers={"X-API-Key": self.admin_key}, timeout=30
        ) as http:
            while True:
                page = (await http.get(url, params={"limit": 100})).json()["data"]
                mention = next((m for m in page if m["id"] == mention_id), None)
                done = ((mention or {}).get("metadata", {}).get("delivery_status", {})).get(
                    agent_here, {}
                )
                if done.get("status") in ("processed", "failed") or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
        after = [m for m in page if mention and m["seq"] > mention["seq"]]
        mine = [m for m in after if m["sender_id"] == agent_here]
        answer = next((m for m in mine if m["message_type"] == "text"), None)
        tools = [
            {"type": m["message_type"], "content": m["content"], "at": m["inserted_at"]}
            for m in mine
            if m["message_type"] in TOOL_EVENTS
        ]
        errors = [m["content"] for m in mine if m["message_type"] == "error"]
        status = done.get("status")
        seconds = None
        if answer is not None and mention is not None:
            seconds = _at(answer["inserted_at"]) - _at(mention["inserted_at"])
        return Pair(
            readable(answer["content"], self.handles) if answer else None,
            tools,
            seconds,
            "answered" if answer else ("failed" if status == "failed" else "no answer"),
            "; ".join(errors) or (None if status else "the turn did not end in time"),
        )

    async def aclose(self) -> None:
        await self.admin.aclose()


def _dump(record: Any) -> dict[str, Any]:
    return dict(record.model_dump(mode="json"))


async def replay_archive(
    path: Path,
    adapter: Callable[[], Any],
    *,
    adapter_name: str = "",
    room: str | None = None,
    agent: str | None = None,
    model: str = "fake",
    progress: Progress | None = None,
) -> ReplayReport:
    """Replay every mention of the agent in one room of the archive at ``path``."""
    from band import Agent
    from band.testing import LocalPlatform

    began = time.monotonic()
    progress = progress or LineProgress()
    with ArchiveReader(path) as reader:
        reader.verify()
        the_room, target, cases = plan(reader, room, agent)
        with model_endpoint(model) as model_label:
            async with LocalPlatform() as local:
                admin = await local.person("replay-admin")
                platform = _Platform(local, admin.key)
                run = f"replay-{time.time_ns()}"
                running: Any = None
                try:
                    progress.start(f"replaying {len(cases)} mentions", len(cases))
                    for case in cases:
                        room_here = await platform.seed_case(reader, the_room, case, run)
                        if running is None:
                            running = Agent.create(
                                adapter=adapter(),
                                agent_id=platform.ids[target.id],
                                api_key=platform.keys[target.id],
                                rest_url=local.rest_url,
                                ws_url=local.ws_url,
                            )
                            await running.start()
                        mention_id = await platform.post_mention(room_here, case.mention, target.id)
                        case.replay = await platform.outcome(
                            room_here, mention_id, platform.ids[target.id]
                        )
                        progress.advance()
                finally:
                    if running is not None:
                        await running.stop()
                    await platform.aclose()
                    progress.finish()
    return ReplayReport(
        archive=str(path),
        room={"id": the_room["id"], "title": the_room.get("title")},
        agent={"id": target.id, "handle": target.handle, "name": target.name},
        adapter=adapter_name,
        model=model_label,
        cases=cases,
        seconds=time.monotonic() - began,
    )
