"""The socket endpoint ``/api/v1/socket/websocket`` (Phoenix Channels v2).

Lifecycle of one socket: admit the upgrade (or refuse it with an HTTP error envelope), register
with the hub (which is what makes the principal "online", on every node through
``Platform.presence``), supersede any older socket of the same agent on every node, serve frames
until the socket ends, unregister.

An agent's socket follows its agent's channel on the bus from before its supersede is published
until it ends, and the supersede goes on that channel: a node hears it only while it holds a
socket of the agent. Of two sockets of one agent, the one whose supersede Redis takes second
closes the other, whose node had followed the channel before publishing its own
(docs/decisions.md, "Idle sockets: a supersede only where the agent is").
"""

from __future__ import annotations

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

    conn = SocketConnection(websocket, principal)
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
    own: str | None = None  # the agent's channel, followed while this socket lives
    try:
        if principal.is_agent:
            control = topic("agent_control", principal.id)
            # Followed before the supersede goes out (a cancelled follow undoes itself): a
            # later socket of the agent on any node supersedes this one.
            await platform.bus.follow(control)
            own = control
            try:
                await platform.bus.publish(supersede_broadcast(principal.id, conn.id))
            except Exception:
                # A failed supersede must not refuse the new socket; older ones may linger.
                log.exception("socket %s: supersede publish failed", conn.label)
        why = await ChannelSession(platform, websocket, conn).run()
    finally:
        if own is not None:
            platform.bus.forget(own)
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
