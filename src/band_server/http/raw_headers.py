"""One request header, read straight from the ASGI scope.

Every layer of an agent's call asks for a header or two (the body's length, the API key, the
idempotency key, the content type); a ``starlette.datastructures.Headers`` built for each
layer and its ``get`` (a ``Mapping`` method over a case-folding ``__getitem__``) cost several
times this loop. Same answer: ASGI servers hand header names lower-cased, and the first value
of a repeated header wins, as ``Headers.get`` gives it.
"""

from __future__ import annotations

from starlette.types import Scope


def header(scope: Scope, name: bytes) -> str | None:
    """The value of the request header ``name`` (lower-case bytes), or None."""
    for key, value in scope["headers"]:
        if key == name:
            found: str = value.decode("latin-1")
            return found
    return None
