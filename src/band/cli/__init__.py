"""The ``band`` console script: ``bridge``, ``runtime``, ``export``, ``import`` and ``replay``
are the SDK's; every other command belongs to the platform (``band_server.cli``, the
``server`` extra). ``band-trigger`` (``band.cli.trigger``) starts a room from a script."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]

SDK_COMMANDS = ("bridge", "runtime")
# Commands that speak to a platform over REST only (any Band-compatible one).
PORTABLE_COMMANDS = ("export", "import", "replay")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``band``; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] and args[0] in SDK_COMMANDS:
        from band.bridge.cli import main as sdk_main

        return sdk_main(args)
    if args[:1] and args[0] in PORTABLE_COMMANDS:
        from band.portable import cli as portable

        run = {
            "export": portable.main_export,
            "import": portable.main_import,
            "replay": portable.main_replay,
        }[args[0]]
        return run(args[1:])
    try:
        from band_server.cli import main as server_main
    except ImportError as exc:
        print(
            f"band {' '.join(args[:1]) or ''}: the platform is not installed ({exc.name}); "
            "pip install 'openband[server]'. Without it: band bridge, band runtime.",
            file=sys.stderr,
        )
        return 1
    return server_main(args)
