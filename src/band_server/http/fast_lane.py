"""A fast lane for simple routes: the same endpoint functions, without FastAPI's per-request work.

How it works: docs/internals/server.md, "The fast lane".

Anything unusual goes on to FastAPI, which answers as with the lane off (``BAND_FAST_LANE=0``).
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from fastapi.datastructures import DefaultPlaceholder
from fastapi.routing import APIRoute
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from band_server.errors import ApiError
from band_server.http import deps
from band_server.http.errors import (
    api_error_response,
    database_error_response,
    unexpected_response,
)
from band_server.http.front import NOSNIFF
from band_server.http.idempotency import BUFFERED, NOT_JSON
from band_server.http.json_body import decode, is_json
from band_server.http.raw_headers import header
from band_server.json_text import answer_text
from band_server.observability import ROUTE_TEMPLATE

if TYPE_CHECKING:
    from band_server.context import Platform

log = logging.getLogger("band_server.api")

_PRINCIPALS: dict[Callable[..., Any], str | None] = {
    deps.current_agent: "agent",
    deps.current_user: "user",
    deps.current_principal: None,
}
_MAX_BODY = 1 << 20
_MATCHES = 1024  # paths whose match the lane keeps (FastLane._matched)


@dataclass(frozen=True)
class Lane:
    """A route as the lane sees it: ``simple`` when the lane serves it, with what it passes."""

    route: APIRoute
    pattern: re.Pattern[str]
    simple: bool
    platform_arg: str | None = None
    principal_arg: str | None = None
    principal_kind: str | None = None
    body_arg: str | None = None
    body_model: type[BaseModel] | None = None
    header_args: tuple[tuple[str, bytes], ...] = ()  # (argument, header name lower-cased)
    template: str = ""  # the full route template, for the request metrics


@dataclass(frozen=True)
class _Candidates:
    """A method's routes, by the shape of the paths they could match."""

    literal: dict[tuple[int, str], tuple[Lane, ...]]  # (segments, last segment) -> routes
    wildcard: dict[int, tuple[Lane, ...]]  # segments -> routes ending in a path parameter
    anywhere: tuple[Lane, ...]  # routes with a ``{name:path}`` parameter


def _header_args(dependant: Any) -> tuple[tuple[str, bytes], ...] | None:
    """Each header parameter as (argument, header), or None when one is not an optional
    string under an explicit alias (FastAPI then reads it its own way)."""
    found = []
    for param in dependant.header_params:
        info = param.field_info
        optional_str = info.annotation == (str | None) and info.default is None
        if not optional_str or not info.alias or param.alias != info.alias:
            return None
        found.append((param.name, info.alias.lower().encode("latin-1")))
    return tuple(found)


def _lane(prefix: str, route: APIRoute) -> Lane:
    pattern = re.compile("^" + re.escape(prefix) + route.path_regex.pattern.lstrip("^"))
    dependant = route.dependant
    unsimple = Lane(route, pattern, simple=False, template=prefix + route.path)
    header_args = _header_args(dependant)
    if dependant.query_params or dependant.cookie_params or header_args is None:
        return unsimple
    special = (
        dependant.request_param_name,
        dependant.response_param_name,
        dependant.background_tasks_param_name,
        dependant.http_connection_param_name,
        dependant.websocket_param_name,
        dependant.security_scopes_param_name,
    )
    if any(special) or route.response_model not in (None, dict, dict[str, Any]):
        return unsimple
    if not isinstance(route.response_class, DefaultPlaceholder):
        return unsimple
    if any(p.field_info.annotation is not str for p in dependant.path_params):
        return unsimple
    platform_arg = principal_arg = principal_kind = None
    for dep in dependant.dependencies:
        if dep.call is deps.get_platform and dep.name:
            platform_arg = dep.name
        elif dep.call in _PRINCIPALS and dep.name:
            principal_arg, principal_kind = dep.name, _PRINCIPALS[dep.call]
        else:
            return unsimple
    if len(dependant.body_params) > 1:
        return unsimple
    body_arg = body_model = None
    if dependant.body_params:
        field = dependant.body_params[0]
        model = field.field_info.annotation
        if (
            not (isinstance(model, type) and issubclass(model, BaseModel))
            or not field.field_info.is_required()
        ):
            return unsimple
        body_arg, body_model = field.name, model
    return Lane(
        route,
        pattern,
        True,
        platform_arg,
        principal_arg,
        principal_kind,
        body_arg,
        body_model,
        header_args,
        prefix + route.path,
    )


