"""One request header, read straight from the ASGI scope.

How it works: docs/internals/server.md, "Reading raw headers".

Same answer as ``starlette``'s ``Headers.get``.
"""

from __future__ import annotations

from starlette.types import Scope

INDEXED = "band.headers"
"""The scope's key for :func:`index`'s answer: the headers list it indexed, and the index."""


def index(scope: Scope) -> bool:
    """Index the request's headers by name in the scope, unless a name comes twice (then the
    first value would have to win: :func:`header` walks the list). Whether it did."""
    headers = scope["headers"]
    if type(headers) is not list:
        return False
    by_name = dict(headers)
    if len(by_name) != len(headers):
        return False
    scope[INDEXED] = (headers, by_name)
    return True


def header(scope: Scope, name: bytes) -> str | None:
    """The value of the request header ``name`` (lower-case bytes), or None."""
    headers = scope["headers"]
    indexed = scope.get(INDEXED)
    if indexed is not None and indexed[0] is headers:  # (the same list: nobody replaced it)
        value = indexed[1].get(name)
        return None if value is None else value.decode("latin-1")
    for key, value in headers:
        if key == name:
            found: str = value.decode("latin-1")
            return found
    return None
