"""``OpencodeAdapter``: Band rooms on an OpenCode server (extra ``opencode``).

Needs a running ``opencode serve`` (``npm install -g opencode-ai``); Band's tools reach it
over MCP (``pip install 'openband[opencode]'``).
"""

from band.adapters._coding.approvals import ApprovalModeName as ApprovalMode

from .adapter import OpencodeAdapter
from .config import ApprovalReply, OpencodeAdapterConfig

__all__ = ["ApprovalMode", "ApprovalReply", "OpencodeAdapter", "OpencodeAdapterConfig"]
