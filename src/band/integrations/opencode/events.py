"""OpenCode's ``/event`` stream as typed records: ``parse_opencode_event`` reads one.

Every record takes OpenCode's camelCase keys (``sessionID``, ``messageID``, ...) and keeps
keys it does not know; every field has a default. A payload that does not fit (an event
type the adapter does not follow, or a known one in a shape it cannot read) becomes an
``UnknownOpencodeEvent`` instead of an error, so one odd event never stops the reader. A
malformed optional corner (``tokens``, a part's ``state``) reads as ``None`` while the rest
of its event still counts, and the identity and text fields of the events that block a
session (a permission ask, a question) or build the reply (a text delta) are read as text
whatever type they came in.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from band.core.types import TurnUsage

__all__ = [
    "UNKNOWN_OPENCODE_ERROR",
    "MessagePartDeltaEvent",
    "MessagePartDeltaProps",
    "MessagePartUpdatedEvent",
    "MessagePartUpdatedProps",
    "MessageUpdatedEvent",
    "MessageUpdatedProps",
    "OpencodeErrorInfo",
    "OpencodeEvent",
    "OpencodeMessageInfo",
    "OpencodeModel",
    "OpencodePart",
    "OpencodePermissionRequest",
    "OpencodePermissionToolRef",
    "OpencodeQuestion",
    "OpencodeQuestionRequest",
    "OpencodeTokenCache",
    "OpencodeTokens",
    "OpencodeToolState",
    "OpencodeToolStatus",
    "PermissionAskedEvent",
    "QuestionAskedEvent",
    "SessionErrorEvent",
    "SessionErrorProps",
    "SessionIdleEvent",
    "SessionIdleProps",
    "UnknownOpencodeEvent",
    "describe_error",
    "parse_opencode_event",
]

logger = logging.getLogger(__name__)

UNKNOWN_OPENCODE_ERROR = "OpenCode failed without saying why."


class OpencodeModel(BaseModel):
    """Base of the wire records: unknown keys kept, fields by name or by OpenCode's alias."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


def _none_if_malformed(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError:
        return None


def _as_text(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)


def _as_texts(value: Any) -> list[str]:
    return [str(v) for v in value if v is not None] if isinstance(value, list) else []


def _as_mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class OpencodeTokenCache(OpencodeModel):
    """Cached prompt tokens read and written by one message."""

    read: int = 0
    write: int = 0


class OpencodeTokens(OpencodeModel):
    """Token counts of one assistant message."""

    input: int = 0
    output: int = 0
    reasoning: int = 0
    cache: OpencodeTokenCache = Field(default_factory=OpencodeTokenCache)

    _cache = field_validator("cache", mode="before")(_as_mapping)

    def to_turn_usage(self) -> TurnUsage:
        """As Band's usage record; OpenCode counts reasoning apart, here it is output."""
        return TurnUsage(
            input_tokens=self.input,
            output_tokens=self.output + self.reasoning,
            cache_read_tokens=self.cache.read,
            cache_write_tokens=self.cache.write,
        )


class OpencodeErrorInfo(OpencodeModel):
    """An error of a message or a session: its name and details (``data.message``)."""

    name: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)

    _data = field_validator("data", mode="before")(_as_mapping)

    @model_validator(mode="before")
    @classmethod
    def _bare_text(cls, value: Any) -> Any:
        return {"data": {"message": value}} if isinstance(value, str) else value

    @property
    def is_empty(self) -> bool:
        """An ``error: {}`` (sent on healthy messages too): nothing to report."""
        return self.name is None and not self.data

    def describe(self) -> str:
        """``<name>: <message>`` for the room."""
        detail = self.data.get("message")
        return f"{self.name or 'OpenCodeError'}: {detail or 'no details given'}"


def describe_error(error: OpencodeErrorInfo | None) -> str:
    """The error in words; ``UNKNOWN_OPENCODE_ERROR`` when there is none to describe."""
    return UNKNOWN_OPENCODE_ERROR if error is None else error.describe()


