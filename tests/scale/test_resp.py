"""The bus's own Redis connection: URLs, replies in order, errors, AUTH, a lost or silent peer."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import hiredis
import pytest

from band_server.fanout.bus import Broadcast
from band_server.fanout.redis_bus import RedisBus
from band_server.fanout.resp import Endpoint, RedisReplyError, open_connection

from .real_services import RedisServer


def test_endpoints_from_urls() -> None:
    assert Endpoint.from_url("redis://127.0.0.1:6400/0") == Endpoint(port=6400)
    assert Endpoint.from_url("redis://:s%40cret@cache.internal") == Endpoint(
        host="cache.internal", password="s@cret"
    )
    assert Endpoint.from_url("rediss://band:pw@10.0.0.5:6380") == Endpoint(
        host="10.0.0.5", port=6380, username="band", password="pw", tls=True
    )
    assert Endpoint.from_url("unix:///run/redis.sock") == Endpoint(path="/run/redis.sock")
    with pytest.raises(ValueError, match="not a Redis URL"):
        Endpoint.from_url("http://127.0.0.1:6379")


async def test_replies_come_back_in_order_and_an_error_reply_is_raised(
    redis_server: RedisServer,
) -> None:
    conn = await open_connection(redis_server.url)
    try:
        replies = [conn.command("SET", "k", "v"), conn.command("GET", "k"), conn.command("PING")]
        assert await asyncio.gather(*replies) == [b"OK", b"v", b"PONG"]
        with pytest.raises(RedisReplyError, match="unknown command"):
            await conn.command("NO-SUCH-COMMAND")
        assert await conn.command("INCRBY", "n", 41) == 41  # still usable, still in order
    finally:
        conn.close()


async def test_commands_sent_soon_go_out_in_one_write_in_order(
    redis_server: RedisServer,
) -> None:
    """Commands sent soon wait for the end of the loop pass, and go out together in one
    write; a command sent at once meanwhile (or a quiet one) goes after them."""
    conn = await open_connection(redis_server.url)
    writes: list[bytes] = []
    transport = conn._transport
    assert transport is not None
    write = transport.write

    def counted(data: bytes) -> None:
        writes.append(bytes(data))
        write(data)

    transport.write = counted  # type: ignore[method-assign]
    try:
        soon = [conn.command_soon("RPUSH", "order", str(n)) for n in range(3)]
        assert writes == []  # nothing written yet in this pass
        assert await asyncio.gather(*soon) == [1, 2, 3]
        assert len(writes) == 1
        writes.clear()
        more = [conn.command_soon("RPUSH", "order", "3"), conn.command("RPUSH", "order", "4")]
        assert len(writes) == 1  # the direct command took the held one along, ahead of it
        assert await asyncio.gather(*more) == [4, 5]
        conn.command_soon("RPUSH", "order", "5").add_done_callback(lambda f: f.exception())
        conn.send_quiet("RPUSH", "order", "6")
        assert await conn.command("LRANGE", "order", 0, -1) == [str(n).encode() for n in range(7)]
    finally:
        conn.close()


async def test_a_command_given_up_on_keeps_the_next_reply_for_the_next_command(
    redis_server: RedisServer,
) -> None:
    conn = await open_connection(redis_server.url)
    try:
        given_up = conn.command("BLPOP", "empty", "0.2")  # answered (nil) after 0.2 s
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await given_up
        assert await conn.command("ECHO", "mine") == b"mine"
    finally:
        conn.close()


async def test_a_password_in_the_url_logs_in(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, password="s3cret")
    server.start()
    try:
        conn = await open_connection(server.url)
        assert await conn.command("PING") == b"PONG"
        conn.close()
        wrong = server.url.replace("s3cret", "x9-not-it")
        with pytest.raises(RedisReplyError):
            await open_connection(wrong)
        with pytest.raises(RuntimeError, match="cannot reach Redis"):
            await RedisBus(wrong).start(_ignore)
        assert "x9-not-it" not in str(await _start_error(wrong))  # the password is not logged

        bus, other, got = RedisBus(server.url), RedisBus(server.url), asyncio.Queue[Broadcast]()
        await bus.start(_ignore)
        await other.start(got.put)
        await other.follow("chat_room:r1")
        try:
            sent = Broadcast("chat_room:r1", "message_created", {"n": 1})
            await bus.publish(sent)
            async with asyncio.timeout(5):
                assert await got.get() == sent  # published and heard, both logged in
        finally:
            await bus.stop()
            await other.stop()
    finally:
        server.stop()


@asynccontextmanager
async def fake_redis(handle: Callable[[bytes], bytes | None]) -> AsyncIterator[str]:
    """A TCP peer that answers each chunk read with ``handle(chunk)``; None closes."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while chunk := await reader.read(65536):
            answer = handle(chunk)
            if answer is None:
                break
            writer.write(answer)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        server.close()


