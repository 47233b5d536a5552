"""One Band WebSocket for every room view process of one agent, and the waits it wakes.

Claude Desktop starts one stdio process per conversation, all as the same agent, and the
platform keeps one socket per agent key. So the processes elect a leader through a per-agent
``fcntl`` lock: the leader holds the WebSocket (``BandLink`` + ``RoomPresence``) and serves a
Unix socket; the others follow it, reading one line per fact (``event <room>`` when a room
changed, ``joined <room>`` when the agent was added to one). Every process wakes its local
waits through ``RoomEventBroker``. Losing the role (the socket superseded, the leader gone)
re-elects, backing off up to a ceiling; reads keep working over REST meanwhile.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import logging
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from band.platform.event import PlatformEvent
from band.platform.link import BandLink
from band.runtime.presence import RoomPresence

__all__ = [
    "RELAY_TUNING",
    "STATE_DIR",
    "DesktopRoomEventRelay",
    "Fanout",
    "RelayRole",
    "RelayStatus",
    "RelayTuning",
    "RoomEventBroker",
    "deliver",
    "fanout",
]

logger = logging.getLogger(__name__)


def _state_dir() -> Path:
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "band-sdk"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "band-sdk"


STATE_DIR = _state_dir()


class RelayTuning(BaseSettings):
    """The relay's timings (environment variables of the same names)."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, env_ignore_empty=True)

    band_relay_start_timeout_s: float = Field(
        30, ge=1, description="How long start() waits for a first role."
    )
    band_relay_retry_delay_s: float = Field(
        1, gt=0, description="The first wait after the relay's transport failed."
    )
    band_relay_max_retry_delay_s: float = Field(
        60, ge=1, description="The longest wait between attempts."
    )
    band_relay_fanout_timeout_s: float = Field(
        5, gt=0, description="How long one follower may take to accept a line."
    )


RELAY_TUNING = RelayTuning()


class Fanout(StrEnum):
    """The kinds of line a leader sends its followers: ``<kind> <room id>``."""

    EVENT = "event"
    JOINED = "joined"


class RelayRole(StrEnum):
    """This process's part in the relay."""

    STARTING = "starting"
    LEADER = "leader"
    FOLLOWER = "follower"


async def deliver(writer: asyncio.StreamWriter, payload: bytes) -> bool:
    """Send one line to a follower within the fan-out timeout; False when it cannot take it."""
    try:
        async with asyncio.timeout(RELAY_TUNING.band_relay_fanout_timeout_s):
            writer.write(payload)
            await writer.drain()
    except (ConnectionError, RuntimeError, TimeoutError):
        return False
    return True


async def fanout(clients: set[asyncio.StreamWriter], payload: bytes) -> None:
    """Send one line to every follower at once; one that stopped reading is dropped (so a
    frozen follower costs the event path one timeout, not one per follower)."""
    followers = list(clients)
    results = await asyncio.gather(*(deliver(writer, payload) for writer in followers))
    for writer, ok in zip(followers, results, strict=True):
        if not ok:
            logger.warning("dropping a follower that stopped reading")
            clients.discard(writer)
            writer.close()


class RelayStatus(BaseModel):
    """How this process receives room events right now."""

    role: RelayRole = RelayRole.STARTING
    websocket_connected: bool = False
    events_received: int = 0
    rooms_added: list[str] = Field(default_factory=list)
    last_error: str | None = None

    @property
    def live(self) -> bool:
        """Whether events arrive as they happen (as a follower, or on our own socket)."""
        return self.role is RelayRole.FOLLOWER or self.websocket_connected

    @property
    def warning(self) -> str:
        """What the agent is told while events do not arrive live ("" while they do)."""
        if self.live:
            return ""
        return (
            f"Warning: this agent's Band WebSocket is down ({self.last_error or 'reason unknown'}"
            "): room events reach it late, over REST, and Band shows the agent offline. Another "
            "process may be using the same agent key."
        )


class RoomEventBroker:
    """A version counter per room; waits end when their room's version moves past theirs."""

    def __init__(self) -> None:
        self._versions: defaultdict[str, int] = defaultdict(int)
        self._changed: defaultdict[str, asyncio.Condition] = defaultdict(asyncio.Condition)

    def version(self, chat_id: str) -> int:
        return self._versions[chat_id]

    async def publish(self, chat_id: str) -> None:
        changed = self._changed[chat_id]
        async with changed:
            self._versions[chat_id] += 1
            changed.notify_all()

    async def wait(self, chat_id: str, *, after_version: int, timeout_seconds: int) -> bool:
        """True when the room changed after ``after_version`` within the timeout."""
        changed = self._changed[chat_id]
        try:
            async with asyncio.timeout(timeout_seconds), changed:
                await changed.wait_for(lambda: self._versions[chat_id] > after_version)
        except TimeoutError:
            return False
        return True


def _line(kind: Fanout, room_id: str) -> bytes:
    return f"{kind} {room_id}\n".encode()


