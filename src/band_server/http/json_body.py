"""A JSON request body, decoded one way for every path that reads one.

How it works: docs/internals/server.md, "JSON request bodies".

A body refused is refused alike everywhere: 400 ``malformed_json``, never a 5xx.
"""

from __future__ import annotations

import email.message
import json
import math
import re
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

__all__ = ["MAX_DEPTH", "JsonRequest", "JsonRoute", "decode", "is_json"]

MAX_DEPTH = 100
"""Containers inside containers, the body itself counting one (Ruby's JSON default)."""


class _NotStrict(ValueError):
    """Raised by the decoder's hooks: the reason is the message."""


def _no_constant(name: str) -> Any:
    raise _NotStrict(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NotStrict(f"{text} is too large for a JSON number")
    return value


_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)
# A lone surrogate comes from an escape (\ud800) or from raw bytes that ``surrogatepass``
# lets through; either leaves this in the text, so most bodies are never walked for it.
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _refused(reason: str, text: str = "") -> json.JSONDecodeError:
    return json.JSONDecodeError(reason, text, 0)


def decode(body: bytes) -> Any:
    """The JSON value of ``body`` (UTF-8, or UTF-16/32 as ``json.loads`` detects it).

    Raises ``json.JSONDecodeError`` for anything that is not a strict JSON value of at most
    :data:`MAX_DEPTH` levels (FastAPI answers that as ``json_invalid``; see the module)."""
    try:
        text = body.decode(_encoding_of(body), "surrogatepass")
    except UnicodeDecodeError as exc:
        raise _refused(f"not in a Unicode encoding ({exc.reason})") from exc
    try:
        value = _parsed(text)
    except json.JSONDecodeError:
        raise
    except RecursionError as exc:
        raise _refused(f"nested deeper than {MAX_DEPTH} levels", text) from exc
    except _NotStrict as exc:
        raise _refused(str(exc), text) from exc
    except ValueError as exc:  # an integer past Python's digit limit
        raise _refused("a number has too many digits", text) from exc
    # Containers can nest no deeper than there are brackets: most bodies need no walk.
    if body.count(b"[") + body.count(b"{") > MAX_DEPTH or _may_hold_surrogate(text):
        _check(value, text)
    return value


def _encoding_of(body: bytes) -> str:
    """``json.detect_encoding(body)``: a body that opens with ``{`` and no NUL after it is
    UTF-8 (no byte order mark and no UTF-16/32 text starts so), as it would find."""
    if body[:1] == b"{" and body[1:2] != b"\x00":
        return "utf-8"
    return json.detect_encoding(body)


def _parsed(text: str) -> Any:
    """``_DECODER.decode(text)``. An object with nothing around it goes to the decoder's
    scanner itself (``decode`` matches whitespace before and after it, two regex calls and two
    frames); anything else, or any error, goes through ``decode``, which words it."""
    if text[:1] == "{" and text[-1:] == "}":
        try:
            value, end = _DECODER.scan_once(text, 0)  # type: ignore[attr-defined]
        except Exception:  # decode raises it again, as the decoder's own error
            return _DECODER.decode(text)
        if end == len(text):
            return value
    return _DECODER.decode(text)


def _may_hold_surrogate(text: str) -> bool:
    """Whether ``text`` matches :data:`_SURROGATE_HINT`. ASCII text (which ``isascii`` tells
    without a scan) holds no surrogate, so only an escape (``\\u``, one substring search)
    can make it match: the regex's search of every body cost more than the decoding."""
    if text.isascii() and "\\u" not in text:
        return False
    return _SURROGATE_HINT.search(text) is not None


def _check(value: Any, text: str) -> None:
    """Refuse nesting past :data:`MAX_DEPTH` and strings (keys too) with a lone surrogate."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise _refused("a string holds a lone UTF-16 surrogate", text)
            continue
        if isinstance(item, dict):
            stack.extend((k, depth) for k in item)
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            raise _refused(f"nested deeper than {MAX_DEPTH} levels", text)
        stack.extend((child, depth + 1) for child in children)


_media: dict[str, bool] = {}


def is_json(content_type: str | None) -> bool:
    """Whether FastAPI reads a body of this ``Content-Type`` as JSON: ``application/json`` or
    ``application/*+json``, parameters and case aside (a missing type is not JSON)."""
    if not content_type:
        return False
    known = _media.get(content_type)
    if known is None:
        # FastAPI's own test (fastapi.routing.get_request_handler), remembered per value.
        message = email.message.Message()
        message["content-type"] = content_type
        subtype = message.get_content_subtype()
        known = message.get_content_maintype() == "application" and (
            subtype == "json" or subtype.endswith("+json")
        )
        if len(_media) < 256:
            _media[content_type] = known
    return known


class JsonRequest(Request):
    """A request whose ``json()`` is :func:`decode`."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = decode(await self.body())
        return self._json


class JsonRoute(APIRoute):
    """An API route whose JSON body FastAPI reads with :func:`decode` (through
    :class:`JsonRequest`); every router of the REST API uses it (``route_class``)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def decoded(request: Request) -> Response:
            return await handler(JsonRequest(request.scope, request.receive))

        return decoded
