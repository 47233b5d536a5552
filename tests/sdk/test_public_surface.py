"""Every name band-sdk 6.0.1 exports from ``band`` imports here and is the right kind of thing,
and the module paths host plugins import resolve to working objects."""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
import types
import typing
from pathlib import Path

import pytest

import band

# name -> kind, as band-sdk 6.0.1 exports them (facts from running the official package).
OFFICIAL: dict[str, str] = {
    "ALL_TOOL_NAMES": "frozenset",
    "AdapterFeatures": "class",
    "Agent": "class",
    "AgentAlreadyRunningError": "exception",
    "AgentConfig": "class",
    "AgentRuntime": "class",
    "AgentTools": "class",
    "BASE_TOOL_NAMES": "frozenset",
    "BandConfigError": "exception",
    "BandConnectionError": "exception",
    "BandError": "exception",
    "BandLink": "class",
    "BandToolError": "exception",
    "CHATTY_LOGGERS": "tuple",
    "CHAT_TOOL_NAMES": "frozenset",
    "CONTACT_TOOL_NAMES": "frozenset",
    "Capability": "enum",
    "ConflictPolicy": "enum",
    "ConversationContext": "class",
    "Emit": "enum",
    "Execution": "protocol",
    "ExecutionContext": "class",
    "ExecutionHandler": "alias",
    "FeatureKwargs": "typeddict",
    "FileStyle": "alias",
    "FormatStyle": "enum",
    "GracefulShutdown": "class",
    "LogLevel": "union",
    "LogSettings": "class",
    "LogStream": "enum",
    "LoggingConfig": "alias",
    "LoggingStyle": "enum",
    "MCP_TOOL_PREFIX": "str",
    "MEMORY_TOOL_NAMES": "frozenset",
    "MessageRetryTracker": "class",
    "PlatformEvent": "union",
    "PlatformMessage": "class",
    "RoomExecutionStoppedError": "exception",
    "RoomPresence": "class",
    "STANDARD_FORMAT": "str",
    "SessionConfig": "class",
    "TOOL_MODELS": "dict",
    "build_logging_config": "function",
    "build_participants_message": "function",
    "chatty_logger_levels": "function",
    "configure_logging": "function",
    "configure_logging_from_env": "function",
    "create_room_workspace_resolver": "function",
    "format_history_for_llm": "function",
    "format_message_for_llm": "function",
    "mcp_tool_names": "function",
    "render_system_prompt": "function",
    "run_with_graceful_shutdown": "function",
}


def kind_of(value: object) -> str:
    if isinstance(value, types.UnionType):
        return "union"
    if isinstance(value, type):
        if issubclass(value, BaseException):
            return "exception"
        if issubclass(value, enum.Enum):
            return "enum"
        if typing.is_typeddict(value):
            return "typeddict"
        if getattr(value, "_is_protocol", False):
            return "protocol"
        return "class"
    if typing.get_origin(value) is not None:
        return "alias"
    if inspect.isfunction(value):
        return "function"
    return type(value).__name__


def test_band_exports_all_53_official_names() -> None:
    assert len(OFFICIAL) == 53
    assert set(OFFICIAL) <= set(band.__all__)
    assert sorted(set(dir(band)) & set(OFFICIAL)) == sorted(OFFICIAL)


@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_each_official_name_is_the_right_kind(name: str) -> None:
    assert kind_of(getattr(band, name)) == OFFICIAL[name]


def test_alias_names_describe_what_they_name() -> None:
    assert typing.get_args(band.LogLevel) == (int, str)
    assert set(typing.get_args(band.FileStyle)) == {
        band.LoggingStyle.STANDARD,
        band.LoggingStyle.JSON,
    }
    assert typing.get_origin(band.LoggingConfig) is dict
    events = typing.get_args(band.PlatformEvent)
    from band.platform import event

    for cls in (
        event.MessageEvent,
        event.RoomAddedEvent,
        event.RoomRemovedEvent,
        event.RoomDeletedEvent,
        event.ParticipantAddedEvent,
        event.ContactAddedEvent,
        event.ReconnectedEvent,
        event.WebSocketDisconnectedEvent,
    ):
        assert cls in events


