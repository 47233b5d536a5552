"""What the Codex adapter keeps per room, across its app-server processes.

The room's thread (and the tools it was started with), the room's own overrides of model,
reasoning and sandbox (set by room commands or the self-config tools), Codex's token
counts per thread, and the bootstrap history a new thread may still need.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DIGEST_KEY", "NAMES_KEY", "THREAD_KEY", "CodexRoom", "ThreadUsage", "tools_digest"]

# Metadata of the room's resume-state ``task`` events.
THREAD_KEY = "codex_thread_id"
DIGEST_KEY = "codex_tools_digest"
NAMES_KEY = "codex_tool_names"


def tools_digest(specs: list[dict[str, Any]]) -> str:
    """A stable fingerprint of a thread's dynamic tools (names, descriptions, schemas)."""
    canonical = json.dumps(sorted(specs, key=lambda s: str(s.get("name"))), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@dataclass
class ThreadUsage:
    """Codex's running token counts for one thread (``thread/tokenUsage/updated`` totals)."""

    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0
    context_window: int | None = None

    @classmethod
    def from_codex(cls, counts: dict[str, Any], window: Any = None) -> ThreadUsage:
        return cls(
            input_tokens=int(counts.get("inputTokens") or 0),
            cached_input_tokens=int(counts.get("cachedInputTokens") or 0),
            output_tokens=int(counts.get("outputTokens") or 0),
            reasoning_output_tokens=int(counts.get("reasoningOutputTokens") or 0),
            total_tokens=int(counts.get("totalTokens") or 0),
            context_window=int(window) if isinstance(window, int) else None,
        )

    def summary(self) -> str:
        text = (
            f"{self.total_tokens} tokens: input {self.input_tokens} "
            f"(cached {self.cached_input_tokens}), output {self.output_tokens} "
            f"(reasoning {self.reasoning_output_tokens})"
        )
        if self.context_window:
            text += f"; context window {self.context_window}"
        return text

    def metadata(self) -> dict[str, int]:
        return {
            "codex_input_tokens": self.input_tokens,
            "codex_cached_input_tokens": self.cached_input_tokens,
            "codex_output_tokens": self.output_tokens,
            "codex_reasoning_output_tokens": self.reasoning_output_tokens,
            "codex_total_tokens": self.total_tokens,
        }


@dataclass
class CodexRoom:
    """One room's Codex state; it outlives the room's app-server process."""

    room_id: str
    thread_id: str | None = None
    tools_digest: str | None = None
    tool_names: tuple[str, ...] = ()
    model: str | None = None
    effort: str | None = None
    summary: str | None = None
    sandbox: str | None = None
    transcript: tuple[str, ...] = ()
    usage: dict[str, ThreadUsage] = field(default_factory=dict)

    def thread_usage(self) -> ThreadUsage | None:
        return self.usage.get(self.thread_id) if self.thread_id else None