async def test_a_lost_connection_fails_what_waits_and_refuses_what_follows() -> None:
    async with fake_redis(lambda chunk: None) as url:
        conn = await open_connection(url)
        waiting = conn.command("PING")
        with pytest.raises(ConnectionError, match="lost"):
            async with asyncio.timeout(5):
                await waiting
        assert not conn.alive
        with pytest.raises(ConnectionError):
            conn.command("PING")
        with pytest.raises(ConnectionError):
            await conn.heard()


async def test_what_is_not_resp_drops_the_connection() -> None:
    async with fake_redis(lambda chunk: b"?? not resp\r\n") as url:
        conn = await open_connection(url)
        with pytest.raises(ConnectionError):
            async with asyncio.timeout(5):
                await conn.command("PING")
        assert not conn.alive


async def test_a_silent_subscription_is_pinged_then_a_mute_peer_is_given_up() -> None:
    pings: list[bytes] = []

    def answer(chunk: bytes) -> bytes | None:
        pings.append(chunk)
        return b""  # reads, never answers

    async with fake_redis(answer) as url:
        conn = await open_connection(url)
        conn.watch(0.2, ping_after=0.1)
        try:
            started = time.monotonic()
            with pytest.raises(ConnectionError, match=r"did not answer within 0\.2s"):
                async with asyncio.timeout(5):
                    await conn.heard()
            assert b"PING" in b"".join(pings)
            assert 0.25 <= time.monotonic() - started < 2  # silent 0.1 s, then 0.2 s unanswered
            assert not conn.alive
        finally:
            conn.close()


async def test_a_command_left_unanswered_gives_the_connection_up() -> None:
    async with fake_redis(lambda chunk: b"") as url:  # reads, never answers
        conn = await open_connection(url)
        conn.watch(0.2)
        try:
            waiting = [conn.command("PUBLISH", "ch", "x"), conn.command("PUBLISH", "ch", "y")]
            for reply in waiting:
                with pytest.raises(ConnectionError, match="did not answer"):
                    async with asyncio.timeout(5):
                        await reply
        finally:
            conn.close()


async def test_a_busy_connection_is_not_given_up(redis_server: RedisServer) -> None:
    """Answered commands one after another, for longer than the watch's limit: the watch
    gives up only a reply that does not come."""
    conn = await open_connection(redis_server.url)
    conn.watch(0.2)
    try:
        async with asyncio.timeout(5):
            for n in range(60):
                assert await conn.command("ECHO", str(n)) == str(n).encode()
                await asyncio.sleep(0.01)
        assert conn.alive
    finally:
        conn.close()


async def test_messages_heard_between_replies_are_kept_in_order(redis_server: RedisServer) -> None:
    listener = await open_connection(redis_server.url)
    talker = await open_connection(redis_server.url)
    try:
        subscribed = await listener.command("SUBSCRIBE", "ch")
        assert subscribed[:2] == [b"subscribe", b"ch"]
        for n in range(50):
            talker.command("PUBLISH", "ch", f"m{n}")
        assert await talker.command("PUBLISH", "ch", "last") == 1
        heard: list[bytes] = []
        async with asyncio.timeout(5):
            while len(heard) < 51:
                await listener.heard()
                heard.extend(listener.messages)
                listener.messages.clear()
        assert heard == [f"m{n}".encode() for n in range(50)] + [b"last"]
        assert await listener.command("PING") == [b"pong", b""]  # RESP2, subscribed
    finally:
        listener.close()
        talker.close()


