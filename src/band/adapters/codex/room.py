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

from band.integrations.codex.types import CodexTokenUsage

__all__ = ["DIGEST_KEY", "NAMES_KEY", "THREAD_KEY", "CodexRoom", "tools_digest"]

# Metadata of the room's resume-state ``task`` events.
THREAD_KEY = "codex_thread_id"
DIGEST_KEY = "codex_tools_digest"
NAMES_KEY = "codex_tool_names"


def tools_digest(specs: list[dict[str, Any]]) -> str:
    """A stable fingerprint of a thread's dynamic tools (names, descriptions, schemas)."""
    canonical = json.dumps(sorted(specs, key=lambda s: str(s.get("name"))), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


SETTINGS_KEY = "codex_thread_settings"


@dataclass(frozen=True)
class ThreadSettings:
    """What Codex reports a thread runs with that ``turn/start`` does not send again; a
    resumed thread must report the values it was started with."""

    model_provider: str | None = None
    cwd: str | None = None

    @classmethod
    def reported_by(cls, result: dict[str, Any]) -> ThreadSettings:
        """From a ``thread/start`` or ``thread/resume`` result (or saved metadata)."""
        provider = result.get("modelProvider", result.get("model_provider"))
        cwd = result.get("cwd")
        return cls(
            model_provider=provider if isinstance(provider, str) else None,
            cwd=cwd if isinstance(cwd, str) else None,
        )

    def changes_in(self, restored: ThreadSettings) -> list[str]:
        """Each setting known here that ``restored`` reports otherwise, as text."""
        return [
            f"{name} {kept!r} became {now!r}"
            for name in ("model_provider", "cwd")
            if (kept := getattr(self, name)) is not None
            and (now := getattr(restored, name)) != kept
        ]


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
    usage: dict[str, CodexTokenUsage] = field(default_factory=dict)
    settings: ThreadSettings | None = None  # what the room's thread was started with

    def thread_usage(self) -> CodexTokenUsage | None:
        return self.usage.get(self.thread_id) if self.thread_id else None
