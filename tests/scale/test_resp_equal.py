"""``fanout.resp`` against redis-py on a real ``redis-server``: a differential property test.

Generated sessions of the commands the bus sends (PING, ECHO, PUBLISH, SUBSCRIBE and
UNSUBSCRIBE of one channel, AUTH, ``CLIENT REPLY SKIP`` quiet commands, commands sent "soon"
in one loop pass with ``command_soon`` and maybe a direct command right after them in that
pass), commands Redis answers with an error (unknown, wrong arity, wrong type, refused while
subscribed), messages published by another client, and the connection killed by the server,
run once on our ``RespConnection`` and once on redis-py's own connection (RESP2, hiredis).
Both must see the same replies, the same error messages, the same messages in the same order,
and the same loss.

Then the bytes Redis sent to our connection are fed again to a fresh ``RespConnection``, split
at every offset (and at generated sets of offsets): the same replies and messages, however
the stream is cut (partial reads).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from redis import exceptions as redis_errors
from redis.asyncio import Redis
from redis.asyncio.connection import Connection

from band_server.fanout.resp import RedisReplyError, RespConnection
from property_kit import LoopThread, live

from .real_services import RedisServer

EXAMPLES = 200
WAIT = 5.0

# What the bus sends, and what Redis refuses. Each command gets exactly one reply (the bus
# subscribes and unsubscribes one channel at a time).
channels = st.sampled_from(["a", "b", "c"])
payloads = st.binary(max_size=40) | st.sampled_from([b"", b"\r\n", b"$-1\r\n", b"x" * 70_000])
commands = st.one_of(
    st.just(("PING",)),
    st.tuples(st.just("PING"), st.binary(max_size=20)),
    st.tuples(st.just("ECHO"), payloads),
    st.tuples(st.just("PUBLISH"), channels, payloads),
    st.tuples(st.just("SUBSCRIBE"), channels),
    st.tuples(st.just("UNSUBSCRIBE"), channels),
    st.sampled_from([("NO-SUCH-COMMAND",), ("PING", "a", "b"), ("ECHO",), ("PUBLISH", "a")]),
    st.sampled_from([("SET", "k", "v"), ("INCR", "k"), ("GET", "k"), ("DEL", "k")]),
)
# AUTH is what a connection sends first (the URL's password), so only first here: redis-py
# drops its connection on the error reply (AuthenticationError is a ConnectionError) and
# opens another for the next command; ours keeps it (the bus's open_connection closes it).
logins = st.tuples(st.just("AUTH"), st.text(min_size=1, max_size=8)).map(lambda c: ("cmd", c))
_KINDS = {
    "cmd": commands.map(lambda c: ("cmd", c)),
    "subscribe": st.tuples(st.just("SUBSCRIBE"), channels).map(lambda c: ("cmd", c)),
    "publish": st.tuples(channels, payloads).map(lambda p: ("publish", p)),
    "quiet": st.tuples(st.just("PUBLISH"), channels, payloads).map(lambda c: ("quiet", c)),
    "kill": st.just(("kill", ())),
    # command_soon's held commands of one pass, then (maybe) a direct command in that pass.
    "soon": st.tuples(
        st.lists(commands, min_size=1, max_size=3), st.lists(commands, max_size=1)
    ).map(lambda c: ("soon", (tuple(c[0]), tuple(c[1])))),
}
# Drawn by kind first, in these proportions (messages need a subscription, then a publish).
ops = st.sampled_from(
    ["cmd"] * 4 + ["subscribe"] * 2 + ["publish"] * 3 + ["quiet", "kill", "soon", "soon"]
).flatmap(_KINDS.__getitem__)


def as_the_bus_does(plan: list[Any]) -> list[Any]:
    """``plan`` as the bus would send it: quiet commands only on a connection that has not
    subscribed (the bus publishes on a connection of its own, after ``quiet_supported``), and
    one kill (a connection is lost once)."""
    kept: list[Any] = []
    subscribed = killed = False
    for kind, args in plan:
        if (kind == "quiet" and subscribed) or (kind == "kill" and killed):
            continue
        sent = [c for part in args for c in part] if kind == "soon" else [args]
        subscribed = subscribed or any(c[:1] == ("SUBSCRIBE",) for c in sent)
        killed = killed or kind == "kill"
        kept.append((kind, args))
    return kept


@dataclass
class Seen:
    """What one client saw: a reply (or error, or loss) per command, and the messages."""

    replies: list[Any] = field(default_factory=list)
    messages: list[bytes] = field(default_factory=list)


def _named(args: tuple[Any, ...], prefix: str) -> tuple[Any, ...]:
    """Channels of this example, apart from every other example's; a key of this client's
    own too (``prefix`` names the client as well)."""
    if args[0] in ("PUBLISH", "SUBSCRIBE", "UNSUBSCRIBE") and len(args) > 1:
        return (args[0], f"{prefix.split('/')[0]}:{args[1]}", *args[2:])
    if args[0] in ("SET", "INCR", "GET", "DEL"):
        return (args[0], f"{prefix}:{args[1]}", *args[2:])
    return args


class Recorded(RespConnection):
    """Our connection, keeping every byte it received from ``start`` on, and the point of
    that stream where each command was sent (``sync``: a round trip not compared)."""

    def __init__(self) -> None:
        super().__init__()
        self.stream = bytearray()
        self.start = 0
        self.sent: list[tuple[int, str, tuple[Any, ...]]] = []  # (offset, kind, args)

        self.gone = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        self.stream += data
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.gone.set()

    def command(self, *args: str | bytes | int) -> asyncio.Future[Any]:
        self.sent.append((len(self.stream) - self.start, "cmd", args))
        return super().command(*args)

    def command_soon(self, *args: str | bytes | int) -> asyncio.Future[Any]:
        self.sent.append((len(self.stream) - self.start, "cmd", args))
        return super().command_soon(*args)

    async def sync(self) -> None:
        """A PING round trip: what Redis sent before it has arrived."""
        if self.alive:
            self.sent.append((len(self.stream) - self.start, "sync", ("PING",)))
            await asyncio.wait_for(super().command("PING"), WAIT)

    def send_quiet_many(self, commands: list[tuple[str | bytes | int, ...]]) -> None:
        for args in commands:
            self.sent.append((len(self.stream) - self.start, "quiet", args))
        super().send_quiet_many(commands)


def _lost_or_error(exc: redis_errors.RedisError) -> tuple[Any, ...]:
    """redis-py's exception as what ours reports (its AuthenticationError is a
    ConnectionError, yet an error reply)."""
    if isinstance(exc, redis_errors.ResponseError | redis_errors.AuthenticationError):
        return ("error", str(exc))
    if isinstance(exc, redis_errors.ConnectionError):
        return ("lost",)
    raise exc


async def _answer(seen: Seen, waiter: asyncio.Future[Any] | None) -> None:
    """Record one command's reply on our connection (``None``: refused as lost at once)."""
    try:
        if waiter is None:
            raise ConnectionError("lost")
        seen.replies.append(("ok", await asyncio.wait_for(waiter, WAIT)))
    except RedisReplyError as exc:
        seen.replies.append(("error", str(exc)))
    except ConnectionError:
        seen.replies.append(("lost",))


