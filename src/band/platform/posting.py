"""Posting to a room, with the platform's content rules applied once for every caller.

Content without a visible character is not sent (the platform would refuse it as blank); an
event longer than the platform's cap keeps its head and tail around a marker; a post refused
because the room's execution is stopped raises ``RoomExecutionStoppedError``; a mention of
someone not in the room, and a message delivered to a recipient the platform could not name,
raise a classified ``MessagePostError``. ``RoomTools`` and any caller holding a REST client
(``post_message`` / ``post_event``) go through these rules.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from band.core._text import has_visible_text, truncate_middle
from band.core.exceptions import MessagePostError, MessagePostKind, RoomExecutionStoppedError
from band.platform.errors import BandRestError
from band_protocol import MAX_EVENT_CHARS

if TYPE_CHECKING:
    from band.client.rest import AsyncRestClient
    from band_protocol.requests import ChatEventRequest, ChatMessageRequest

__all__ = [
    "PostedMessage",
    "PostedRecipient",
    "classified_post_error",
    "event_content",
    "post_event",
    "post_message",
    "unconfirmed_recipients",
]

logger = logging.getLogger(__name__)


class PostedRecipient(BaseModel):
    """One recipient named in a post's answer; the platform may leave out the handle."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1)
    name: str | None = None
    handle: str | None = None

    @field_validator("handle", mode="before")
    @classmethod
    def _handle_is_text(cls, value: object) -> object:
        if value is not None and not isinstance(value, str):
            raise ValueError("a recipient's handle must be text")
        return value


class PostedMessage(BaseModel):
    """A post's answer: the new message's id and who it reached."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1)
    recipients: list[PostedRecipient]


def event_content(content: str, *, room_id: str = "", kind: str = "event") -> str | None:
    """What an event may carry: None when nothing visible, else at most the platform's cap."""
    if not has_visible_text(content):
        logger.warning("Room %s: not posting a %s with no visible content", room_id, kind)
        return None
    capped = truncate_middle(content, MAX_EVENT_CHARS)
    if len(capped) != len(content):
        logger.warning(
            "Room %s: %s of %d characters cut to the %d-character cap",
            room_id,
            kind,
            len(content),
            MAX_EVENT_CHARS,
        )
    return capped


def classified_post_error(error: BandRestError, room_id: str) -> Exception:
    """The exception a refused post raises: stopped execution and absent mentions classified."""
    if error.is_stopped_execution:
        return RoomExecutionStoppedError(room_id)
    if error.status == 422 and MessagePostKind.MENTION_NOT_IN_ROOM in (error.message, error.code):
        return MessagePostError.classified(
            MessagePostKind.MENTION_NOT_IN_ROOM, "a mentioned participant is not in the room"
        )
    return error


def unconfirmed_recipients(answer: Any) -> MessagePostError | None:
    """The error for a delivered message some recipient of which came back without a handle.

    The message *was* posted (resending would duplicate it), so the error says so; None when
    every recipient is confirmed or the answer does not have a post's shape.
    """
    data = answer.model_dump() if isinstance(answer, BaseModel) else answer
    try:
        posted = PostedMessage.model_validate(data)
    except ValidationError:
        return None
    missing = [r for r in posted.recipients if not r.handle]
    if not missing:
        return None
    who = ", ".join(_described(r) for r in missing)
    return MessagePostError.classified(
        MessagePostKind.UNCONFIRMED_RECIPIENT,
        f"message {posted.id} was delivered; do not resend; {who}",
    )


def _described(recipient: PostedRecipient) -> str:
    return f"id={recipient.id}" + (f" name={recipient.name}" if recipient.name else "")


async def post_message(*, rest: AsyncRestClient, room_id: str, request: ChatMessageRequest) -> Any:
    """Post a chat message through ``rest``; None (nothing sent) when it has no visible text.

    Returns the answer's ``data`` (``id``, ``recipients``); raises as the module docstring says.
    """
    if not has_visible_text(request.content):
        logger.warning("Room %s: not posting a message with no visible content", room_id)
        return None
    try:
        answer = await rest.agent_api_messages.create_agent_chat_message(room_id, message=request)
    except BandRestError as exc:
        raise classified_post_error(exc, room_id) from exc
    problem = unconfirmed_recipients(answer.data)
    if problem is not None:
        logger.error("Room %s: %s", room_id, problem)
        raise problem
    return answer.data


async def post_event(*, rest: AsyncRestClient, room_id: str, request: ChatEventRequest) -> Any:
    """Post an event through ``rest`` (content capped); None when it has no visible text."""
    content = event_content(request.content, room_id=room_id, kind=f"{request.message_type} event")
    if content is None:
        return None
    if content != request.content:
        request = request.model_copy(update={"content": content})
    try:
        answer = await rest.agent_api_events.create_agent_chat_event(room_id, event=request)
    except BandRestError as exc:
        raise classified_post_error(exc, room_id) from exc
    return answer.data
