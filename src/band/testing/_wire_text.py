"""Small text helpers shared by the OpenAI and Anthropic wire modules."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

_WORDS = re.compile(r"\s*\S+\s*|\s+")


def arguments_json(arguments: Mapping[str, Any] | str) -> str:
    """Tool arguments as the JSON text a model emits (a string passes through unchanged)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(dict(arguments))


def pieces(text: str, size: int = 0) -> Iterator[str]:
    """Split ``text`` for streaming: by words, or in ``size``-character slices when given."""
    if not text:
        return
    if size > 0:
        for start in range(0, len(text), size):
            yield text[start : start + size]
        return
    yield from _WORDS.findall(text)


def estimate_tokens(text: str) -> int:
    """A rough, deterministic token count (about four characters per token)."""
    return max(1, len(text) // 4) if text else 0
