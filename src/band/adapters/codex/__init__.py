"""``CodexAdapter``: Band rooms driven by the Codex CLI's ``codex app-server`` (extra ``codex``).

Needs the ``codex`` binary (``npm install -g @openai/codex@0.169.0``), no Python package.
"""

from .adapter import CodexAdapter
from .config import CodexAdapterConfig

__all__ = ["CodexAdapter", "CodexAdapterConfig"]