class DesktopRoomEventRelay:
    """Lead (hold the agent's WebSocket) or follow (read the leader's lines), re-electing
    whenever the role ends, until ``stop()``."""

    def __init__(
        self,
        *,
        agent_id: str,
        agent_key: str,
        rest_url: str,
        ws_url: str,
        state_dir: Path | None = None,
        link_factory: Callable[..., BandLink] = BandLink,
        presence_factory: Callable[[BandLink], RoomPresence] = RoomPresence,
    ) -> None:
        self._directory = state_dir or STATE_DIR
        key = hashlib.sha256(agent_id.encode()).hexdigest()[:16]
        self._lock_path = self._directory / f"desktop-{key}.lock"
        self._socket_path = self._directory / f"desktop-{key}.sock"
        self._agent_id, self._agent_key = agent_id, agent_key
        self._rest_url, self._ws_url = rest_url, ws_url
        self._link_factory, self._presence_factory = link_factory, presence_factory
        self.events = RoomEventBroker()
        self.status = RelayStatus()
        self._ready = asyncio.Event()
        self._stopped = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start electing; wait (bounded) for a first role, but never fail for lack of one."""
        self._directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._task = asyncio.create_task(self._supervise(), name="band-desktop-relay")
        try:
            async with asyncio.timeout(RELAY_TUNING.band_relay_start_timeout_s):
                await self._ready.wait()
        except TimeoutError:
            logger.warning(
                "relay has no role after %.0fs (%s); reading rooms over REST meanwhile",
                RELAY_TUNING.band_relay_start_timeout_s,
                self.status.last_error or "reason unknown",
            )
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        self._stopped.set()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _supervise(self) -> None:
        delay = RELAY_TUNING.band_relay_retry_delay_s
        while not self._stopped.is_set():
            try:
                with self._leadership() as leading:
                    await (self._lead() if leading else self._follow())
                delay = RELAY_TUNING.band_relay_retry_delay_s
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.warning("desktop relay restarting: %s", exc, exc_info=True)
                self.status.last_error = f"{type(exc).__name__}: {exc}"
                backoff = getattr(exc, "retry_after", None) or delay * 2
                delay = min(backoff, RELAY_TUNING.band_relay_max_retry_delay_s)
            if not self._stopped.is_set():
                await asyncio.sleep(delay)

    @contextmanager
    def _leadership(self) -> Iterator[bool]:
        """Hold this agent's leader lock for the block when it is free (True), else False."""
        fd = os.open(self._lock_path, os.O_CREAT | os.O_RDWR, 0o600)
        held = False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
            except BlockingIOError:
                pass
            yield held
        finally:
            if held:
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _record_room_added(self, room_id: str) -> None:
        if room_id not in self.status.rooms_added:
            self.status.rooms_added.append(room_id)

    async def _lead(self) -> None:
        self._socket_path.unlink(missing_ok=True)
        followers: set[asyncio.StreamWriter] = set()
        done = asyncio.Event()  # ends this leadership's follower handlers

        async def welcome(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            followers.add(writer)
            try:
                writer.write(b"\n")  # ready; then the rooms already known to be added
                for room_id in self.status.rooms_added:
                    writer.write(_line(Fanout.JOINED, room_id))
                await writer.drain()
                await done.wait()
            finally:
                followers.discard(writer)
                writer.close()
                await asyncio.gather(writer.wait_closed(), return_exceptions=True)

        server = await asyncio.start_unix_server(welcome, path=str(self._socket_path))
        self._socket_path.chmod(0o600)
        link = self._link_factory(
            agent_id=self._agent_id,
            api_key=self._agent_key,
            ws_url=self._ws_url,
            rest_url=self._rest_url,
        )
        presence = self._presence_factory(link)
        lost = asyncio.Event()

        async def on_event(room_id: str, _: PlatformEvent) -> None:
            self.status.events_received += 1
            await self.events.publish(room_id)
            await fanout(followers, _line(Fanout.EVENT, room_id))

        async def on_joined(room_id: str, _: dict[str, Any]) -> None:
            self._record_room_added(room_id)
            await fanout(followers, _line(Fanout.JOINED, room_id))

        async def on_lost() -> None:
            reason = getattr(link, "last_disconnect_reason", None)
            self.status.last_error = f"WebSocket lost: {reason or 'disconnected'}"
            logger.warning("desktop relay lost its WebSocket: %s", reason)
            lost.set()

        presence.on_room_event, presence.on_room_joined = on_event, on_joined
        presence.on_disconnected = on_lost
        try:
            await presence.start()
            self.status.role, self.status.websocket_connected = RelayRole.LEADER, True
            self.status.last_error = None
            logger.info("relay leading agent=%s", self._agent_id)
            self._ready.set()
            await _first_of(self._stopped, lost)
        finally:
            self.status.websocket_connected = False
            await presence.stop()
            await link.disconnect()
            done.set()
            server.close()
            await server.wait_closed()
            self._socket_path.unlink(missing_ok=True)

    async def _follow(self) -> None:
        try:
            reader, writer = await asyncio.open_unix_connection(str(self._socket_path))
        except (ConnectionError, FileNotFoundError):
            return
        try:
            await reader.readline()
            self.status.role = RelayRole.FOLLOWER
            logger.info("relay following agent=%s", self._agent_id)
            self._ready.set()
            while line := await reader.readline():
                kind, _, room_id = line.decode().strip().partition(" ")
                if room_id and kind == Fanout.JOINED:
                    self._record_room_added(room_id)
                elif room_id and kind == Fanout.EVENT:
                    self.status.events_received += 1
                    await self.events.publish(room_id)
        finally:
            self.status.role = RelayRole.STARTING
            writer.close()
            await asyncio.gather(writer.wait_closed(), return_exceptions=True)


async def _first_of(*events: asyncio.Event) -> None:
    waiters = [asyncio.create_task(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)