def test_top_level_platform_message_is_the_runtime_variant() -> None:
    from band.core.types import PlatformMessage as AdapterMessage

    assert band.PlatformMessage is not AdapterMessage
    fields = [f.name for f in dataclasses.fields(band.PlatformMessage)]
    assert fields == [
        "id",
        "room_id",
        "content",
        "sender_id",
        "sender_type",
        "sender_name",
        "message_type",
        "metadata",
        "created_at",
    ]
    msg = band.PlatformMessage.from_payload(
        {"id": "m", "content": "hi", "sender_type": "User", "sender_id": "u"}, "r"
    )
    assert msg.format_for_llm() == "[User]: hi"


# Module paths host plugins (hermes-band 0.1.0) and runtime hosts import.
PATHS = [
    ("band.platform.link", "BandLink"),
    ("band.platform.event", "MessageEvent"),
    ("band.platform.event", "RoomAddedEvent"),
    ("band.platform.event", "RoomRemovedEvent"),
    ("band.platform.event", "RoomDeletedEvent"),
    ("band.platform.event", "ParticipantAddedEvent"),
    ("band.platform.event", "ParticipantRemovedEvent"),
    ("band.platform.event", "ContactRequestReceivedEvent"),
    ("band.platform.event", "ContactRemovedEvent"),
    ("band.client.rest", "AsyncRestClient"),
    ("band.client.rest", "ChatMessageRequest"),
    ("band.client.rest", "ChatMessageRequestMentionsItem"),
    ("band.client.rest", "ChatRoomRequest"),
    ("band.client.rest", "ParticipantRequest"),
    ("band.client.rest", "DEFAULT_REQUEST_OPTIONS"),
    ("band.runtime.formatters", "replace_uuid_mentions"),
    ("band.runtime.runtime", "AgentRuntime"),
    ("band.runtime.oneshot", "OneShotInvoker"),
    ("band.runtime.oneshot", "OneShotStatus"),
    ("band.runtime.oneshot", "OneShotEnvelopeError"),
    ("band.runtime", "OneShotInvoker"),
    ("band.platform", "BandLink"),
]


@pytest.mark.parametrize(("module", "name"), PATHS)
def test_documented_module_paths_import(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is not None


def test_events_carry_type_room_payload_and_raw() -> None:
    from band.platform.event import MessageEvent, event_from_push

    raw = {
        "id": "m1",
        "content": "hi @[[a1]]",
        "message_type": "text",
        "sender_id": "u1",
        "sender_type": "User",
        "sender_name": "Alice",
        "chat_room_id": "r1",
        "metadata": {"mentions": [{"id": "a1", "handle": "alice/echo"}]},
        "inserted_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
    }
    event = event_from_push("message_created", "r1", raw)
    assert isinstance(event, MessageEvent)
    assert (event.type, event.room_id, event.raw) == ("message_created", "r1", raw)
    assert event.payload is not None and event.payload.content == "hi @[[a1]]"
    assert event.payload.metadata is not None
    assert event.payload.metadata.mentions[0].handle == "alice/echo"


def test_replace_uuid_mentions_uses_handles_then_names() -> None:
    from band.runtime.formatters import replace_uuid_mentions

    people = [{"id": "u1", "handle": "alice"}, {"id": "u2", "name": "Bob  Smith"}]
    text = replace_uuid_mentions("hi @[[u1]] @[[u2]] @[[u3]]", people)
    assert text == "hi @alice @Bob-Smith @[[u3]]"


def test_oneshot_statuses_and_envelope_error() -> None:
    from band.runtime.oneshot import OneShotEnvelopeError, OneShotStatus

    assert [s.value for s in OneShotStatus] == [
        "ignored",
        "cleaned_up",
        "skipped_self",
        "no_pending",
        "already_processed",
        "done",
        "not_accepted",
    ]
    assert issubclass(OneShotEnvelopeError, ValueError)


def test_json_logging_writes_one_object_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import logging

    band.configure_logging(style="json", stream="stdout")
    logging.getLogger("band.test").info("hello %s", "there")
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert json.loads(line)["message"] == "hello there"
    band.configure_logging()


def test_rich_logging_writes_through_rich(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from rich.logging import RichHandler

    band.configure_logging(style="rich", stream="stdout")
    assert any(isinstance(h, RichHandler) for h in logging.getLogger().handlers)
    logging.getLogger("band.test").warning("rich %s", "hello")
    out = capsys.readouterr().out
    assert "rich hello" in out and "WARNING" in out
    band.configure_logging()


def test_workspace_resolver_keeps_rooms_inside_root(tmp_path: typing.Any) -> None:
    resolve = band.create_room_workspace_resolver(tmp_path)
    path = Path(resolve("../../etc"))
    assert path.parent == tmp_path.resolve() and path.is_dir()