async def run_ours(url: str, admin: Redis, plan: list[Any], prefix: str) -> tuple[Seen, Recorded]:
    host, port = url.removeprefix("redis://").split("/")[0].split(":")
    loop = asyncio.get_running_loop()
    _, conn = await loop.create_connection(Recorded, host, int(port))
    client_id = await RespConnection.command(conn, "CLIENT", "ID")
    conn.start = len(conn.stream)
    seen = Seen()
    for kind, args in plan:
        if kind == "publish":
            await admin.publish(f"{prefix.split('/')[0]}:{args[0]}", args[1])
        elif kind == "kill":
            await conn.sync()  # nothing Redis sent before is lost with the connection
            await admin.execute_command("CLIENT", "KILL", "ID", client_id)
            await asyncio.wait_for(conn.gone.wait(), WAIT)
        elif kind == "quiet":
            with contextlib.suppress(ConnectionError):
                conn.send_quiet(*_named(args, prefix))
        elif kind == "soon":
            held, now = args
            sends = [(conn.command_soon, c) for c in held] + [(conn.command, c) for c in now]
            waiters: list[asyncio.Future[Any] | None] = []
            for send, command in sends:  # all in this pass of the loop
                try:
                    waiters.append(send(*_named(command, prefix)))
                except ConnectionError:
                    waiters.append(None)
            for waiter in waiters:
                await _answer(seen, waiter)
        else:
            try:
                waiter = conn.command(*_named(args, prefix))
            except ConnectionError:
                waiter = None
            await _answer(seen, waiter)
    await conn.sync()  # every message sent before has arrived
    seen.messages = list(conn.messages)
    conn.close()
    return seen, conn


