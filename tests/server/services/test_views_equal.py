"""The prebuilt views against the pydantic models they stand beside: same JSON for generated
rows (a differential property test).

- ``views.message_payload`` (every post, mark and ``/next`` answer) and ``views.message_view``
  against ``ChatMessage`` built from the row's fields by name, with and without a metadata of
  its own; ``views.message_payload_json`` (a post's push text) against ``payload_text``;
- ``views.encoded_meta`` (a post's metadata, its column's and its push's texts) against
  ``json.dumps`` and ``payload_text``;
- the answers built straight (``views.sent_answer`` with ``Recipient``s from
  ``mentions.ResolvedMention.recipient``, ``event_answer``, ``status_answer``,
  ``activity_answer``) against their response models;
- ``views.Quoted`` (kept texts of strings) against the encoders, ``hub.push_tail`` against
  ``json.dumps`` of its parts;
- ``protocol.iso`` (its second's text kept, digits looked up) against the ``strftime``
  format it replaces, also for runs of instants near one another;
- the fast lane's answer (``fast_lane._answer``) and a kept idempotent answer
  (``idempotency.answer_text``) against ``JSONResponse``;
- ``/next`` (``next_up``: plain rows, ``message_payload``, ``delivery_views.status_view``)
  against the history's view of the same message (ORM rows, ``delivery_views.chat_messages``,
  the model), on a database.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from json.encoder import encode_basestring, encode_basestring_ascii
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.responses import JSONResponse

from band.protocol import ChatMessage, iso
from band.protocol.messages import (
    ActivityResponse,
    EventCreatedResponse,
    MessageSentResponse,
    MessageStatusResponse,
    Recipient,
)
from band_server import json_text
from band_server.fanout.broadcast import payload_text
from band_server.http.fast_lane import _answer
from band_server.http.front import with_nosniff
from band_server.realtime.hub import push_tail
from band_server.services import views
from band_server.services.deliveries import next_up
from band_server.services.deliveries import wire as delivery_views
from band_server.services.idempotency.records import answer_text
from band_server.services.messages.mentions import ResolvedMention
from band_server.services.rooms.membership import Member
from band_server.store.db import Database
from band_server.store.migrate import upgrade
from band_server.store.models import Delivery, DeliveryAttempt, Message, Participant, Room, User
from property_kit import LoopThread

EXAMPLES = 300
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
metas = st.dictionaries(st.text(max_size=10), json_values, max_size=5)
zones = st.sampled_from(
    [None, UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
)
times = st.builds(
    lambda dt, tz: dt if tz is None else dt.replace(tzinfo=tz),
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    zones,
)
attachments = st.fixed_dictionaries(
    {
        "id": st.text(max_size=12),
        "name": st.text(max_size=20),
        "content_type": st.sampled_from(["image/png", "text/plain", "application/pdf"]),
        "bytes": st.integers(0, 2**40),
        "sha256": st.text("0123456789abcdef", min_size=64, max_size=64),
    },
    optional={"has_thumb": st.booleans(), "expires_at": st.none() | st.text(max_size=30)},
)


@st.composite
def posted(draw: st.DrawFn) -> views.Posted:
    created = draw(times)
    return views.Posted(
        id=draw(st.text(max_size=40)),
        room_id=draw(st.text(max_size=40)),
        seq=draw(st.integers(0, 2**53)),
        sender_id=draw(st.text(max_size=40)),
        sender_type=draw(st.sampled_from(["User", "Agent", "System"])),
        sender_name=draw(st.none() | st.text(max_size=30)),
        message_type=draw(st.sampled_from(["text", "thought", "tool_call", "task"]) | st.text()),
        content=draw(st.text()),
        meta=draw(metas),
        created_at=created,
        # A post's row is created and updated at one instant (one object): a shortcut there.
        updated_at=draw(st.just(created) | times),
        attachments=draw(st.none() | st.just([]) | st.lists(attachments, max_size=2)),
    )


def same_json(a: Any, b: Any) -> bool:
    """The same JSON text (key order aside): what a client would read."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@SETTINGS