async def _ignore(broadcast: Broadcast) -> None:
    return None


async def _start_error(url: str) -> BaseException:
    try:
        await RedisBus(url).start(_ignore)
    except RuntimeError as exc:
        return exc
    raise AssertionError("the bus started with a wrong password")


def test_the_bus_works_on_uvloop_the_servers_loop(redis_server: RedisServer) -> None:
    """uvloop's transports are not ``asyncio.Transport`` subclasses (a check on that once
    stopped every node from starting); the server runs on uvloop, so the bus is tried there."""
    uvloop = pytest.importorskip("uvloop")

    async def round_trip() -> Broadcast:
        bus, other, got = RedisBus(redis_server.url), RedisBus(redis_server.url), asyncio.Queue()
        await bus.start(_ignore)
        await other.start(got.put)
        await other.follow("chat_room:r1")
        try:
            await bus.publish(Broadcast("chat_room:r1", "message_created", {"n": 1}))
            async with asyncio.timeout(5):
                heard: Broadcast = await got.get()  # through Redis, on the other node
                return heard
        finally:
            await bus.stop()
            await other.stop()

    assert isinstance(uvloop.new_event_loop(), uvloop.Loop)
    heard = uvloop.run(round_trip())
    assert heard == Broadcast("chat_room:r1", "message_created", {"n": 1})


async def test_quiet_commands_get_no_reply_and_the_next_reply_stays_in_step(
    redis_server: RedisServer,
) -> None:
    conn = await open_connection(redis_server.url)
    try:
        assert await conn.quiet_supported()
        for n in range(3):
            conn.send_quiet("SET", "quiet", f"v{n}")
        assert await conn.command("GET", "quiet") == b"v2"  # run in order, no reply skipped
        assert await conn.command("ECHO", "next") == b"next"
    finally:
        conn.close()


async def test_a_server_that_does_not_skip_replies_is_found_out() -> None:
    """A Redis-compatible server without ``CLIENT REPLY`` answers it with an error and still
    answers the command whose reply was to be skipped."""
    reader = hiredis.Reader()

    def answer(chunk: bytes) -> bytes | None:
        reader.feed(chunk)
        out = b""
        while (command := reader.gets()) is not False:
            name = command[0].upper()
            if name == b"CLIENT":
                out += b"-ERR unknown command 'CLIENT'\r\n"
            elif name == b"PING":
                out += b"+PONG\r\n"
            else:
                out += b"$%d\r\n%s\r\n" % (len(command[1]), command[1])
        return out

    async with fake_redis(answer) as url:
        conn = await open_connection(url)
        try:
            async with asyncio.timeout(5):
                assert not await conn.quiet_supported()
        finally:
            conn.close()


async def test_messages_with_the_drop_prefix_are_dropped_as_they_are_read(
    redis_server: RedisServer,
) -> None:
    listener = await open_connection(redis_server.url)
    talker = await open_connection(redis_server.url)
    try:
        await listener.command("SUBSCRIBE", "ch")
        listener.drop_prefix = b'{"origin":"me",'
        for data in ('{"origin":"me","n":1}', '{"origin":"you","n":2}', '{"n":3}'):
            talker.command("PUBLISH", "ch", data)
        assert await talker.command("PUBLISH", "ch", '{"origin":"me","n":4}') == 1
        assert await listener.command("PING") == [b"pong", b""]  # every message read by now
        assert list(listener.messages) == [b'{"origin":"you","n":2}', b'{"n":3}']
    finally:
        listener.close()
        talker.close()
