"""The Slack Web API's rules as ``FakeSlack`` enforces them: who may call what, with which
arguments, in which shapes (channel ids, ``ts`` values, text or blocks and their lengths)."""

from __future__ import annotations

import hmac
import json
import re
from typing import Any, Protocol
from urllib.parse import parse_qsl

__all__ = ["BOT_METHODS", "CHANNEL", "TS", "Problem", "Workspace", "check_call", "read_call"]

TS = re.compile(r"^\d{10}\.\d{6}$")
CHANNEL = re.compile(r"^[CDG][A-Z0-9]{2,}$")
BOT_METHODS = {
    "auth.test": (),
    "chat.postMessage": ("channel",),
    "chat.update": ("channel", "ts"),
    "conversations.replies": ("channel", "ts"),
    "conversations.info": ("channel",),
    "users.info": ("user",),
    "assistant.threads.setStatus": ("channel_id", "thread_ts", "status"),
}
Problem = tuple[str, str]  # Slack's error code, and why (for the violations list)


class Workspace(Protocol):
    """What the rules read of the stand-in: its tokens, users and messages."""

    bot_token: str
    app_token: str
    users: dict[str, str]
    messages: dict[str, list[dict[str, Any]]]


async def read_call(request: Any) -> tuple[dict[str, Any], str, Problem | None]:
    """A Web API request's arguments and token (Bearer header, or ``token`` in a form)."""
    header = request.headers.get("authorization", "")
    token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
    args: dict[str, Any] = dict(request.query_params)
    if request.method == "POST":
        kind = request.headers.get("content-type", "").split(";")[0].strip()
        raw = await request.body()
        if kind == "application/json":
            if not token:
                return args, "", ("not_authed", "a JSON body needs the Authorization header")
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return args, token, ("invalid_json", "the body is not JSON")
            if not isinstance(body, dict):
                return args, token, ("invalid_json", "the JSON body is not an object")
            args.update(body)
        elif kind == "application/x-www-form-urlencoded":
            args.update(parse_qsl(raw.decode()))
        elif raw:
            return args, token, ("invalid_form_data", f"unsupported content type {kind!r}")
    token = token or str(args.pop("token", ""))
    return args, token, None


def check_call(slack: Workspace, method: str, args: dict[str, Any], token: str) -> Problem | None:
    """Slack's refusal of a call (its error code, and why), or None: token, method, arguments."""
    if not token:
        return "not_authed", "no token"
    # Compared in constant time, as a real service would (tests pin it for all of src).
    is_app = hmac.compare_digest(token.encode(), slack.app_token.encode())
    is_bot = hmac.compare_digest(token.encode(), slack.bot_token.encode())
    if not (is_app or is_bot):
        return "invalid_auth", "unknown token"
    if method == "apps.connections.open":
        if not is_app:
            return "not_allowed_token_type", "apps.connections.open needs the xapp- token"
        return None
    if method not in BOT_METHODS:
        return "unknown_method", f"unknown method {method}"
    if not is_bot:
        return "not_allowed_token_type", f"{method} needs the bot (xoxb-) token"
    for name in BOT_METHODS[method]:
        # An empty status is documented: it clears the thread's status.
        empty_ok = method == "assistant.threads.setStatus" and name == "status"
        if args.get(name) is None or (args.get(name) == "" and not empty_ok):
            return "invalid_arguments", f"missing required argument {name!r}"
    return _check_shapes(slack, method, args)


def _check_shapes(slack: Workspace, method: str, args: dict[str, Any]) -> Problem | None:
    channel = args.get("channel") or args.get("channel_id")
    if channel is not None and not CHANNEL.match(str(channel)):
        return "channel_not_found", f"{channel!r} is not a channel id"
    for name in ("ts", "thread_ts"):
        if args.get(name) is not None and not TS.match(str(args[name])):
            return "invalid_arguments", f"{name} {args[name]!r} is not a Slack timestamp"
    if method in ("chat.postMessage", "chat.update"):
        text, blocks = args.get("text"), args.get("blocks")
        if not text and not blocks:
            return "no_text", "neither text nor blocks"
        if text is not None and (not isinstance(text, str) or len(text) > 40_000):
            return "msg_too_long", "text is not a string of at most 40,000 characters"
        if blocks is not None and (not isinstance(blocks, list) or len(blocks) > 50):
            return "invalid_blocks", "blocks is not a list of at most 50 blocks"
    if method == "chat.update" and not any(
        m["ts"] == args["ts"] for m in slack.messages.get(str(channel), [])
    ):
        return "message_not_found", f"no message {args['ts']} in {channel}"
    if method == "users.info" and args["user"] not in slack.users:
        return "user_not_found", f"no user {args['user']}"
    return None