@given(msg=posted(), metadata=st.none() | metas)
def test_message_payload_is_the_models_json(msg: views.Posted, metadata: Any) -> None:
    # The model built by pydantic from the row's fields named one by one: the reference, not
    # ``message_view``, which now validates ``message_payload``'s own dict.
    view = ChatMessage(
        id=msg.id,
        chat_room_id=msg.room_id,
        content=msg.content,
        message_type=msg.message_type,
        sender_id=msg.sender_id,
        sender_type=msg.sender_type,
        sender_name=msg.sender_name,
        metadata=dict(msg.meta or {}),
        attachments=list(msg.attachments or ()),
        seq=msg.seq,
        inserted_at=iso(msg.created_at),
        updated_at=iso(msg.updated_at),
    )
    assert same_json(views.message_view(msg).model_dump(mode="json"), view.model_dump(mode="json"))
    if metadata is not None:
        view.metadata = metadata
    assert same_json(views.message_payload(msg, metadata), view.model_dump(mode="json"))


# A payload's values changed to what the text built from its parts does not take as they are.
_ODD_VALUES = st.sampled_from([None, 7, True, 1.5, [], {"a": 1}, "x\u00e9\ud800"])


@SETTINGS
@given(
    msg=posted(),
    metadata=st.none() | metas,
    odd=st.none() | st.tuples(st.sampled_from(views._PAYLOAD_KEYS), _ODD_VALUES),
    reordered=st.booleans(),
)
def test_the_push_text_is_the_encoders(
    msg: views.Posted, metadata: Any, odd: tuple[str, Any] | None, reordered: bool
) -> None:
    """``message_payload_json`` (a post's push) gives ``payload_text``'s text for every payload:
    built from its parts for the usual shape, encoded whole for any other."""
    payload = views.message_payload(msg, metadata)
    if odd is not None:
        payload[odd[0]] = odd[1]
    if reordered:
        payload = dict(reversed(payload.items()))
    assert views.message_payload_json(payload) == payload_text(payload)


mention_items = st.fixed_dictionaries(
    {"id": st.text(), "handle": st.text(), "name": st.text(), "username": st.text()}
) | st.dictionaries(st.sampled_from(["id", "handle", "name", "username", "kind"]), json_values)
post_metas = st.fixed_dictionaries(
    {"mentions": st.lists(mention_items, max_size=3) | json_values, "status": json_values}
).flatmap(lambda meta: st.builds(lambda extra: {**meta, **extra}, metas))


@SETTINGS
@given(meta=post_metas | metas | st.dictionaries(st.integers(), json_values, max_size=2))
def test_a_posts_metadata_texts_are_the_encoders(meta: dict[Any, Any]) -> None:
    """``encoded_meta``'s texts (the column's, the push's) are the encoders' for any metadata:
    written from the parts for a post's usual shape, by the encoders for any other value."""
    encoded = views.encoded_meta(meta)
    assert encoded == meta
    assert json_text.dumps(encoded) == json.dumps(meta)
    if isinstance(encoded, json_text.Encoded):
        assert encoded.text == json.dumps(meta)
        assert encoded.compact == payload_text(meta)
        again = views.encoded_meta(meta)  # its mentions' texts kept now
        assert isinstance(again, json_text.Encoded)
        assert (again.text, again.compact) == (encoded.text, encoded.compact)
    else:
        assert encoded is meta and any(not isinstance(key, str) for key in meta)
    msg = views.Posted(
        "m", "r", 1, "s", "User", None, "text", "hi", encoded, *[datetime.now(UTC)] * 2
    )
    payload = views.message_payload(msg)
    compact = encoded.compact if isinstance(encoded, json_text.Encoded) else None
    assert views.message_payload_json(payload, compact) == payload_text(payload)