async def run_redis_py(url: str, admin: Redis, plan: list[Any], prefix: str) -> Seen:
    host, port = url.removeprefix("redis://").split("/")[0].split(":")
    conn = Connection(host=host, port=int(port), protocol=2)
    await conn.connect()
    seen = Seen()
    lost = False
    client_id: int | None = None

    async def reply() -> Any:
        while True:
            answer = await conn.read_response(timeout=WAIT)
            if isinstance(answer, list) and answer and answer[0] == b"message":
                seen.messages.append(answer[2])
                continue
            return answer

    async def sync() -> None:
        nonlocal lost
        if not lost:
            try:
                await conn.send_command("PING")
                await reply()
            except redis_errors.ConnectionError:
                lost = True

    for n, (kind, args) in enumerate(plan):
        if client_id is None and (n > 0 or args[:1] != ("AUTH",)):
            # Once past the login (after which redis-py may be on a new connection).
            await conn.send_command("CLIENT", "ID")
            client_id = await conn.read_response()
        if kind == "publish":
            await admin.publish(f"{prefix.split('/')[0]}:{args[0]}", args[1])
        elif kind == "kill":
            await sync()
            await admin.execute_command("CLIENT", "KILL", "ID", client_id)
            client_id = -1  # gone
        elif kind == "quiet":
            if not lost:
                try:
                    await conn.send_command("CLIENT", "REPLY", "SKIP")
                    await conn.send_command(*_named(args, prefix))
                except redis_errors.ConnectionError:
                    lost = True
        else:  # a command, or "soon"'s commands of one pass: redis-py sends each in turn
            for command in [*args[0], *args[1]] if kind == "soon" else [args]:
                if lost:
                    seen.replies.append(("lost",))
                    continue
                try:
                    await conn.send_command(*_named(command, prefix))
                    seen.replies.append(("ok", await reply()))
                except redis_errors.RedisError as exc:
                    seen.replies.append(_lost_or_error(exc))
                    lost = seen.replies[-1] == ("lost",)
    await sync()
    await conn.disconnect()
    return seen


def _same_error(ours: Any, theirs: Any) -> bool:
    """redis-py drops the error's code word (``ERR``) from its message; ours keeps it."""
    if ours[0] != "error" or theirs[0] != "error":
        return bool(ours == theirs)
    return bool(ours[1] == theirs[1] or ours[1].split(" ", 1)[-1] == theirs[1])


# -- replaying the stream ----------------------------------------------------------------------


class _Transport:
    def __init__(self) -> None:
        self.closed = False

    def get_extra_info(self, name: str) -> None:
        return None

    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True


