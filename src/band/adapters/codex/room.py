"""What the Codex adapter keeps per room, across its app-server processes.

The room's thread (and the tools and settings it was started with), the room's own
overrides of model, reasoning and sandbox (set by room commands or the self-config tools),
Codex's token counts per thread, the bootstrap history a new thread may still need, the
approvals waiting, and, while a process runs, its client, reader and running turn.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from band.core.exceptions import BandError
from band.integrations.codex.types import CodexTokenUsage

from .approvals import PendingApproval
from .native import NativeTurn
from .rpc import CodexClientProtocol, TransportClosed

__all__ = [
    "DIGEST_KEY",
    "NAMES_KEY",
    "SETTINGS_KEY",
    "THREAD_KEY",
    "CodexContinuityError",
    "RoomCodexClient",
    "ThreadSettings",
    "tools_digest",
]

# Metadata of the room's resume-state ``task`` events.
THREAD_KEY = "codex_thread_id"
DIGEST_KEY = "codex_tools_digest"
NAMES_KEY = "codex_tool_names"


def tools_digest(specs: list[dict[str, Any]]) -> str:
    """A stable fingerprint of a thread's dynamic tools (names, descriptions, schemas)."""
    canonical = json.dumps(sorted(specs, key=lambda s: str(s.get("name"))), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


SETTINGS_KEY = "codex_thread_settings"


class CodexContinuityError(BandError, RuntimeError):
    """The room's thread cannot go on as it was started (its id is kept)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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
class RoomCodexClient:
    """One room's Codex state: its process's client and reader while one runs, the turn
    running on it, the room's own settings and what its thread was started with.

    It outlives the room's app-server processes: ``client`` and ``reader`` are set while a
    process runs (``generation`` counts the processes), the thread and settings stay until
    the room is left. ``rpc_lock`` serialises mapping the room to a thread against
    ``/thread archive``; a turn waiting for an approval does not hold it.
    """

    room_id: str
    workspace: str
    client: CodexClientProtocol | None = None
    reader: asyncio.Task[None] | None = None
    turn: NativeTurn | None = None
    selected_model: str | None = None
    reasoning_effort: str | None = None
    reasoning_summary: str | None = None
    # The dynamic tools the thread was started with (None when it came from Band history,
    # which keeps only their fingerprint and names below).
    registration: list[dict[str, Any]] | None = None
    settings: ThreadSettings = ThreadSettings()
    # The thread was resumed into the current process rather than started in it.
    restored: bool = False
    rpc_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    thread_id: str | None = field(default=None, kw_only=True)
    tools_digest: str | None = field(default=None, kw_only=True)
    tool_names: tuple[str, ...] = field(default=(), kw_only=True)
    sandbox: str | None = field(default=None, kw_only=True)
    transcript: tuple[str, ...] = field(default=(), kw_only=True)
    usage: dict[str, CodexTokenUsage] = field(default_factory=dict, kw_only=True)
    approvals: dict[str, PendingApproval] = field(default_factory=dict, kw_only=True)
    generation: int = field(default=0, kw_only=True)

    def thread_usage(self) -> CodexTokenUsage | None:
        return self.usage.get(self.thread_id) if self.thread_id else None

    def bind_thread(
        self, *, registration: list[dict[str, Any]] | None, settings: ThreadSettings
    ) -> None:
        """Record what the thread now mapped to the room was started with."""
        self.registration = registration
        self.settings = settings
        self.restored = False
        if registration is not None:
            self.tools_digest = tools_digest(registration)
            self.tool_names = tuple(str(spec.get("name")) for spec in registration)

    def forget_thread(self) -> None:
        """The room has no thread any more (archived): the next turn starts one."""
        self.bind_thread(registration=None, settings=ThreadSettings())
        self.thread_id, self.tools_digest, self.tool_names = None, None, ()

    def check_settings(self, thread: str, resumed: dict[str, Any]) -> None:
        """Refuse a resumed thread reporting other settings than it was started with."""
        changes = self.settings.changes_in(ThreadSettings.reported_by(resumed))
        if changes:
            raise CodexContinuityError(
                f"Codex thread `{thread}` was started with other settings "
                f"({'; '.join(changes)}). Send `/thread archive` to start a new thread."
            )

    def check_tools(self, thread: str, specs: list[dict[str, Any]]) -> None:
        """Refuse a thread whose recorded tools differ from this turn's ``specs``."""
        if self.tools_digest is None or self.tools_digest == tools_digest(specs):
            return
        now = {s["name"] for s in specs}
        changed = sorted(now ^ set(self.tool_names)) if self.tool_names else []
        what = f" ({', '.join(changed)})" if changed else " (their schemas)"
        raise CodexContinuityError(
            f"Codex thread `{thread}` keeps the tools it was started with, and this room's "
            f"tools have changed since{what}. Send `/thread archive` to start a new thread."
        )

    def require_client(self) -> CodexClientProtocol:
        if self.client is None:
            raise TransportClosed(f"Room {self.room_id} has no Codex process")
        return self.client

    async def stop_reader(self) -> None:
        """Cancel the process's event reader and wait for it to end."""
        reader, self.reader = self.reader, None
        if reader is not None and not reader.done():
            reader.cancel()
            await asyncio.wait({reader})

    def register_approval(self, pending: PendingApproval) -> None:
        """Keep ``pending``; one still waiting for the same thing is declined (redelivered)."""
        earlier = self.approvals.get(pending.native_key)
        if earlier is not None and earlier is not pending:
            earlier.decide("decline")
        self.approvals[pending.native_key] = pending

    def drop_approval(self, pending: PendingApproval) -> None:
        if self.approvals.get(pending.native_key) is pending:
            del self.approvals[pending.native_key]

    def decline_approvals(self) -> None:
        """Settle every waiting approval as declined (its process can no longer be answered)."""
        for pending in list(self.approvals.values()):
            pending.decide("decline")
        self.approvals.clear()