def test_a_full_cache_of_mention_texts_starts_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "_MENTIONS_KEPT", 1)
    items = [{"id": f"i{n}", "handle": "h", "name": "N\u00e9", "username": "h"} for n in range(3)]
    for _ in range(2):
        meta = {"mentions": items, "status": "sent"}
        encoded = views.encoded_meta(meta)
        assert isinstance(encoded, json_text.Encoded)
        assert (encoded.text, encoded.compact) == (json.dumps(meta), payload_text(meta))
    assert len(views._mention_texts) == 1


odd_values = json_values | st.just(float("nan"))


@SETTINGS
@given(
    message_id=odd_values,
    recipients=st.lists(
        st.dictionaries(st.sampled_from(["id", "handle", "name", "kind"]), odd_values) | odd_values,
        max_size=3,
    ),
)
def test_a_sent_answer_of_any_values_is_written_as_the_encoder_writes_it(
    message_id: Any, recipients: list[Any]
) -> None:
    """Values of other types than the wire's (numbers, nested, NaN): the text written from
    the parts, or the encoder's, and the encoder's failure (a NaN) as it is."""
    built = views.sent_answer(message_id, recipients)
    plain = {"id": message_id, "success": True, "recipients": recipients}
    assert built == plain
    try:
        expected = json.dumps(
            {"data": plain}, ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )
    except ValueError:
        with pytest.raises(ValueError):
            json_text.answer_text({"data": built})
        return
    assert json_text.answer_text({"data": built}) == expected


members = st.builds(
    lambda pid, name, handle: Member(
        Participant(participant_id=pid, participant_type="Agent", room_id="r"), name, handle, None
    ),
    st.text(min_size=1, max_size=36),
    st.text(max_size=30),
    st.text(max_size=30),
)


@SETTINGS
@given(
    message_id=st.text(max_size=40),
    mentioned=st.lists(members, max_size=4),
    message_type=st.text(),
    status=st.sampled_from(["processing", "processed", "failed"]),
    attempt=st.integers(0, 2**31),
    working=st.booleans(),
)
def test_the_answers_built_straight_are_their_models_json(
    message_id: str,
    mentioned: list[Member],
    message_type: str,
    status: str,
    attempt: int,
    working: bool,
) -> None:
    resolved = [ResolvedMention(m) for m in mentioned]
    recipients = [Recipient(id=m.id, handle=m.handle, name=m.name) for m in mentioned]
    sent = MessageSentResponse(id=message_id, recipients=recipients)
    built = views.sent_answer(message_id, [r.recipient() for r in resolved])
    assert same_json(built, sent.model_dump(mode="json"))
    # Its text, written from its strings, is what JSONResponse sends for the same answer.
    assert isinstance(built, json_text.Answer)
    kept = JSONResponse({"data": sent.model_dump(mode="json")}).body
    assert json_text.answer_text({"data": built}).encode("utf-8") == kept
    event = EventCreatedResponse(id=message_id, message_type=message_type)
    assert same_json(views.event_answer(message_id, message_type), event.model_dump(mode="json"))
    marked = MessageStatusResponse(id=message_id, status=status, attempt_number=attempt)  # type: ignore[arg-type]
    assert same_json(
        views.status_answer(message_id, status, attempt), marked.model_dump(mode="json")
    )
    activity = ActivityResponse(working=working)
    assert same_json(views.activity_answer(working), activity.model_dump(mode="json"))


@SETTINGS
@given(dt=times, other=times)
def test_iso_is_the_strftime_format(dt: datetime, other: datetime) -> None:
    """Also when the same object comes again (its text kept) and after another one."""
    utc = dt if dt.tzinfo is None else dt.astimezone(UTC)
    expected = utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert iso(dt) == expected
    assert iso(dt) == expected
    iso(other)
    assert iso(dt) == expected


@SETTINGS
@given(values=st.lists(st.text(max_size=8) | st.text(min_size=190, max_size=230), max_size=40))
def test_quoted_texts_are_the_encoders(values: list[str]) -> None:
    """Kept or not (short strings only, at most ``limit``: a small one here, so it is also
    dropped and filled again), each text is what the encoder writes; a string again is found
    and the same."""
    ascii_q, plain_q = views.Quoted(encode_basestring_ascii, 5), views.Quoted(encode_basestring)
    for value in values + values:
        assert ascii_q[value] == encode_basestring_ascii(value) == json.dumps(value)
        assert plain_q[value] == encode_basestring(value)
        assert views.QUOTED[value] == json.dumps(value)
        assert len(ascii_q) <= 5
    assert all(len(v) <= 200 for v in ascii_q)