async def replay(recorded: Recorded, cuts: set[int], lost: bool) -> Seen:
    """Feed what Redis sent, cut at ``cuts``, to a fresh connection; each command is sent at
    the point of the stream it was sent at first."""
    conn = RespConnection()
    conn.connection_made(_Transport())  # type: ignore[arg-type]
    stream = bytes(recorded.stream[recorded.start :])
    sent = list(recorded.sent)
    inner = {c for c in cuts if 0 < c < len(stream)}
    points = sorted({0, len(stream), *inner, *(o for o, _, _ in sent)})
    waiters: list[tuple[str, asyncio.Future[Any]]] = []
    for begin, end in zip(points, [*points[1:], None], strict=True):
        while sent and sent[0][0] <= begin:
            _, kind, args = sent.pop(0)
            if kind == "quiet":
                conn.send_quiet(*args)
            else:
                waiters.append((kind, conn.command(*args)))
        if end is not None:
            conn.data_received(stream[begin:end])
    if lost:
        conn.connection_lost(None)
    seen = Seen()
    for kind, waiter in waiters:
        if kind != "cmd":
            continue
        if not waiter.done():
            seen.replies.append(("pending",))
        elif isinstance(waiter.exception(), RedisReplyError):
            seen.replies.append(("error", str(waiter.exception())))
        elif waiter.exception() is not None:
            seen.replies.append(("lost",))
        else:
            seen.replies.append(("ok", waiter.result()))
    for _, waiter in waiters:  # retrieved: no "never retrieved" warning
        if waiter.done() and not waiter.cancelled():
            waiter.exception()
    seen.messages = list(conn.messages)
    return seen


# -- the property ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def redis_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis-equal"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_resp_answers_as_redis_py_and_however_the_stream_is_cut(redis_once: RedisServer) -> None:
    loop = LoopThread()
    admin = Redis.from_url(redis_once.url, protocol=2)
    counts = {"sessions": 0, "commands": 0, "errors": 0, "messages": 0, "lost": 0, "cuts": 0}
    try:

        @live(EXAMPLES)
        @given(
            login=st.lists(logins, max_size=1),
            rest=st.lists(ops, min_size=1, max_size=12),
            extra_cuts=st.sets(st.integers(0, 400)),
        )
        def alike(login: list[Any], rest: list[Any], extra_cuts: set[int]) -> None:
            plan = as_the_bus_does(login + rest)
            prefix = uuid.uuid4().hex[:8]
            note(repr(plan))
            ours, recorded = loop.run(run_ours(redis_once.url, admin, plan, f"{prefix}/ours"))
            theirs = loop.run(run_redis_py(redis_once.url, admin, plan, f"{prefix}/redis-py"))
            assert len(ours.replies) == len(theirs.replies), (ours, theirs)
            for a, b in zip(ours.replies, theirs.replies, strict=True):
                assert _same_error(a, b), (a, b, ours, theirs)
            assert ours.messages == theirs.messages
            lost = any(k == "kill" for k, _ in plan)
            length = len(recorded.stream) - recorded.start
            # Every single cut of a short stream; generated cuts, and every 7th byte, of any.
            cut_sets = [{c} for c in range(1, length)] if length <= 600 else []
            cut_sets += [{c % max(length, 1) for c in extra_cuts}, set(range(1, length, 7))]
            for cuts in cut_sets:
                again = loop.run(replay(recorded, cuts, lost))
                assert again.replies == ours.replies, (sorted(cuts)[:20], again, ours)
                assert again.messages == ours.messages, sorted(cuts)[:20]
            counts["sessions"] += 1
            counts["cuts"] += len(cut_sets)
            counts["commands"] += len(ours.replies)
            counts["errors"] += sum(r[0] == "error" for r in ours.replies)
            counts["lost"] += sum(r[0] == "lost" for r in ours.replies)
            counts["messages"] += len(ours.messages)

        alike()
    finally:
        loop.run(admin.aclose())
        loop.stop()
    print(f"\nresp vs redis-py: {counts}")
    assert counts["errors"] and counts["messages"] and counts["lost"], counts
