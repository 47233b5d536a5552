"""The Slack Events API over HTTP: one route per app, ``POST /<slug>/events``.

A request is checked (signature), answered at once (Slack waits three seconds), and handed
to the dispatcher unless it is ``url_verification`` (answered with its challenge) or a
retry of an event already taken (same ``event_id``: answered 200, not handled again).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence

from band._extras import needs_extra

from .dedup import DEFAULT_SEEN_EVENTS_CACHE_SIZE, SeenEvents
from .dispatch import EventDispatcher, hand_over
from .signature import verify_signature
from .types import SlackApp

with needs_extra("the Slack bridge needs starlette", "slack"):
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route, Router

__all__ = ["DEFAULT_SEEN_EVENTS_CACHE_SIZE", "EventDispatcher", "SeenEvents", "build_router"]

logger = logging.getLogger("band.integrations.slack")


def build_router(
    apps: Sequence[SlackApp],
    *,
    dispatcher: EventDispatcher | None = None,
    seen_events: SeenEvents | None = None,
) -> Router:
    """A Starlette router for ``apps`` (mount it anywhere; unique slugs, at least one app)."""
    if not apps:
        raise ValueError("build_router needs at least one SlackApp")
    slugs = [app.slug for app in apps]
    if len(set(slugs)) != len(slugs):
        raise ValueError(f"Duplicate SlackApp slug among {slugs}")
    seen = seen_events or SeenEvents()
    routes = [
        Route(f"/{app.slug}/events", _handler(app, dispatcher, seen), methods=["POST"])
        for app in apps
    ]
    return Router(routes=routes)


def _handler(
    app: SlackApp, dispatcher: EventDispatcher | None, seen: SeenEvents
) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        body = await request.body()
        headers = request.headers
        if not verify_signature(
            signing_secret=app.signing_secret,
            body=body,
            timestamp=headers.get("x-slack-request-timestamp", ""),
            signature=headers.get("x-slack-signature", ""),
        ):
            logger.warning("Slack app %s: a request with a bad signature was refused", app.slug)
            return PlainTextResponse("invalid signature", status_code=401)
        try:
            payload = json.loads(body)
        except ValueError:
            return PlainTextResponse("invalid JSON", status_code=400)
        if not isinstance(payload, dict):
            return PlainTextResponse("invalid payload", status_code=400)
        if payload.get("type") == "url_verification":
            return PlainTextResponse(str(payload.get("challenge", "")))
        event_id = payload.get("event_id")
        if isinstance(event_id, str) and seen.is_dupe(event_id):
            logger.info(
                "Slack app %s: event %s again (retry %s, %s); already taken",
                app.slug,
                event_id,
                headers.get("x-slack-retry-num", "?"),
                headers.get("x-slack-retry-reason", ""),
            )
            return Response(status_code=200)
        if dispatcher is not None:
            await hand_over(dispatcher, app, payload)
        return Response(status_code=200)

    return handle
