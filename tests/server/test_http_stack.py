"""What an HTTP request crosses: the platform's layers in front of FastAPI's stack, the fast
lane's answers, and the server options (docs/decisions.md, "The stack outside the database")."""

from __future__ import annotations

from band_server.server_stack import uvicorn_options


def test_the_server_speaks_websockets_through_the_sans_io_websockets_implementation() -> None:
    # ~9 us less CPU per pushed frame than wsproto's pure-Python framing, for ~2 KiB more
    # memory per socket (docs/decisions.md).
    assert uvicorn_options()["ws"] == "websockets-sansio"
