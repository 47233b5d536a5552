"""``OpencodeAdapter``: Band rooms on an OpenCode server (extra ``opencode``).

Needs a running ``opencode serve`` (``npm install -g opencode-ai``); Band's tools reach it
over MCP (``pip install 'openband[opencode]'``). The adapter (:mod:`.adapter`), its
settings (:mod:`.config`) and a room's open permission asks and questions
(:mod:`.approvals`); the server's client and events are :mod:`band.integrations.opencode`.
"""

from band.adapters._coding.approvals import ApprovalModeName as ApprovalMode
from band.integrations.opencode import ApprovalReply

from .adapter import OpencodeAdapter
from .config import OpencodeAdapterConfig, QuestionMode

__all__ = [
    "ApprovalMode",
    "ApprovalReply",
    "OpencodeAdapter",
    "OpencodeAdapterConfig",
    "QuestionMode",
]
