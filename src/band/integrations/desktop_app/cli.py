"""``band-room-view``: the console entry, checking the platform before importing the server
(its relay needs ``fcntl`` locks and Unix sockets, which Windows has not)."""

from __future__ import annotations

import sys

__all__ = ["entry_point"]


def entry_point() -> None:
    if sys.platform == "win32":
        raise SystemExit(
            "band-room-view needs fcntl file locks and Unix sockets to share one Band "
            "connection between Claude Desktop's MCP processes; it runs on macOS and Linux."
        )
    from band.integrations.desktop_app.server import entry_point as serve

    serve()