class OpencodeMessageInfo(OpencodeModel):
    """A message's ``info``: who wrote it, its tokens, its error."""

    id: str | None = None
    session_id: str | None = Field(default=None, alias="sessionID")
    role: str | None = None
    tokens: OpencodeTokens | None = None
    error: OpencodeErrorInfo | None = None

    _nested = field_validator("tokens", "error", mode="wrap")(_none_if_malformed)


class OpencodeToolStatus(StrEnum):
    """A tool call's state as OpenCode reports it."""

    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    ERROR = "error"


class OpencodeToolState(OpencodeModel):
    """A tool part's state: its status, input, and output or error."""

    status: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)
    output: Any = None
    error: Any = None

    _input = field_validator("input", mode="before")(_as_mapping)

    @property
    def has_output(self) -> bool:
        """Whether the payload had an ``output`` at all (``""`` and ``0`` are outputs)."""
        return "output" in self.model_fields_set

    @property
    def reported_output(self) -> Any:
        """The output to report: as sent, or ``""`` when none was."""
        return self.output if self.has_output else ""


class OpencodePart(OpencodeModel):
    """One part of a message (text, reasoning, tool, step-finish, and kinds not read)."""

    id: str | None = None
    session_id: str | None = Field(default=None, alias="sessionID")
    message_id: str | None = Field(default=None, alias="messageID")
    type: str = ""
    text: str | None = None
    tool: str | None = None
    call_id: str | None = Field(default=None, alias="callID")
    state: OpencodeToolState | None = None

    _scalars = field_validator("type", "text", mode="before")(_as_text)
    _state = field_validator("state", mode="wrap")(_none_if_malformed)


class OpencodePermissionToolRef(OpencodeModel):
    """The tool call a permission ask is about."""

    message_id: str | None = Field(default=None, alias="messageID")
    call_id: str | None = Field(default=None, alias="callID")


class OpencodePermissionRequest(OpencodeModel):
    """A permission ask: ``permission`` is the tool's name (or a rule such as
    ``doom_loop``), ``patterns`` what it would touch."""

    id: str | None = None
    session_id: str | None = Field(default=None, alias="sessionID")
    permission: str = "unknown"
    patterns: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    always: list[str] = Field(default_factory=list)
    tool: OpencodePermissionToolRef | None = None

    _lists = field_validator("patterns", "always", mode="before")(_as_texts)
    _metadata = field_validator("metadata", mode="before")(_as_mapping)
    _scalars = field_validator("id", "session_id", "permission", mode="before")(_as_text)
    _tool = field_validator("tool", mode="wrap")(_none_if_malformed)


class OpencodeQuestion(OpencodeModel):
    """One question of the model's question tool."""

    question: str = "Question"

    _question = field_validator("question", mode="before")(_as_text)


class OpencodeQuestionRequest(OpencodeModel):
    """The question tool's ask: one or more questions, answered together."""

    id: str | None = None
    session_id: str | None = Field(default=None, alias="sessionID")
    questions: list[OpencodeQuestion] = Field(default_factory=list)

    _scalars = field_validator("id", "session_id", mode="before")(_as_text)

    @field_validator("questions", mode="before")
    @classmethod
    def _only_objects(cls, value: Any) -> list[Any]:
        return [q for q in value if isinstance(q, dict)] if isinstance(value, list) else []


class _SessionEvent(OpencodeModel):
    """An event whose properties name its session (``properties.session_id``)."""

    @property
    def session_id(self) -> str | None:
        value = getattr(self, "properties", None)
        session = getattr(value, "session_id", None)
        return session if isinstance(session, str) else None


class MessageUpdatedProps(OpencodeModel):
    info: OpencodeMessageInfo | None = None

    _info = field_validator("info", mode="wrap")(_none_if_malformed)