@pytest.mark.parametrize("value", [None, 5, 1.5, True, b"x", ["x"], {"x": 1}])
def test_quoted_refuses_what_is_not_a_string_as_the_encoder_does(value: Any) -> None:
    with pytest.raises(TypeError):
        encode_basestring_ascii(value)
    with pytest.raises(TypeError):
        views.QUOTED[value]


@SETTINGS
@given(topic=st.text(max_size=30), event=st.text(max_size=20), payload=json_values)
def test_a_push_tail_is_json_dumps_of_its_parts(topic: str, event: str, payload: Any) -> None:
    body = json.dumps(payload, separators=(",", ":"))
    for _ in range(2):  # then with the topic's and event's texts kept
        tail = push_tail(topic, event, body)
        assert tail == f"{json.dumps(topic)},{json.dumps(event)},{body}]"


def _strftime_iso(dt: datetime) -> str:
    utc = dt if dt.tzinfo is None else dt.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# Runs of instants near one another (``iso`` keeps the text of the second it formatted last):
# around an anchor, a few microseconds to seconds apart, naive or in a zone, fold 0 or 1.
anchors = st.sampled_from(
    [
        datetime(2026, 12, 6, 14, 51, 38),
        datetime(2026, 12, 31, 23, 59, 59, 999_000),  # the year's last second
        datetime(1999, 12, 31, 23, 59, 58),
        datetime(2024, 2, 29, 0, 0, 0),
        datetime(1000, 1, 1, 0, 0, 1),  # strftime's years end just before
        datetime(1, 1, 2),
        datetime(9999, 12, 30, 23, 59, 59),
    ]
) | st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30))
steps = st.lists(
    st.tuples(
        st.integers(-2_500_000, 2_500_000) | st.sampled_from([0, 1, -1, 999_999, 1_000_000]),
        zones,
        st.integers(0, 1),
    ),
    min_size=1,
    max_size=12,
)


@SETTINGS
@given(anchor=anchors, steps=steps)
def test_iso_of_instants_near_one_another_is_the_strftime_format(
    anchor: datetime, steps: list[tuple[int, Any, int]]
) -> None:
    for micro, tz, fold in steps:
        dt = (anchor + timedelta(microseconds=micro)).replace(tzinfo=tz, fold=fold)
        assert iso(dt) == _strftime_iso(dt), dt


def test_iso_at_the_ends_of_time() -> None:
    """The last second there is has no second after it; years before 1000 keep strftime."""
    ends = [
        datetime.max,
        datetime.max.replace(tzinfo=UTC),
        datetime.max.replace(microsecond=0),
        datetime.min,
        datetime(999, 12, 31, 23, 59, 59, 999_999),
        datetime(1000, 1, 1),
        datetime.max,
        datetime(9999, 12, 31, 23, 59, 59, 5, tzinfo=UTC),
    ]
    for dt in ends:
        assert iso(dt) == _strftime_iso(dt), dt


@SETTINGS
@given(
    status=st.sampled_from([200, 201, 202, 204, 304, 400, 404, 409, 422, 500, 503]),
    content=json_values,
)
def test_the_lanes_answer_and_a_kept_answer_are_what_jsonresponse_sends(
    status: int, content: Any
) -> None:
    response = JSONResponse(content, status_code=status)
    start, body = _answer(status, content)
    assert start["status"] == status
    # As the front hands them on (``nosniff`` on every answer: the lane's carry it already).
    theirs: dict[str, Any] = {"headers": response.raw_headers}
    with_nosniff(theirs)
    ours = list(start["headers"])
    with_nosniff(start)
    assert start["headers"] == ours
    assert sorted(ours) == sorted(theirs["headers"])
    assert body["body"] == response.body
    assert answer_text({"data": content}).encode() == JSONResponse({"data": content}).body


