"""``FakeSlack``: a local stand-in for Slack, checking every request as Slack documents it.

How it works: docs/internals/sdk.md, "Fake Slack".

Serves the Web API, Socket Mode and Events over HTTP on loopback; what breaks Slack's rules is
refused and recorded in ``violations``, which a test asserts stays empty.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from ._slack_rules import check_call, read_call

__all__ = ["ApiCall", "FakeSlack"]

ACK_WINDOW_S = 3.0
# The Events API's deprecated verification field: fixed text in every callback, no secret.
_VERIFICATION_FIELD = "deprecated-verification-token"


@dataclass(frozen=True)
class ApiCall:
    """One Web API call as the stand-in received it."""

    method: str
    args: dict[str, Any]
    token: str


@dataclass
class FakeSlack:
    """One Slack workspace with one bot (see the module docstring)."""

    bot_token: str = "xoxb-1-fake-bot-token"
    app_token: str = "xapp-1-fake-app-token"
    signing_secret: str = "fake-signing-secret"
    bot_user_id: str = "UBOT0001"
    bot_id: str = "BBOT0001"
    team_id: str = "T0000001"
    users: dict[str, str] = field(default_factory=lambda: {"UALICE01": "alice"})
    channels: dict[str, str] = field(default_factory=lambda: {"CGENERAL1": "general"})
    calls: list[ApiCall] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    messages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    acks: dict[str, float] = field(default_factory=dict)  # envelope id -> seconds to ack
    origin: str = ""
    _clock: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _tickets: set[str] = field(default_factory=set)
    _sockets: list[Any] = field(default_factory=list)
    _sent: dict[str, float] = field(default_factory=dict)

    # -- running it --------------------------------------------------------------------------

    @property
    def api_url(self) -> str:
        """The Web API base URL (``AsyncWebClient(base_url=...)``)."""
        return f"{self.origin}/api/"

    def web_client(self, token: str | None = None) -> Any:
        """A real ``slack_sdk`` ``AsyncWebClient`` pointed at this stand-in."""
        from slack_sdk.web.async_client import AsyncWebClient

        return AsyncWebClient(token=token or self.bot_token, base_url=self.api_url)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[FakeSlack]:
        """Serve on a free loopback port for the block."""
        from starlette.applications import Starlette
        from starlette.routing import Route, WebSocketRoute

        from band.integrations.uvicorn_server import ManagedUvicornServer

        app = Starlette(
            routes=[
                Route("/api/{method}", self._api, methods=["GET", "POST"]),
                WebSocketRoute("/link/", self._socket),
            ]
        )
        server = ManagedUvicornServer(app, host="127.0.0.1", port=0)
        await server.start()
        self.origin = f"http://127.0.0.1:{server.bound_port}"
        try:
            yield self
        finally:
            for socket in list(self._sockets):
                await socket.close()
            await server.stop()

    # -- the workspace -----------------------------------------------------------------------

    def next_ts(self) -> str:
        return f"{int(time.time()):010d}.{next(self._clock):06d}"

    def post(
        self, channel: str, text: str, *, user: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        """A message in ``channel`` (by a user, or the bot when ``user`` is None)."""
        ts = self.next_ts()
        message = {"type": "message", "ts": ts, "text": text, **extra}
        if user is None:
            message.update(bot_id=self.bot_id, user=self.bot_user_id)
        else:
            message["user"] = user
        self.messages.setdefault(channel, []).append(message)
        return message

    def thread(self, channel: str, thread_ts: str) -> list[dict[str, Any]]:
        """The thread's messages, root first (as ``conversations.replies`` lists them)."""
        return [
            m
            for m in self.messages.get(channel, [])
            if m["ts"] == thread_ts or m.get("thread_ts") == thread_ts
        ]

    def bot_replies(self, channel: str, thread_ts: str) -> list[str]:
        """What the bot posted in a thread (plain text replies, not its Block Kit updates)."""
        return [
            m["text"]
            for m in self.thread(channel, thread_ts)
            if m.get("bot_id") == self.bot_id and not m.get("blocks")
        ]

    def mention(
        self,
        text: str,
        *,
        user: str = "UALICE01",
        channel: str = "CGENERAL1",
        thread_ts: str | None = None,
    ) -> dict[str, Any]:
        """Alice mentions the bot in a channel (posted there); the ``app_mention`` event."""
        extra = {"thread_ts": thread_ts} if thread_ts else {}
        message = self.post(channel, f"<@{self.bot_user_id}> {text}", user=user, **extra)
        return {**message, "type": "app_mention", "channel": channel, "event_ts": message["ts"]}

    def callback(self, event: dict[str, Any], event_id: str | None = None) -> dict[str, Any]:
        """The Events API ``event_callback`` wrapping ``event``."""
        return {
            "token": _VERIFICATION_FIELD,
            "team_id": self.team_id,
            "api_app_id": "A0000001",
            "event": event,
            "type": "event_callback",
            "event_id": event_id or f"Ev{secrets.token_hex(5).upper()}",
            "event_time": int(time.time()),
            "authorizations": [
                {"team_id": self.team_id, "user_id": self.bot_user_id, "is_bot": True}
            ],
        }

    # -- Slack -> the app: Events over HTTP --------------------------------------------------

    async def send_http_event(
        self, url: str, body: dict[str, Any], *, retry: int = 0, secret: str | None = None
    ) -> httpx.Response:
        """POST ``body`` to the app as Slack does (signed; retry headers on a retry)."""
        raw = json.dumps(body).encode()
        stamp = str(int(time.time()))
        digest = hmac.new(
            (secret or self.signing_secret).encode(),
            b"v0:" + stamp.encode() + b":" + raw,
            hashlib.sha256,
        ).hexdigest()
        headers = {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": f"v0={digest}",
            "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
        }
        if retry:
            headers.update(
                {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
            )
        started = time.monotonic()
        async with httpx.AsyncClient(timeout=10) as http:
            answer = await http.post(url, content=raw, headers=headers)
        took = time.monotonic() - started
        if took > ACK_WINDOW_S:
            self.violations.append(f"events endpoint answered after {took:.1f} s (Slack waits 3 s)")
        return answer

    # -- Slack -> the app: Socket Mode -------------------------------------------------------

    async def push_socket_event(self, body: dict[str, Any], *, retry_attempt: int = 0) -> str:
        """Send an ``events_api`` envelope on the open Socket Mode connection; its id."""
        if not self._sockets:
            raise RuntimeError("no Socket Mode connection is open")
        envelope_id = secrets.token_hex(8)
        envelope = {
            "envelope_id": envelope_id,
            "payload": body,
            "type": "events_api",
            "accepts_response_payload": False,
            "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
        }
        self._sent[envelope_id] = time.monotonic()
        await self._sockets[-1].send_text(json.dumps(envelope))
        return envelope_id

    async def wait_acked(self, envelope_id: str, limit: float = 10.0) -> float:
        """Seconds the app took to acknowledge ``envelope_id``."""
        deadline = time.monotonic() + limit
        while envelope_id not in self.acks:
            if time.monotonic() > deadline:
                raise TimeoutError(f"envelope {envelope_id} was not acknowledged")
            await asyncio.sleep(0.01)
        return self.acks[envelope_id]

    @property
    def socket_connections(self) -> int:
        return len(self._sockets)

    async def _socket(self, ws: Any) -> None:
        ticket = ws.query_params.get("ticket", "")
        if ticket not in self._tickets:
            self.violations.append(
                "Socket Mode connection without a ticket from apps.connections.open"
            )
            await ws.close(code=1008)
            return
        self._tickets.discard(ticket)  # a ticket opens one connection
        await ws.accept()
        self._sockets.append(ws)
        hello = {
            "type": "hello",
            "num_connections": len(self._sockets),
            "debug_info": {"host": "fake-slack", "approximate_connection_time": 18060},
            "connection_info": {"app_id": "A0000001"},
        }
        await ws.send_text(json.dumps(hello))
        try:
            while True:
                self._on_ack(await ws.receive_text())
        except Exception:  # the client closed the connection
            return
        finally:
            if ws in self._sockets:
                self._sockets.remove(ws)

    def _on_ack(self, text: str) -> None:
        try:
            ack = json.loads(text)
        except ValueError:
            self.violations.append(f"Socket Mode frame is not JSON: {text[:80]!r}")
            return
        envelope_id = ack.get("envelope_id") if isinstance(ack, dict) else None
        sent = self._sent.pop(str(envelope_id), None)
        if sent is None:
            self.violations.append(f"acknowledgement of an unknown envelope: {ack!r}")
            return
        took = time.monotonic() - sent
        if took > ACK_WINDOW_S:
            self.violations.append(f"envelope {envelope_id} acknowledged after {took:.1f} s")
        self.acks[str(envelope_id)] = took

    # -- the Web API -------------------------------------------------------------------------

    async def _api(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        method = request.path_params["method"]
        args, token, problem = await read_call(request)
        self.calls.append(ApiCall(method, args, token))
        if problem is None:
            problem = check_call(self, method, args, token)
        if problem is not None:
            error, why = problem
            if error not in ("invalid_auth", "not_authed"):
                self.violations.append(f"{method}: {why}")
            return JSONResponse({"ok": False, "error": error})
        return JSONResponse({"ok": True, **self._answer(method, args)})

    def _answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {
                "url": "https://fake.slack.com/",
                "team": "Fake",
                "user": "band",
                "team_id": self.team_id,
                "user_id": self.bot_user_id,
                "bot_id": self.bot_id,
            }
        if method == "apps.connections.open":
            ticket = secrets.token_hex(12)
            self._tickets.add(ticket)
            return {"url": f"{self.origin.replace('http', 'ws', 1)}/link/?ticket={ticket}"}
        if method == "chat.postMessage":
            extra = {k: args[k] for k in ("thread_ts", "blocks") if args.get(k)}
            message = self.post(str(args["channel"]), str(args.get("text") or ""), **extra)
            return {"channel": args["channel"], "ts": message["ts"], "message": message}
        if method == "chat.update":
            for message in self.messages[str(args["channel"])]:
                if message["ts"] == args["ts"]:
                    message.update({k: args[k] for k in ("text", "blocks") if k in args})
            return {"channel": args["channel"], "ts": args["ts"], "text": args.get("text", "")}
        if method == "conversations.replies":
            return {
                "messages": self.thread(str(args["channel"]), str(args["ts"])),
                "has_more": False,
            }
        if method == "conversations.info":
            channel = str(args["channel"])
            name = self.channels.get(channel)
            return {"channel": {"id": channel, "name": name, "is_im": channel.startswith("D")}}
        if method == "users.info":
            user = str(args["user"])
            name = self.users[user]
            profile = {"display_name": name.title(), "real_name": name.title()}
            return {"user": {"id": user, "name": name, "profile": profile}}
        return {}  # assistant.threads.setStatus
