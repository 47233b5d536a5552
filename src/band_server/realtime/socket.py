"""The socket endpoint ``/api/v1/socket/websocket`` (Phoenix Channels v2).

How it works: docs/internals/server.md, "The socket endpoint".

A new socket of an agent supersedes its older ones, on every node.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from fastapi import APIRouter, WebSocket
from starlette.requests import HTTPConnection
from starlette.types import Receive, Scope, Send

from band_protocol import Supersede, topic

from ..context import Platform
from ..fanout.bus import SUPERSEDE_ONLY, Broadcast
from .connection import SocketConnection
from .handshake import Denial, admit, deny
from .session import ChannelSession

log = logging.getLogger("band_server.realtime")

router = APIRouter(tags=["socket"])

# 1008 "policy violation" is terminal for the official client: a superseded socket must not
# come back and fight the socket that replaced it.
SUPERSEDED_CODE = 1008


_SUPERSEDED = Supersede(
    reason="superseded", message="Another connection for this agent took over", retryable=False
).model_dump(mode="json")


def supersede_broadcast(agent_id: str, new_conn_id: str) -> Broadcast:
    """Tell every other socket of ``agent_id`` (on any node) that it was replaced, then close it."""
    return Broadcast(
        topic=topic("agent_control", agent_id),
        event="supersede",
        # Once per connect: the model's answer copied, not validated and dumped again.
        payload={**_SUPERSEDED, "correlation_id": str(uuid.uuid4())},
        exclude_conn=new_conn_id,
        # Not a revocation: the agent's cached keys stay (services/identity/auth_cache.py).
        meta={
            "close_principal": agent_id,
            "close_code": SUPERSEDED_CODE,
            SUPERSEDE_ONLY: True,
        },
    )


class _Announce:
    """An agent socket's channel on the bus, followed until :meth:`end`, and its supersede,
    published once the channel is followed (a later socket of the agent on any node then
    supersedes this one), in a task of their own beside the socket's session."""

    __slots__ = ("_bus", "_channel", "_followed", "_task")

    def __init__(self, platform: Platform, agent_id: str, conn: SocketConnection) -> None:
        self._bus = platform.bus
        self._channel = topic("agent_control", agent_id)
        self._followed = False
        self._task = asyncio.ensure_future(self._run(agent_id, conn))

    async def _run(self, agent_id: str, conn: SocketConnection) -> None:
        await self._bus.follow(self._channel)  # (a cancelled follow undoes itself)
        self._followed = True
        try:
            await self._bus.publish(supersede_broadcast(agent_id, conn.id))
        except Exception:
            # A failed supersede must not refuse the new socket; older ones may linger.
            log.exception("socket %s: supersede publish failed", conn.label)

    async def end(self) -> None:
        """The socket ended: the task stopped if still under way, the channel forgotten."""
        task = self._task
        if not task.done():
            task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the socket's own task is cancelled too: that goes on
        except Exception:
            log.exception("socket: following %s failed", self._channel)
        finally:
            if self._followed:
                self._bus.forget(self._channel)


async def _claim(platform: Platform, principal_id: str) -> bool:
    try:
        return await platform.presence.claim(principal_id)
    except Exception:
        log.exception("socket upgrade: presence check failed")
        raise Denial(503, "unavailable", "The platform can't check connections right now") from None


@router.websocket("/websocket")
async def socket_endpoint(websocket: WebSocket) -> None:
    """Serve one Phoenix v2 socket for an agent or a person."""
    platform: Platform = websocket.app.state.platform
    try:
        # Read through a view of its own: what Starlette caches (headers, query, cookies)
        # goes with it, instead of living on as long as the socket.
        admission = await admit(HTTPConnection(websocket.scope), platform)
        principal = admission.principal
        # claim() is judged on every node; no await between it and register().
        if admission.reject_on_conflict and not await _claim(platform, principal.id):
            raise Denial(409, "connection_conflict", "Another connection for this agent is live")
    except Denial as denial:
        await deny(websocket, denial)
        return

    conn = SocketConnection(websocket, principal, claim_on_push=admission.claim_on_push)
    platform.hub.register(conn)
    if principal.is_agent:  # a new connection: what /next served the last one proves nothing
        platform.served_heads.connected(principal.id)
    try:
        await websocket.accept()
    except Exception as exc:
        platform.hub.unregister(conn)
        log.info("socket %s: upgrade failed: %r", conn.label, exc)
        return
    conn.start()
    # Nothing reads the upgrade's headers again; a held socket need not keep them.
    websocket.scope["headers"] = []
    if log.isEnabledFor(logging.INFO):
        log.info("socket open: %s", conn.label)

    why = "unknown"
    announce: _Announce | None = None
    try:
        if principal.is_agent:
            # The agent's channel followed, then its supersede published, beside the session:
            # the first join waits for the same SUBSCRIBE (and no longer), so the round trips
            # to Redis overlap the client's own after the 101.
            announce = _Announce(platform, principal.id, conn)
        why = await ChannelSession(platform, websocket, conn).run()
    finally:
        if announce is not None:
            await announce.end()
        platform.hub.unregister(conn)
        await conn.shutdown()
        if log.isEnabledFor(logging.INFO):
            log.info(
                "socket closed: %s after %.1fs, %s, %d frames in, %d out",
                conn.label,
                time.time() - conn.opened_at,
                why,
                conn.frames_in,
                conn.frames_out,
            )


SOCKET_PATH = "/api/v1/socket/websocket"


def is_socket_upgrade(scope: Scope) -> bool:
    """The Phoenix socket's upgrade request (the app serves it outside its HTTP layers)."""
    return bool(scope["type"] == "websocket" and scope["path"] == SOCKET_PATH)


async def serve_socket(scope: Scope, receive: Receive, send: Send) -> None:
    """Serve the socket directly: every layer in between would keep a frame alive for hours."""
    await socket_endpoint(WebSocket(scope, receive, send))