# -- /next against the history, on a database --------------------------------------------------


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LoopThread, Database]]:
    loop = LoopThread()
    path: Path = tmp_path_factory.mktemp("views") / "views.db"
    db = Database(f"sqlite+aiosqlite:///{path}")

    async def prepare() -> None:
        await upgrade(db.engine)
        async with db.write() as session:
            session.add(User(id="u1", name="Ann", handle="ann", email="ann@example.org"))

    loop.run(prepare())
    yield loop, db
    loop.run(db.dispose())
    loop.stop()


attempt_rows = st.lists(
    st.tuples(
        st.sampled_from(["processing", "success", "failed"]),
        st.none() | st.text(max_size=40),
        times,
        st.none() | times,
    ),
    max_size=3,
)


def _utc(dt: datetime) -> datetime:
    """As the database gives it back: naive UTC (SQLite keeps the fields as given)."""
    return dt if dt.tzinfo is None else dt.astimezone(UTC).replace(tzinfo=None)


async def _both_views(
    db: Database, msg: views.Posted, delivery: dict[str, Any], attempts: list[Any]
) -> tuple[Any, Any]:
    room_id = f"room-{msg.id}"
    async with db.write() as session:
        session.add(Room(id=room_id, owner_id="u1", owner_type="User", last_seq=msg.seq))
        await session.flush()  # (no relationships: the session inserts in the order it flushes)
        session.add(
            Message(
                id=msg.id,
                room_id=room_id,
                seq=msg.seq,
                sender_id=msg.sender_id,
                sender_type=msg.sender_type,
                sender_name=msg.sender_name,
                message_type=msg.message_type,
                content=msg.content,
                meta=msg.meta,
                attachments=msg.attachments,
                created_at=_utc(msg.created_at),
                updated_at=_utc(msg.updated_at),
            )
        )
        await session.flush()
        session.add(
            Delivery(
                id=f"d-{msg.id}",
                message_id=msg.id,
                room_id=room_id,
                agent_id="a1",
                seq=msg.seq,
                **delivery,
            )
        )
        await session.flush()
        for n, (status, error, started, completed) in enumerate(attempts, start=1):
            session.add(
                DeliveryAttempt(
                    id=f"t-{msg.id}-{n}",
                    delivery_id=f"d-{msg.id}",
                    attempt_number=n,
                    status=status,
                    error=error,
                    started_at=_utc(started),
                    completed_at=None if completed is None else _utc(completed),
                )
            )
    async with db.read() as session:
        room = await session.get(Room, room_id)
        stored_msg = await session.get(Message, msg.id)
        assert room is not None and stored_msg is not None
        head = await next_up.next_message(db, room, "a1", lease=300.0)
        history = await delivery_views.chat_messages(session, [stored_msg], agent_id="a1")
    return (None if head is None else head.payload), history[0].model_dump(mode="json")


@settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    msg=posted(),
    status=st.sampled_from(["delivered", "processing", "failed"]),
    attempt_number=st.integers(0, 5),
    delivered_at=times,
    processed_at=st.none() | times,
    attempts=attempt_rows,
)
def test_next_serves_what_the_history_shows(
    stored: tuple[LoopThread, Database],
    msg: views.Posted,
    status: str,
    attempt_number: int,
    delivered_at: datetime,
    processed_at: datetime | None,
    attempts: list[Any],
) -> None:
    loop, db = stored
    msg = msg._replace(id=str(uuid.uuid4()))  # a row of its own
    delivery = {
        "status": status,
        "attempt_number": attempt_number,
        "delivered_at": _utc(delivered_at),
        "processed_at": None if processed_at is None else _utc(processed_at),
        "updated_at": datetime.now(UTC).replace(tzinfo=None),
    }
    lean, history = loop.run(_both_views(db, msg, delivery, attempts))
    assert lean is not None
    assert same_json(lean, history), (lean, history)
