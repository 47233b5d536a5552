"""The fake platform's request layer: REST routes answered in memory, as an httpx transport.

``FakePlatform`` is a real ``BandRestClient`` whose transport is a ``Routes``: the client builds
each request as it would for the platform, and a route's handler answers it from the fake's
lists. What a handler raises reaches the caller unchanged (a test's injected error, a
``BandRestError`` with the platform's status and code, the fake's own ``ValueError``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import httpx

from band.platform._http import API_PREFIX

__all__ = ["Call", "Routes", "page_of", "page_slice", "total_pages"]


@dataclass(frozen=True)
class Call:
    """One request as a handler sees it: path parameters, query, JSON body, raw content."""

    path: Mapping[str, str]
    query: Mapping[str, str]
    body: Any
    content: bytes
    headers: httpx.Headers

    def number(self, name: str) -> int | None:
        """A query parameter as an int (None when absent)."""
        value = self.query.get(name)
        return int(value) if value is not None else None


Handler = Callable[[Call], Any]
"""Returns the answer's whole JSON body (``{"data": ...}``), or bytes for a download."""


def total_pages(total: int, page_size: int) -> int:
    """The page count the platform reports for ``total`` items (0 when there are none)."""
    return max(1, -(-total // page_size)) if total else 0


def page_slice(items: list[dict[str, Any]], page: int, page_size: int) -> list[dict[str, Any]]:
    """Page ``page`` (from 1) of ``items``."""
    start = (max(page, 1) - 1) * page_size
    return items[start : start + page_size]


def page_of(items: list[dict[str, Any]], page: int, page_size: int) -> dict[str, Any]:
    """One offset page of ``items`` with the platform's paging metadata (an empty listing
    still has one page)."""
    meta = {"page": page, "page_size": page_size, "total_count": len(items)}
    pages = max(1, total_pages(len(items), page_size))
    return {"data": page_slice(items, page, page_size), "metadata": {**meta, "total_pages": pages}}


class Routes:
    """``(method, path template)`` to handler; ``transport`` serves them to an httpx client."""

    def __init__(self) -> None:
        self._table: list[tuple[str, re.Pattern[str], Handler]] = []

    def add(self, method: str, template: str, handler: Handler) -> None:
        """Route ``method`` on ``template`` (``{name}`` matches one path segment)."""
        pattern = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)
        self._table.append((method, re.compile(pattern), handler))

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.answer)

    def answer(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix(API_PREFIX)
        for method, pattern, handler in self._table:
            match = pattern.fullmatch(path)
            if method == request.method and match is not None:
                content = request.content
                call = Call(
                    {k: unquote(v) for k, v in match.groupdict().items()},
                    dict(request.url.params),
                    json.loads(content) if content and _is_json(request) else None,
                    content,
                    request.headers,
                )
                result = handler(call)
                if isinstance(result, bytes):
                    return httpx.Response(200, content=result)
                return httpx.Response(200, json=result)
        error = {
            "code": "not_found",
            "message": f"the fake platform has no {request.method} {path}",
        }
        return httpx.Response(404, json={"error": error})


def _is_json(request: httpx.Request) -> bool:
    return str(request.headers.get("content-type", "")).startswith("application/json")
