"""OpenCode's server as the OpenCode adapter talks to it: the HTTP client
(:mod:`.client`), the typed ``/event`` records (:mod:`.events`) and the session state a
room's history holds (:mod:`.types`)."""

from __future__ import annotations

from .client import ApprovalReply, HttpOpencodeClient, OpencodeClientProtocol
from .events import (
    UNKNOWN_OPENCODE_ERROR,
    MessagePartDeltaEvent,
    MessagePartUpdatedEvent,
    MessageUpdatedEvent,
    OpencodeErrorInfo,
    OpencodeEvent,
    OpencodeMessageInfo,
    OpencodePart,
    OpencodePermissionRequest,
    OpencodeQuestion,
    OpencodeQuestionRequest,
    OpencodeTokens,
    OpencodeToolState,
    OpencodeToolStatus,
    PermissionAskedEvent,
    QuestionAskedEvent,
    SessionErrorEvent,
    SessionIdleEvent,
    UnknownOpencodeEvent,
    describe_error,
    parse_opencode_event,
)
from .types import OpencodeSessionState

__all__ = [
    "UNKNOWN_OPENCODE_ERROR",
    "ApprovalReply",
    "HttpOpencodeClient",
    "MessagePartDeltaEvent",
    "MessagePartUpdatedEvent",
    "MessageUpdatedEvent",
    "OpencodeClientProtocol",
    "OpencodeErrorInfo",
    "OpencodeEvent",
    "OpencodeMessageInfo",
    "OpencodePart",
    "OpencodePermissionRequest",
    "OpencodeQuestion",
    "OpencodeQuestionRequest",
    "OpencodeSessionState",
    "OpencodeTokens",
    "OpencodeToolState",
    "OpencodeToolStatus",
    "PermissionAskedEvent",
    "QuestionAskedEvent",
    "SessionErrorEvent",
    "SessionIdleEvent",
    "UnknownOpencodeEvent",
    "describe_error",
    "parse_opencode_event",
]
