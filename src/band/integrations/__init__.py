"""Glue between Band and agent frameworks, used by the adapters and by hand-built agents.

Each subpackage needs its framework's extra (e.g. ``pip install 'openband[langgraph]'``).
"""

from .base import check_and_format_participants

__all__ = ["check_and_format_participants"]
