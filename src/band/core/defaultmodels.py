"""Default model ids of the adapters, tests and demos: the one place to change them.

Frameworks that qualify an id by provider (``openai:``, ``openai/``) add the prefix where
they use it.
"""

from __future__ import annotations

__all__ = [
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_MODEL",
    "GEMINI_MODEL",
    "LETTA_SELF_HOSTED_MODEL",
    "OPENAI_MODEL",
]

OPENAI_MODEL = "gpt-6-luna"
ANTHROPIC_MODEL = "claude-sonnet-5-5"
GEMINI_MODEL = "gemini-3.8-flash"
ANTHROPIC_SMALL_MODEL = "claude-haiku-4-5"
LETTA_SELF_HOSTED_MODEL = "openai/gpt-5.4-mini"
