"""``FakeAgentTools``: the room tools with an in-memory platform, for adapter unit tests.

It runs the same code as ``AgentTools`` (mention rule, event truncation, turn effects,
schemas, ``execute_tool_call``) and records what reached the "room". Unlike the real tools
it does not insist that mentions name known participants: unknown ones pass through.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from band.core.turn import Turn
from band.core.types import AdapterFeatures
from band.runtime.custom_tools import CustomToolDef
from band.runtime.tools.room_tools import Mentions, Outgoing, RoomTools
from band_protocol import AgentFailure, missing_reply_message

from ._fake_platform import FakePlatform
from ._fake_routes import page_slice, total_pages
from .features import feature_kwargs
from .platform import platform_connection_stub

__all__ = [
    "MISSING_REPLY_FAILURE",
    "FakeAgentTools",
    "HeldMessage",
    "events_of_type",
    "failure_reports",
    "feature_kwargs",
    "page_slice",
    "platform_connection_stub",
    "reported_failures",
    "total_pages",
]

MISSING_REPLY_FAILURE = ("band-runtime", missing_reply_message())


class HeldMessage:
    """A message held in flight by ``FakeAgentTools.hold_message``."""

    def __init__(self, matching: str, error: Exception | None) -> None:
        self.matching = matching
        self.error = error
        self.sending = asyncio.Event()
        self.released = asyncio.Event()

    async def __aenter__(self) -> None:
        await self.sending.wait()

    async def __aexit__(self, *exc_info: object) -> None:
        self.released.set()


class FakeAgentTools(RoomTools):
    """Room tools over ``FakePlatform``; inspect ``messages_sent``, ``events_sent``, ..."""

    strict_mentions = False

    def __init__(
        self,
        *,
        participants: Iterable[Mapping[str, Any]] | None = None,
        peers: Iterable[Mapping[str, Any]] | None = None,
        contacts: Iterable[Mapping[str, Any]] | None = None,
        room_id: str = "room-fake",
        hub_room_id: str | None = None,
        room_context: Iterable[Mapping[str, Any]] | None = None,
        memories: Iterable[Mapping[str, Any]] | None = None,
        agent_id: str | None = None,
        agent_name: str = "",
        received_contact_requests: Iterable[Mapping[str, Any]] | None = None,
        sent_contact_requests: Iterable[Mapping[str, Any]] | None = None,
        files: Iterable[Mapping[str, Any]] | None = None,
        tasks: Iterable[Mapping[str, Any]] | None = None,
        board: Mapping[str, Any] | None = None,
        features: AdapterFeatures | None = None,
        custom_tools: Sequence[CustomToolDef] = (),
        turn: Turn | None = None,
    ) -> None:
        self.platform = FakePlatform(
            participants=participants or (),
            peers=peers or (),
            contacts=contacts or (),
            room_context=room_context or (),
            memories=memories or (),
            received_contact_requests=received_contact_requests or (),
            sent_contact_requests=sent_contact_requests or (),
            files=files or (),
            tasks=tasks or (),
            board=board,
        )
        agent_id = agent_id or "agent-fake"
        self.platform.agent_id = agent_id
        self.platform.agent_name = agent_name or "Fake Agent"
        super().__init__(
            self.platform,
            room_id,
            participants=self.platform.participants,
            agent_id=agent_id,
            agent_name=agent_name,
            features=features,
            custom_tools=custom_tools,
            hub_room=hub_room_id is not None and hub_room_id == room_id,
            turn=turn,
        )
        self.messages_sent: list[dict[str, Any]] = []
        self.notices_sent: list[dict[str, Any]] = []
        self.events_sent = self.platform.posted_events
        self.failures_sent: list[AgentFailure] = []
        self.tool_calls: list[dict[str, Any]] = []
        self.participants_added: list[dict[str, Any]] = []
        self.participants_removed: list[dict[str, Any]] = []
        self.memories = self.platform.memories
        self.context_calls = self.platform.context_calls
        self.files = self.platform.files  # descriptors plus "content" bytes
        self.tasks = self.platform.tasks
        self.board = self.platform.board
        self._held: list[HeldMessage] = []

    # failure injection

    @property
    def send_message_error(self) -> BaseException | None:
        return self.platform.message_error

    @send_message_error.setter
    def send_message_error(self, error: BaseException | None) -> None:
        self.platform.message_error = error

    @property
    def send_event_error(self) -> BaseException | None:
        return self.platform.event_error

    @send_event_error.setter
    def send_event_error(self, error: BaseException | None) -> None:
        self.platform.event_error = error

    # recording seams

    def hold_message(self, matching: str, *, error: Exception | None = None) -> HeldMessage:
        """Hold the next message containing ``matching`` in flight for an ``async with`` block
        (entering waits until it is being sent; leaving lets it land, or fail with ``error``)."""
        held = HeldMessage(matching, error)
        self._held.append(held)
        return held

    async def _deliver(self, out: Outgoing) -> dict[str, Any]:
        held = next((h for h in self._held if h.matching in out.content), None)
        if held is not None:
            self._held.remove(held)
            held.sending.set()
            await held.released.wait()
            if held.error is not None:
                raise held.error
        sent = await super()._deliver(out)
        record = {"id": sent["id"], "content": out.content, "mentions": out.requested}
        if out.attachment_ids:
            record["attachment_ids"] = list(out.attachment_ids)
        self.messages_sent.append(record)
        return sent

    def _note_tool_call(self, tool_name: str, arguments: Mapping[str, Any]) -> None:
        self.tool_calls.append({"tool_name": tool_name, "arguments": dict(arguments)})

    async def send_notice(self, content: str, mentions: Mentions = None) -> Any:
        sent = await super().send_notice(content, mentions)
        if sent is not None:
            self.notices_sent.append(self.messages_sent[-1])
        return sent

    async def send_failure(self, failure: AgentFailure) -> Any:
        self.failures_sent.append(failure)
        return await super().send_failure(failure)

    async def add_participant(self, identifier: str, role: str = "member") -> dict[str, Any]:
        result = await super().add_participant(identifier, role)
        self.participants_added.append(result)
        return result

    async def remove_participant(self, identifier: str) -> dict[str, Any]:
        result = await super().remove_participant(identifier)
        self.participants_removed.append(result)
        return result

    # seeding and helpers

    def set_room_context(self, messages: Iterable[Mapping[str, Any]]) -> None:
        self.platform.room_context[:] = [dict(m) for m in messages]

    def append_room_context(self, message: Mapping[str, Any]) -> None:
        self.platform.room_context.append(dict(message))

    @property
    def chat(self) -> list[str]:
        """Contents of the messages sent, in order."""
        return [m["content"] for m in self.messages_sent]

    @property
    def memory_contents(self) -> list[str]:
        return [str(m.get("content")) for m in self.platform.memories]

    def assert_message_sent(
        self,
        *,
        content: str | None = None,
        mentions: list[Any] | None = None,
        count: int | None = None,
    ) -> None:
        """Assert messages matching ``content`` (substring) and ``mentions`` were sent."""
        found = [
            m
            for m in self.messages_sent
            if (content is None or content in m["content"])
            and (mentions is None or m["mentions"] == mentions)
        ]
        # Raised, not asserted: a test's check must hold under ``python -O`` too.
        if count is None and not found:
            raise AssertionError(f"no matching message in {self.messages_sent!r}")
        if count is not None and len(found) != count:
            raise AssertionError(f"{len(found)} matching messages, expected {count}")

    def assert_event_sent(
        self, *, message_type: str | None = None, count: int | None = None
    ) -> None:
        found = [e for e in self.events_sent if message_type in (None, e["message_type"])]
        if count is None and not found:
            raise AssertionError(f"no {message_type or ''} event in {self.events_sent!r}")
        if count is not None and len(found) != count:
            raise AssertionError(f"{len(found)} matching events, expected {count}")

    def assert_no_messages_sent(self) -> None:
        if self.messages_sent:
            raise AssertionError(f"unexpected messages: {self.messages_sent!r}")

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait until ``condition()`` holds; wrap in ``asyncio.timeout`` to bound it."""
        # Records change from any task, so polling is simpler than an event per list.
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.005)

    async def until_said(self, fragment: str, *, times: int = 1) -> None:
        """Wait until ``fragment`` appeared in ``times`` sent messages."""
        await self.until(lambda: sum(fragment in c for c in self.chat) >= times)


def events_of_type(tools: FakeAgentTools, message_type: str) -> list[dict[str, Any]]:
    """Recorded events of one type."""
    return [e for e in tools.events_sent if e["message_type"] == message_type]


def reported_failures(tools: FakeAgentTools) -> list[dict[str, Any]]:
    """The ``failure`` dicts of the error events posted."""
    return [
        e["metadata"]["failure"]
        for e in events_of_type(tools, "error")
        if isinstance(e.get("metadata"), dict) and "failure" in e["metadata"]
    ]


def failure_reports(tools: FakeAgentTools) -> list[tuple[str, str]]:
    """``(provider, message)`` of each reported failure."""
    return [(f["provider"], f["message"]) for f in reported_failures(tools)]


def tool_event_payloads(tools: FakeAgentTools, message_type: str) -> list[dict[str, Any]]:
    """Parsed JSON content of recorded tool_call / tool_result events."""
    return [json.loads(e["content"]) for e in events_of_type(tools, message_type)]
