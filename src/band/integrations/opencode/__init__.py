"""OpenCode's server as the OpenCode adapter talks to it: the HTTP client
(:mod:`.client`), the typed ``/event`` records (:mod:`.events`) and the session state a
room's history holds (:mod:`.types`)."""

from __future__ import annotations

from . import events
from .client import ApprovalReply, HttpOpencodeClient, OpencodeClientProtocol
from .events import *  # noqa: F403  (its __all__, added below)
from .types import OpencodeSessionState

__all__ = [
    "ApprovalReply",
    "HttpOpencodeClient",
    "OpencodeClientProtocol",
    "OpencodeSessionState",
]
__all__ += events.__all__
