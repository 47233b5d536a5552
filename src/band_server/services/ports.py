"""What services use of the running platform, as structural types.

The per-process ``Platform`` (``band_server.context``) satisfies each of these; a service names
the smallest one it needs, so no service imports the platform that wires it.
"""

from __future__ import annotations

from typing import Protocol

from ..config import Settings
from ..fanout.bus import Bus
from ..files import FileStore
from ..store.db import Database


class Backbone(Protocol):
    """A unit of work's two ends: the database it writes, the bus it fans out to after commit."""

    @property
    def db(self) -> Database: ...

    @property
    def bus(self) -> Bus: ...


class Configured(Backbone, Protocol):
    """The backbone and the node's settings."""

    @property
    def settings(self) -> Settings: ...


class Filed(Configured, Protocol):
    """The backbone, the settings and the store that keeps uploaded files' bytes."""

    @property
    def files(self) -> FileStore: ...
