"""How ``band serve`` logs: one readable line per event, and no secret in any line.

One ``logging.config.dictConfig`` for the whole process, uvicorn's loggers included (uvicorn
applies the same dictionary again when it starts): the platform's loggers and every library's
write through the root handler, uvicorn's through its own two, and every handler masks secrets
with :class:`band_protocol.redaction.RedactSecrets`, whatever the level (a debug log of a
WebSocket handshake prints its headers and URL). At ``debug`` every logger writes, the
database's statements and rows included.
"""

from __future__ import annotations

import copy
from typing import Any

from band_protocol.redaction import RedactSecrets

__all__ = ["LEVELS", "logging_config"]

LEVELS = ("debug", "info", "warning", "error")
FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def logging_config(level: str = "info") -> dict[str, Any]:
    """The dictionary for ``logging.config.dictConfig`` and uvicorn's ``log_config``."""
    from uvicorn.config import LOGGING_CONFIG  # here: admin commands never load uvicorn

    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"secrets": {"()": RedactSecrets}}
    config["formatters"]["platform"] = {"format": FORMAT}
    config["handlers"]["platform"] = {
        "class": "logging.StreamHandler",
        "formatter": "platform",
        "stream": "ext://sys.stderr",
    }
    for handler in config["handlers"].values():
        handler["filters"] = ["secrets"]
    config["root"] = {"handlers": ["platform"], "level": level.upper()}
    if level == "debug":  # SQLAlchemy keeps its loggers at WARNING unless told: every statement
        config["loggers"]["sqlalchemy"] = {"level": "DEBUG"}
    return config
