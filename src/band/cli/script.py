"""How a one-shot console script (``band-trigger``, ``band-kit``) ends: its result line on
stdout and exit 0, or ``Error: ...`` on stderr and exit 1.

A refusal (``ValueError``, ``RuntimeError``) or the script's own time limit is told in that
one line; anything else also logs its traceback.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Coroutine
from typing import Any, NoReturn

from band.config.logs import LogSettings
from band.logging_config import LogStream

__all__ = ["run_script"]


def run_script(
    work: Coroutine[Any, Any, str],
    *,
    name: str,
    logger: logging.Logger,
    verbose: bool,
    timeout_s: float | None = None,
) -> NoReturn:
    """Log to stderr (DEBUG when ``verbose``), run ``work``, print its line and exit.

    ``timeout_s`` is the limit ``work`` runs under, named when its ``TimeoutError`` ends it.
    """
    LogSettings(log_level="DEBUG" if verbose else "INFO", log_stream=LogStream.STDERR).configure()
    try:
        line = asyncio.run(work)
    except Exception as exc:
        if timeout_s is not None and isinstance(exc, TimeoutError):
            message = f"timed out after {timeout_s} seconds"
        else:
            if not isinstance(exc, ValueError | RuntimeError):  # a refusal needs no traceback
                logger.exception("%s failed", name)
            message = str(exc)
        sys.stderr.write(f"Error: {message}\n")
        sys.exit(1)
    sys.stdout.write(line + "\n")
    sys.exit(0)
