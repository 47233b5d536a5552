"""uvicorn's httptools HTTP protocol, writing an answer's head and body in one call.

uvicorn writes the head of an answer as ``http.response.start`` arrives and its body as
``http.response.body`` does: two system calls, two segments and two wake-ups of the client for
every answer. Both arrive in the same step of the app, so :class:`JoinedHttpProtocol` puts a
:class:`~band_server.pass_transport.PassTransport` in ``pair`` mode under uvicorn's protocol,
which is otherwise uvicorn's own.
"""

from __future__ import annotations

import asyncio
from typing import cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .pass_transport import PassTransport


class JoinedHttpProtocol(HttpToolsProtocol):
    """``http="httptools"`` whose writes of one pass go out together (head and body)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        joined = PassTransport(cast(asyncio.Transport, transport), self.loop, pair=True)
        super().connection_made(joined)
