"""One event for one topic, and its wire form between nodes.

A broadcast's payload is encoded once, where it is made: the hub pushes that text to local
sockets and the bus carries it to the other nodes as it is. A node that hears a broadcast
decodes only its header (topic, routing, meta) and pushes the payload's text untouched; the
payload is decoded only if something reads it (docs/decisions.md, "Two nodes: our own RESP
connection on hiredis, channels per topic").
"""

from __future__ import annotations

import json
import time
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

_COMPACT = json.JSONEncoder(separators=(",", ":")).encode
"""``json.dumps(..., separators=(",", ":"))`` without a new encoder per call."""

# ``JSONEncoder.encode`` builds the C encoder anew on every call (about a fifth of a
# payload's encoding): this one is built once, with the same options as ``_COMPACT`` and no
# circular check (a payload is plain data, never a cycle).
_C_ENCODER = c_make_encoder and c_make_encoder(
    None, json.JSONEncoder().default, encode_basestring_ascii, None, ":", ",", False, False, True
)


def payload_text(payload: Any) -> str:
    """``_COMPACT(payload)``: the same text (escaped to ASCII, as every push has been)."""
    if _C_ENCODER is None or isinstance(payload, str):
        return _COMPACT(payload)
    return "".join(_C_ENCODER(payload, 0))


# The wire form: one JSON object, ``{<origin>"at":"<8 digits>",<header>,"payload":<payload>}``.
# ``at`` is where the payload's text starts, so a reader slices it out instead of decoding it.
# A reader that ignores ``at`` decodes the whole object, and gets the same broadcast.
_AT = '"at":"'
_AT_WIDTH = 8
_PAYLOAD = ',"payload":'
_MAX_AT = 10**_AT_WIDTH - 1
_AT_BYTES, _PAYLOAD_BYTES = _AT.encode(), _PAYLOAD.encode()

_FIELDS = ("topic", "event", "agents", "users", "exclude_conn", "meta", "published_at")
_set = object.__setattr__


class Broadcast:
    """One event for one topic (immutable).

    ``agents`` narrows which agent sockets receive it: ``None`` means every agent subscribed to
    the topic, an empty set means none. ``users`` says whether person sockets receive it.
    ``exclude_conn`` skips one connection (the socket that caused the event).
    ``published_at`` (epoch seconds) travels with it, for the fan-out lag metric.
    ``payload_json`` is the payload's compact text, encoded at most once.
    """

    __slots__ = (*_FIELDS, "_payload", "_payload_json")

    topic: str
    event: str
    agents: frozenset[str] | None
    users: bool
    exclude_conn: str | None
    meta: dict[str, Any]
    published_at: float
    _payload: dict[str, Any] | None
    _payload_json: str | None

    def __new__(
        cls,
        topic: str,
        event: str,
        payload: dict[str, Any],
        agents: frozenset[str] | None = None,
        users: bool = True,
        exclude_conn: str | None = None,
        meta: dict[str, Any] | None = None,
        published_at: float | None = None,
        payload_json: str | None = None,
    ) -> Broadcast:
        return _fill(
            cls,
            topic,
            event,
            payload,
            agents,
            users,
            exclude_conn,
            meta,
            published_at,
            payload_json,
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Broadcast is immutable: cannot set {name}")

    @property
    def payload(self) -> dict[str, Any]:
        payload = self._payload
        if payload is None:
            text = self._payload_json
            payload = {} if text is None else json.loads(text)
            _set(self, "_payload", payload)
        return payload

    @property
    def payload_json(self) -> str:
        """The payload's compact text (``payload_text``), encoded on first use."""
        text = self._payload_json
        if text is None:
            text = payload_text(self._payload)
            _set(self, "_payload_json", text)
        return text

    def _key(self) -> tuple[Any, ...]:
        head = (self.topic, self.event, self.agents, self.users, self.exclude_conn, self.meta)
        return (*head, self.payload)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Broadcast):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        members = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS[:6])
        return f"Broadcast({members}, payload={self.payload!r})"

    def _header(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "event": self.event,
            "agents": None if self.agents is None else sorted(self.agents),
            "users": self.users,
            "exclude_conn": self.exclude_conn,
            "meta": self.meta,
            "published_at": self.published_at,
        }

    def to_wire(self, opening: str = "{") -> str:
        """The wire form, opening with ``opening`` (``{`` and, say, an origin's first member)."""
        header = payload_text(self._header())
        # opening, "at":"<digits>", then the header's members (without its braces), then ,"payload":
        start = len(opening) + len(_AT) + _AT_WIDTH + 2 + len(header) - 2 + len(_PAYLOAD)
        if start > _MAX_AT:  # an outsized header: readers decode the whole object
            return f"{opening}{header[1:-1]}{_PAYLOAD}{self.payload_json}}}"
        return f'{opening}{_AT}{start:0{_AT_WIDTH}d}",{header[1:-1]}{_PAYLOAD}{self.payload_json}}}'

    @classmethod
    def from_wire(cls, raw: bytes, opening: int = 1) -> Broadcast:
        """Read a wire form whose first ``opening`` bytes are ``{`` and what precedes ``at``.
        One without a usable ``at`` (an earlier node's, an outsized header's) is decoded whole.

        Raises ValueError, KeyError or TypeError on what is not a broadcast."""
        start = _payload_start(raw, opening)
        payload_json: str | None = None
        if start is None:
            d = json.loads(raw)
        else:
            d = json.loads(raw[: start - len(_PAYLOAD)] + b"}")
            payload_json = raw[start:-1].decode("ascii")
        if not isinstance(d, dict):
            raise TypeError(f"a broadcast is a JSON object, not {type(d).__name__}")
        agents = d.get("agents")
        return cls(
            topic=d["topic"],
            event=d["event"],
            payload=d["payload"] if payload_json is None else None,  # type: ignore[arg-type]
            agents=None if agents is None else frozenset(agents),
            users=bool(d.get("users", True)),
            exclude_conn=d.get("exclude_conn"),
            meta=d.get("meta") or {},
            published_at=float(d.get("published_at") or time.time()),
            payload_json=payload_json,
        )