def lanes_of(prefix: str, package: ModuleType) -> list[Lane]:
    """Every route of every router module in ``package`` (e.g. ``band_server.api.agent``)."""
    found: list[Lane] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        router = getattr(module, "router", None)
        for route in getattr(router, "routes", ()):
            if isinstance(route, APIRoute):
                found.append(_lane(prefix, route))
    return found


class FastLane:
    """Pure ASGI middleware; see the module docstring."""

    def __init__(self, app: ASGIApp, lanes: list[Lane]) -> None:
        self.app = app
        # By method, then by the path's number of segments and its last one: a request tries
        # the few routes that could match (those with as many segments whose last one is that
        # literal, or a path parameter), not every route's pattern. A parameter never spans a
        # "/" (``{name}``), except a ``{name:path}`` one: such routes are tried for any path.
        by_method: dict[str, dict[tuple[int, str | None], list[Lane]]] = {}
        spanning: dict[str, list[Lane]] = {}
        for lane in lanes:
            last = lane.route.path.rsplit("/", 1)[-1]
            tail = None if "{" in last else last
            for method in lane.route.methods or ():
                if ":path}" in lane.template:
                    spanning.setdefault(method, []).append(lane)
                else:
                    shape = (lane.template.count("/"), tail)
                    by_method.setdefault(method, {}).setdefault(shape, []).append(lane)
        self._by_method: dict[str, _Candidates] = {}
        for method in {*by_method, *spanning}:
            shapes = by_method.get(method, {})
            anywhere = tuple(spanning.get(method, ()))
            wildcard = {n: (*found, *anywhere) for (n, t), found in shapes.items() if t is None}
            literal = {
                (n, t): (*found, *wildcard.get(n, anywhere))
                for (n, t), found in shapes.items()
                if t is not None
            }
            self._by_method[method] = _Candidates(literal, wildcard, anywhere)
        # ``_match``'s answers by method and path (a room's posts come on one path): it
        # depends on nothing else. Short paths only, at most ``_MATCHES`` (then all dropped).
        self._matched: dict[tuple[str, str], tuple[Lane | None, dict[str, str]]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("query_string"):
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        lane, params = self._matched.get((method, path)) or self._match(method, path)
        if lane is None:
            await self.app(scope, receive, send)
            return
        # The rest in this one coroutine: each coroutine function awaited is a frame more.
        # The platform through ``State.__getattr__`` itself: ``state.platform`` first fails
        # the ordinary lookup (an AttributeError formatted and dropped, every request), and
        # ``state["platform"]`` fails on the Starlette releases some framework environments
        # pin (their ``State`` takes no items).
        platform: Platform = State.__getattr__(scope["app"].state, "platform")
        state = scope.get("state") or {}
        body = b""
        value = NOT_JSON
        read = False  # the body was read here: whoever reads next needs it replayed
        if lane.body_model is not None or scope["method"] in ("POST", "PUT", "PATCH"):
            buffered = state.get(BUFFERED)
            if buffered is not None:
                # A keyed request: the idempotency layer read it whole and decoded it for its
                # hash, and its ``receive`` replays the body for whoever reads next.
                body, value = buffered
            else:
                first = await receive()
                if first["type"] == "http.request" and not first.get("more_body", False):
                    body = first.get("body", b"")  # all of it in one message, as most come
                else:
                    body, complete = await _read_body(first, receive)
                    if not complete:  # too large for the lane: FastAPI applies its own limit
                        await self.app(scope, _replaying(body, complete, receive), send)
                        return
                read = True
        kwargs: dict[str, Any] = dict(params)
        for arg, name in lane.header_args:
            kwargs[arg] = header(scope, name)
        try:
            if lane.principal_arg is not None:
                # A keyed request was authenticated by the idempotency middleware already; a
                # key the cache holds needs no coroutine (``Platform.authenticate`` asks it
                # first too).
                principal = state.get("principal")
                if principal is None:
                    key = header(scope, b"x-api-key")
                    principal = (key and platform.auth.get(key)) or await platform.authenticate(key)
                if lane.principal_kind is not None and principal.kind != lane.principal_kind:
                    raise LookupError
                kwargs[lane.principal_arg] = principal
            if lane.body_model is not None and lane.body_arg is not None:
                if not is_json(header(scope, b"content-type")):
                    raise LookupError
                # As FastAPI does it (http.json_body): decode, then validate the Python value
                # (``model_validate``'s own call, without its frame and keyword arguments).
                if value is NOT_JSON:
                    value = decode(body)
                validator = lane.body_model.__pydantic_validator__
                kwargs[lane.body_arg] = validator.validate_python(value)
        except Exception:
            # Bad input, a wrong key, anything unusual: FastAPI answers it its own way (the
            # same decoding, validation and handlers; tests/server/http/test_lane_equal.py).
            await self.app(scope, _replaying(body, True, receive) if read else receive, send)
            return
        if lane.platform_arg is not None:
            kwargs[lane.platform_arg] = platform
        scope["route"] = lane.route
        scope["path_params"] = dict(params)  # the kept one is never handed out
        scope[ROUTE_TEMPLATE] = lane.template
        try:  # the endpoint's result, or the error envelope of what it raised
            result = await lane.route.endpoint(**kwargs)
        except ApiError as exc:
            result = api_error_response(Request(scope), exc)
        except DBAPIError as exc:
            result = database_error_response(Request(scope), exc)
        except Exception as exc:
            result = unexpected_response(Request(scope), exc)
        if isinstance(result, Response):
            # The replaying ``receive`` is built only for the few that read on (a closure a
            # request otherwise).
            await result(scope, _replaying(body, True, receive) if read else receive, send)
            return
        start, answer = _answer(lane.route.status_code or 200, result)
        await send(start)
        await send(answer)

    def _match(self, method: str, path: str) -> tuple[Lane | None, dict[str, str]]:
        """The lane for ``method`` and ``path`` and its parameters (kept: never to be changed),
        or None: none, or more than one, could answer."""
        matched = self._matched.get((method, path))
        if matched is None:
            matched = self._find(method, path)
            if len(path) <= 200:
                if len(self._matched) >= _MATCHES:
                    self._matched.clear()
                self._matched[method, path] = matched
        return matched

    def _find(self, method: str, path: str) -> tuple[Lane | None, dict[str, str]]:
        found: tuple[Lane, dict[str, str]] | None = None
        routes = self._by_method.get(method)
        if routes is None:
            return None, {}
        segments = path.count("/")
        candidates = routes.literal.get((segments, path.rsplit("/", 1)[-1]))
        if candidates is None:
            candidates = routes.wildcard.get(segments, routes.anywhere)
        for lane in candidates:
            m = lane.pattern.match(path)
            if m is None:
                continue
            if found is not None:
                return None, {}  # two routes could answer: leave the choice to FastAPI
            found = (lane, m.groupdict())
        if found is None or not found[0].simple:
            return None, {}
        return found


_JSON_TYPE = (b"content-type", b"application/json")


def _answer(status: int, content: Any) -> tuple[Message, Message]:
    """The two messages ``JSONResponse(content, status)`` sends: the same body and headers,
    without a ``Response`` object per answer, and ``nosniff`` as ``http.front`` adds it."""
    body = answer_text(content).encode("utf-8")
    # ``nosniff`` last, where ``http.front``'s answering checks it without a call.
    if status >= 200 and status not in (204, 304):
        length = (b"content-length", str(len(body)).encode("latin-1"))
        headers = [length, _JSON_TYPE, NOSNIFF]
    else:
        headers = [_JSON_TYPE, NOSNIFF]
    return (
        {"type": "http.response.start", "status": status, "headers": headers},
        {"type": "http.response.body", "body": body},
    )


async def _read_body(message: Message, receive: Receive) -> tuple[bytes, bool]:
    """The body from ``message`` (the first received) on, and whether it is complete (it
    stops early past ``_MAX_BODY``)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        if message["type"] != "http.request":
            return b"".join(chunks), True
        chunk = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True
        if size > _MAX_BODY:
            return b"".join(chunks), False
        message = await receive()


def _replaying(body: bytes, complete: bool, receive: Receive) -> Receive:
    """A receive that hands the part already read once more, then the real channel."""
    replayed = False

    async def again() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": not complete}
        return await receive()

    return again