class MessageUpdatedEvent(OpencodeModel):
    """``message.updated``: a message's info changed (role, tokens, error)."""

    type: Literal["message.updated"]
    properties: MessageUpdatedProps = Field(default_factory=MessageUpdatedProps)

    @property
    def session_id(self) -> str | None:
        info = self.properties.info
        return None if info is None else info.session_id


class MessagePartUpdatedProps(OpencodeModel):
    part: OpencodePart | None = None

    _part = field_validator("part", mode="wrap")(_none_if_malformed)


class MessagePartUpdatedEvent(OpencodeModel):
    """``message.part.updated``: a part's whole current state."""

    type: Literal["message.part.updated"]
    properties: MessagePartUpdatedProps = Field(default_factory=MessagePartUpdatedProps)

    @property
    def session_id(self) -> str | None:
        part = self.properties.part
        return None if part is None else part.session_id


class MessagePartDeltaProps(OpencodeModel):
    session_id: str | None = Field(default=None, alias="sessionID")
    message_id: str | None = Field(default=None, alias="messageID")
    part_id: str | None = Field(default=None, alias="partID")
    field: str | None = None
    delta: str = ""

    _scalars = field_validator("session_id", "message_id", "part_id", "delta", mode="before")(
        _as_text
    )


class MessagePartDeltaEvent(_SessionEvent):
    """``message.part.delta``: text appended to one field of a part."""

    type: Literal["message.part.delta"]
    properties: MessagePartDeltaProps = Field(default_factory=MessagePartDeltaProps)


class PermissionAskedEvent(_SessionEvent):
    """``permission.asked``: the session waits for a permission reply."""

    type: Literal["permission.asked"]
    properties: OpencodePermissionRequest = Field(default_factory=OpencodePermissionRequest)


class QuestionAskedEvent(_SessionEvent):
    """``question.asked``: the session waits for the answers to the model's questions."""

    type: Literal["question.asked"]
    properties: OpencodeQuestionRequest = Field(default_factory=OpencodeQuestionRequest)


class SessionErrorProps(OpencodeModel):
    session_id: str | None = Field(default=None, alias="sessionID")
    error: OpencodeErrorInfo | None = None

    _session = field_validator("session_id", mode="before")(_as_text)
    _error = field_validator("error", mode="wrap")(_none_if_malformed)


class SessionErrorEvent(_SessionEvent):
    """``session.error``: the session's turn failed."""

    type: Literal["session.error"]
    properties: SessionErrorProps = Field(default_factory=SessionErrorProps)


class SessionIdleProps(OpencodeModel):
    session_id: str | None = Field(default=None, alias="sessionID")

    _session = field_validator("session_id", mode="before")(_as_text)


class SessionIdleEvent(_SessionEvent):
    """``session.idle``: the session's turn is over."""

    type: Literal["session.idle"]
    properties: SessionIdleProps = Field(default_factory=SessionIdleProps)


class UnknownOpencodeEvent(OpencodeModel):
    """An event not followed, or one whose payload could not be read: ignored."""

    type: str = ""
    raw: dict[str, Any] = Field(default_factory=dict)

    @property
    def session_id(self) -> None:
        return None


_Known = Annotated[
    MessageUpdatedEvent
    | MessagePartUpdatedEvent
    | MessagePartDeltaEvent
    | PermissionAskedEvent
    | QuestionAskedEvent
    | SessionErrorEvent
    | SessionIdleEvent,
    Field(discriminator="type"),
]
OpencodeEvent = _Known | UnknownOpencodeEvent
_KNOWN: TypeAdapter[_Known] = TypeAdapter(_Known)


def parse_opencode_event(raw: dict[str, Any]) -> OpencodeEvent:
    """One ``/event`` payload as its record; never raises (``UnknownOpencodeEvent``)."""
    try:
        return _KNOWN.validate_python(raw)
    except ValidationError:
        logger.debug("OpenCode event %r not read", raw.get("type"), exc_info=True)
        return UnknownOpencodeEvent(type=str(raw.get("type") or ""), raw=raw)