class _Filling(Broadcast):
    """A Broadcast while ``Broadcast.__new__`` fills it in: the plain ``object`` setattr."""

    __slots__ = ()
    # object's own: the type then sets attributes in C, with no Python call.
    __setattr__ = object.__setattr__  # type: ignore[assignment]


_new = object.__new__


def _fill(
    cls: type[Broadcast],
    topic: str,
    event: str,
    payload: dict[str, Any] | None,
    agents: frozenset[str] | None,
    users: bool,
    exclude_conn: str | None,
    meta: dict[str, Any] | None,
    published_at: float | None,
    payload_json: str | None,
) -> Broadcast:
    # Filled in as a ``_Filling`` (plain attribute stores), then made a ``cls``: nine
    # ``object.__setattr__`` calls, one a field, cost several times more.
    self: Broadcast = _new(_Filling)
    self.topic = topic
    self.event = event
    self._payload = payload
    self._payload_json = payload_json  # its text, if its maker wrote it already
    self.agents = agents
    self.users = users
    self.exclude_conn = exclude_conn
    self.meta = {} if meta is None else meta
    self.published_at = time.time() if published_at is None else published_at
    self.__class__ = cls
    return self


def pushed(
    topic: str,
    event: str,
    payload: dict[str, Any],
    agents: frozenset[str] | None,
    payload_json: str | None,
) -> Broadcast:
    """``Broadcast(topic, event, payload, agents, payload_json=payload_json)``: for people
    and those ``agents``, no meta, made now. Plain calls: the class called with keywords
    (``type.__call__``, then ``__new__`` with the keywords' dict) cost several times this,
    and every post makes one."""
    return _fill(Broadcast, topic, event, payload, agents, True, None, None, None, payload_json)


def _payload_start(raw: bytes, opening: int) -> int | None:
    """Where the payload's text starts, as ``at`` says, if ``at`` is there and right."""
    end = opening + len(_AT)
    digits = raw[end : end + _AT_WIDTH]
    if raw[opening:end] != _AT_BYTES or not digits.isdigit() or raw[-1:] != b"}":
        return None
    start = int(digits)
    return start if raw[start - len(_PAYLOAD) : start] == _PAYLOAD_BYTES else None
