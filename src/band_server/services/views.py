"""Rows to wire models: the one place that shapes what clients see."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from json.encoder import encode_basestring as _plain
from json.encoder import encode_basestring_ascii as _text
from typing import Any, NamedTuple, TypeAlias, TypeVar

from pydantic import BaseModel

from band_protocol import ChatMessage, ChatParticipant, ChatRoom, RoomEvent, iso

from ..fanout.broadcast import payload_text
from ..json_text import Answer, Encoded, answer_text, dumps
from ..store.models import Message, Room

View = TypeVar("View", bound=BaseModel)


class Quoted(dict[str, str]):
    """Strings' JSON texts as ``encode`` writes them (``Quoted(encode)[value]``), kept for the
    strings that come again and again (a room's and its members' ids, handles and names,
    message and sender types, metadata keys, topics and events): a lookup, not the escaping
    again on every post. Kept only for short strings, and at most ``limit`` (then dropped all
    at once: the next ones fill it again). Not a string: ``encode``'s TypeError, as the
    encoder raises it."""

    def __init__(self, encode: Callable[[str], str], limit: int = 4096) -> None:
        super().__init__()
        self.encode = encode
        self.limit = limit

    def __missing__(self, value: str) -> str:
        text = self.encode(value)
        if len(value) <= 200:
            if len(self) >= self.limit:
                self.clear()
            self[value] = text
        return text


QUOTED = Quoted(_text)  # ``ensure_ascii``'s texts: a push's, a metadata column's
_QUOTED_PLAIN = Quoted(_plain)  # an answer's (``JSONResponse`` writes UTF-8 as it is)


class Posted(NamedTuple):
    """A message's row as plain values: as just written (its answer and broadcast are shaped
    from it), or as a delivery mark read it.

    Not an ORM ``Message``: building one (instrumented attributes, instance state) cost more
    than the insert itself on the post path. A named tuple, not a frozen dataclass: as
    immutable, and built in one step where a frozen dataclass sets each of its twelve fields
    through ``object.__setattr__``, on every post and mark.
    """

    id: str
    room_id: str
    seq: int
    sender_id: str
    sender_type: str
    sender_name: str | None
    message_type: str
    content: str
    meta: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    attachments: list[dict[str, Any]] | None = None


MessageRow: TypeAlias = Message | Posted
"""What a message view reads: a loaded ``Message`` or a just-written ``Posted``."""


class _AsWire:
    """A row read under the wire's names: ``fields`` first, then the row's attributes, with
    times as ISO text and ``inserted_at`` read from ``created_at``."""

    __slots__ = ("_fields", "_row")

    def __init__(self, row: object, fields: dict[str, Any]) -> None:
        self._row = row
        self._fields = fields

    def __getattr__(self, name: str) -> Any:
        if name in self._fields:
            return self._fields[name]
        value = getattr(self._row, "created_at" if name == "inserted_at" else name)
        return iso(value) if isinstance(value, datetime) else value


def from_row(model: type[View], row: object, /, **fields: Any) -> View:
    """``model`` built from ``row``'s attributes of the same names (pydantic validates each),
    ``fields`` in place of those the wire renames or derives; a field the model does not
    declare is kept as an extra, as the wire models keep unknown fields.

    Not for what every post builds (``message_payload``, the answers): reading through
    ``_AsWire`` costs more than naming each field.
    """
    view = model.model_validate(_AsWire(row, fields), from_attributes=True)
    extras = {name: value for name, value in fields.items() if name not in model.model_fields}
    return view.model_copy(update=extras) if extras else view


def room_view(room: Room) -> ChatRoom:
    return from_row(ChatRoom, room)


def room_event(room: Room) -> RoomEvent:
    return from_row(RoomEvent, room)


def message_view(msg: MessageRow) -> ChatMessage:
    """The message's wire model: ``message_payload``'s fields, validated."""
    return ChatMessage.model_validate(message_payload(msg))


def message_payload(msg: MessageRow, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """``message_view(msg).model_dump(mode="json")`` (with ``metadata`` in place of the
    message's own, if given), built straight: every post and mark broadcasts one, and the model
    round trip cost a fifth of an event post's own work. A message with attachments still
    goes through the model (it fills each attachment's defaults)."""
    inserted = iso(msg.created_at)
    # A message just posted was created and updated at the same instant (one object).
    updated = inserted if msg.updated_at is msg.created_at else iso(msg.updated_at)
    payload: dict[str, Any] = {
        "id": msg.id,
        "chat_room_id": msg.room_id,
        "content": msg.content,
        "message_type": msg.message_type,
        "sender_id": msg.sender_id,
        "sender_type": msg.sender_type,
        "sender_name": msg.sender_name,
        "metadata": dict(msg.meta or {}) if metadata is None else metadata,
        "attachments": [],
        "seq": msg.seq,
        "inserted_at": inserted,
        "updated_at": updated,
    }
    if msg.attachments:
        payload["attachments"] = msg.attachments
        return ChatMessage.model_validate(payload).model_dump(mode="json")
    return payload


_PAYLOAD_KEYS = (
    "id",
    "chat_room_id",
    "content",
    "message_type",
    "sender_id",
    "sender_type",
    "sender_name",
    "metadata",
    "attachments",
    "seq",
    "inserted_at",
    "updated_at",
)


def message_payload_json(payload: dict[str, Any], metadata_text: str | None = None) -> str:
    """``payload_text(payload)`` (a push's text) for a :func:`message_payload` dict, from its
    parts: its keys are written here once, not escaped again for every post, and only the
    metadata goes through the encoder (or is ``metadata_text``, its text already written:
    ``json_text.Encoded.compact``). Any other shape (attachments, keys in another order, a
    value of another type) is encoded whole (``tests/server/services/test_views_equal.py``
    compares the two)."""
    p, seq, name = payload, payload.get("seq"), payload.get("sender_name")
    if tuple(p) != _PAYLOAD_KEYS or p["attachments"] != [] or type(seq) is not int:
        return payload_text(p)
    q, inserted, updated = QUOTED, p["inserted_at"], p["updated_at"]
    try:
        at = _text(inserted)
        return (
            f'{{"id":{_text(p["id"])},"chat_room_id":{q[p["chat_room_id"]]},'
            f'"content":{_text(p["content"])},"message_type":{q[p["message_type"]]},'
            f'"sender_id":{q[p["sender_id"]]},"sender_type":{q[p["sender_type"]]},'
            f'"sender_name":{"null" if name is None else q[name]},'
            f'"metadata":{metadata_text or payload_text(p["metadata"])},"attachments":[],'
            f'"seq":{int.__repr__(seq)},'
            f'"inserted_at":{at},"updated_at":{at if updated is inserted else _text(updated)}}}'
        )
    except TypeError:  # a value that is not a string where one is written as one
        return payload_text(p)


_MENTION_KEYS = ("id", "handle", "name", "username")
_RECIPIENT_KEYS = ("id", "handle", "name")


def encoded_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` (a post's metadata, complete) with its column's and its push's texts
    (``json_text.Encoded``), written from its parts: a mention of the usual shape
    (``ResolvedMention.metadata``: four strings) from its strings, a string as itself, any
    other value by the encoders (two encodes of the whole cost several times this; compared
    in ``tests/server/services/test_views_equal.py``). A key that is not a string: ``meta``
    as it is."""
    loose: list[str] = []  # ``json.dumps``'s separators
    tight: list[str] = []  # the push's
    for key, value in meta.items():
        if type(key) is not str:
            return meta
        name = QUOTED[key]
        if type(value) is str:
            spaced = compact = _text(value)
        elif key == "mentions" and type(value) is list:
            spaced, compact = _mentions_texts(value)
        else:
            spaced, compact = dumps(value), payload_text(value)
        loose.append(f"{name}: {spaced}")
        tight.append(f"{name}:{compact}")
    encoded = Encoded(meta)
    encoded.text = "{" + ", ".join(loose) + "}"
    encoded.compact = "{" + ",".join(tight) + "}"
    return encoded


# A mention's two texts by its four strings: a room's members are mentioned again and again.
# At most ``_MENTIONS_KEPT`` (then dropped all at once, as ``Quoted``'s).
_mention_texts: dict[tuple[str, str, str, str], tuple[str, str]] = {}
_MENTIONS_KEPT = 4096


def _mentions_texts(items: list[Any]) -> tuple[str, str]:
    loose: list[str] = []
    tight: list[str] = []
    for item in items:
        if type(item) is dict and tuple(item) == _MENTION_KEYS:
            i, h, n, u = strings = item["id"], item["handle"], item["name"], item["username"]
            if type(i) is str and type(h) is str and type(n) is str and type(u) is str:
                texts = _mention_texts.get(strings)
                if texts is None:
                    q = QUOTED
                    i, h, n, u = q[i], q[h], q[n], q[u]
                    texts = (
                        f'{{"id": {i}, "handle": {h}, "name": {n}, "username": {u}}}',
                        f'{{"id":{i},"handle":{h},"name":{n},"username":{u}}}',
                    )
                    if len(_mention_texts) >= _MENTIONS_KEPT:
                        _mention_texts.clear()
                    _mention_texts[strings] = texts
                loose.append(texts[0])
                tight.append(texts[1])
                continue
        loose.append(dumps(item))
        tight.append(payload_text(item))
    return "[" + ", ".join(loose) + "]", "[" + ",".join(tight) + "]"


# The answers of the agent's busiest calls, each its model's JSON built straight: the model
# and its dump cost more than the dict (compared in tests/server/services/test_views_equal.py).


def sent_answer(message_id: str, recipients: list[dict[str, Any]]) -> dict[str, Any]:
    """``MessageSentResponse(...).model_dump(mode="json")`` (``recipients``: each a
    ``Recipient``'s JSON), with its answer's text (``json_text.Answer``) written from its
    strings: the encoder's pass over it cost several times this."""
    answer = Answer({"id": message_id, "success": True, "recipients": recipients})
    q = _QUOTED_PLAIN
    try:
        texts: list[str] = []  # (a loop: a comprehension is a call of its own)
        for r in recipients:
            texts.append(
                f'{{"id":{q[r["id"]]},"handle":{q[r["handle"]]},"name":{q[r["name"]]}}}'
                if type(r) is dict and tuple(r) == _RECIPIENT_KEYS
                else answer_text(r)
            )
        listed = ",".join(texts)
        answer.text = f'{{"id":{_plain(message_id)},"success":true,"recipients":[{listed}]}}'
    except (TypeError, ValueError):  # not a string where one is written as one, a NaN...
        return dict(answer)  # the encoder writes it, as any answer (or fails as it would)
    return answer


def event_answer(message_id: str, message_type: str) -> dict[str, Any]:
    """``EventCreatedResponse(...).model_dump(mode="json")``."""
    return {"id": message_id, "message_type": message_type, "success": True}


def status_answer(message_id: str, status: str, attempt_number: int) -> dict[str, Any]:
    """``MessageStatusResponse(...).model_dump(mode="json")`` (a delivery mark's answer)."""
    return {"id": message_id, "status": status, "attempt_number": attempt_number, "success": True}


def activity_answer(working: bool) -> dict[str, Any]:
    """``ActivityResponse(...).model_dump(mode="json")``."""
    return {"working": working}


__all__ = [
    "ChatParticipant",
    "MessageRow",
    "Posted",
    "activity_answer",
    "encoded_meta",
    "event_answer",
    "from_row",
    "message_payload",
    "message_payload_json",
    "message_view",
    "room_event",
    "room_view",
    "sent_answer",
    "status_answer",
]
