"""The Codex room commands: ``/model``, ``/reasoning``, ``/sandbox``, ``/threads``,
``/thread info|archive``, ``/usage``, and Codex's lines of ``/status`` and ``/permissions``.

Settings changed here belong to the room (they outlive its app-server process) and apply
from the next turn on; nothing here changes the adapter's config or another room.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from band.adapters._coding.commands import RoomCommand
from band.adapters._coding.events import Reporter

from .config import DEFAULT_MODEL, SANDBOX_MODES
from .process import CodexProcess
from .room import THREAD_KEY
from .rpc import CodexJsonRpcError, TransportClosed
from .vocabulary import CodexCommand, CodexSubcommand

if TYPE_CHECKING:
    from ._types import CommandHost

__all__ = ["HELP", "dispatch", "first_model", "model", "permission_lines", "status_lines"]

logger = logging.getLogger("band.adapters.codex")
CONFIRM = "--confirm"
NOT_RUNNING = "Codex is not running in this room yet; mention me once, then ask again."
HELP = [
    "- `/reasoning [<effort>|summary <mode>]`: show or set this room's reasoning",
    "- `/sandbox [<mode> [--confirm]]`: show or set this room's sandbox "
    f"({', '.join(SANDBOX_MODES)}; `danger-full-access` needs `--confirm`)",
    "- `/threads`: this room's Codex threads",
    "- `/thread info`, `/thread archive`: the room's thread, or archive it and start anew",
    "- `/usage`: the token usage of the room's thread",
]


async def first_model(proc: CodexProcess) -> str:
    """The first visible model of ``model/list``, else the default."""
    for entry in await _models(proc):
        if not entry.get("hidden") and entry.get("id"):
            return str(entry.get("model") or entry["id"])
    return DEFAULT_MODEL


async def _models(proc: CodexProcess | None) -> list[dict[str, Any]]:
    if proc is None or not proc.alive:
        return []
    try:
        listing = await proc.channel.request("model/list", {})
    except (CodexJsonRpcError, TransportClosed) as exc:
        logger.info("model/list failed: %s", exc)
        return []
    return [m for m in (listing or {}).get("data") or [] if isinstance(m, dict)]


async def _efforts(adapter: CommandHost, room_id: str) -> list[str]:
    """The reasoning efforts Codex lists for the room's model (empty when unknown)."""
    wanted = adapter.room_model(room_id)
    for entry in await _models(adapter.processes.current(room_id)):
        if wanted in (entry.get("id"), entry.get("model")):
            return [
                str(e.get("reasoningEffort"))
                for e in entry.get("supportedReasoningEfforts") or []
                if isinstance(e, dict) and e.get("reasoningEffort")
            ]
    return []


def status_lines(adapter: CommandHost, room_id: str) -> list[str]:
    room, config = adapter.room(room_id), adapter.config
    usage = room.thread_usage()
    return [
        f"Codex app-server: {adapter.processes.running(room_id)}.",
        f"Thread: `{room.thread_id}`." if room.thread_id else "Thread: none yet.",
        f"Model: `{adapter.room_model(room_id)}` (configured: `{config.model or 'auto'}`); "
        f"reasoning effort `{room.reasoning_effort or config.reasoning_effort or 'default'}`, "
        f"summary `{room.reasoning_summary or config.reasoning_summary or 'default'}`.",
        f"Approval policy `{config.approval_policy}`; sandbox "
        f"`{adapter.room_sandbox(room_id) or 'default'}`"
        + (" (a sandbox policy is configured)." if config.sandbox_policy else "."),
        f"Token usage: {usage.format_summary()}." if usage else "Token usage: none yet.",
    ]


def permission_lines(adapter: CommandHost, room_id: str) -> list[str]:
    config = adapter.config
    policy = f"; sandbox policy `{config.sandbox_policy}`" if config.sandbox_policy else ""
    return [
        f"Approval mode: `{config.approval_mode}`; Codex approval policy "
        f"`{config.approval_policy}`; sandbox `{adapter.room_sandbox(room_id) or 'default'}`"
        f"{policy}.",
    ]


async def model(adapter: CommandHost, room_id: str, args: tuple[str, ...]) -> str:
    room = adapter.room(room_id)
    if not args:
        return (
            f"Model in this room: `{adapter.room_model(room_id)}` (configured: "
            f"`{adapter.config.model or 'auto'}`). `/model list` shows the models, "
            "`/model <id>` uses another one here."
        )
    if args[0].lower() in (CodexSubcommand.LIST, CodexSubcommand.LS):
        proc = adapter.processes.current(room_id)
        if proc is None or not proc.alive:
            return NOT_RUNNING
        ids = [str(m["id"]) for m in await _models(proc) if m.get("id") and not m.get("hidden")]
        return f"Models ({len(ids)}): " + (", ".join(f"`{i}`" for i in ids) or "(none listed)")
    room.selected_model = args[0]
    return f"Model in this room is now `{args[0]}` (from the next message on)."


async def dispatch(
    adapter: CommandHost, command: RoomCommand, room_id: str, reporter: Reporter
) -> str | None:
    name, args = command.name, command.args
    if name == CodexCommand.REASONING:
        return await _reasoning(adapter, room_id, args)
    if name == CodexCommand.SANDBOX:
        return _sandbox(adapter, room_id, args)
    if name == CodexCommand.THREADS:
        return await _threads(adapter, room_id)
    if name == CodexCommand.THREAD:
        sub = args[0].lower() if args else CodexSubcommand.INFO
        if sub == CodexSubcommand.INFO:
            return _thread_info(adapter, room_id)
        if sub == CodexSubcommand.ARCHIVE:
            return await _archive(adapter, room_id, reporter)
        return "Usage: `/thread info` or `/thread archive`."
    if name == CodexCommand.USAGE:
        room = adapter.room(room_id)
        usage = room.thread_usage()
        if room.thread_id is None:
            return "This room has no Codex thread yet, so no usage."
        if usage is None:
            return f"No token usage recorded for thread `{room.thread_id}` yet."
        return f"Thread `{room.thread_id}`: {usage.format_summary()}."
    return None


async def _reasoning(adapter: CommandHost, room_id: str, args: tuple[str, ...]) -> str:
    room, config = adapter.room(room_id), adapter.config
    efforts = await _efforts(adapter, room_id)
    supported = ", ".join(f"`{e}`" for e in efforts)
    if not args:
        hint = f" `{adapter.room_model(room_id)}` supports {supported}." if efforts else ""
        effort = room.reasoning_effort or config.reasoning_effort or "default"
        return (
            f"Reasoning in this room: effort `{effort}`, summary "
            f"`{room.reasoning_summary or config.reasoning_summary or 'default'}`.{hint} "
            "`/reasoning <effort>` or `/reasoning summary <auto|concise|detailed|none>` "
            "changes it."
        )
    if args[0].lower() == "summary":
        modes = ("auto", "concise", "detailed", "none")
        if len(args) != 2 or args[1].lower() not in modes:
            return f"Usage: `/reasoning summary <{'|'.join(modes)}>`."
        room.reasoning_summary = args[1].lower()
        summary = room.reasoning_summary
        return f"Reasoning summary in this room is now `{summary}` (from the next message on)."
    effort = args[0].lower()
    if efforts and effort not in efforts:
        return (
            f"`{adapter.room_model(room_id)}` does not support reasoning effort `{effort}`; "
            f"it supports {supported}."
        )
    room.reasoning_effort = effort
    return f"Reasoning effort in this room is now `{effort}` (from the next message on)."


def _sandbox(adapter: CommandHost, room_id: str, args: tuple[str, ...]) -> str:
    if adapter.config.sandbox_policy is not None:
        return (
            "This agent has a sandbox policy configured, which `/sandbox` cannot override; "
            "remove `sandbox_policy` from its config to choose per room."
        )
    usage = f"Usage: `/sandbox <{'|'.join(SANDBOX_MODES)}> [{CONFIRM}]`."
    if not args:
        return f"Sandbox in this room: `{adapter.room_sandbox(room_id) or 'default'}`. {usage}"
    modes = [a for a in args if a != CONFIRM]
    if len(modes) != 1:
        return usage
    mode = modes[0].lower().replace("_", "-")
    if mode not in SANDBOX_MODES:
        return f"Unknown sandbox mode `{modes[0]}`; the modes are {', '.join(SANDBOX_MODES)}."
    if mode == "danger-full-access" and CONFIRM not in args:
        return (
            "`danger-full-access` lifts every sandbox restriction for this room. To proceed, "
            f"send `/sandbox danger-full-access {CONFIRM}`."
        )
    if mode == "danger-full-access":
        logger.warning("Room %s: sandbox escalated to danger-full-access", room_id)
    adapter.room(room_id).sandbox = mode
    return f"Sandbox in this room is now `{mode}` (from the next message on)."


async def _threads(adapter: CommandHost, room_id: str) -> str:
    room = adapter.room(room_id)
    proc = adapter.processes.current(room_id)
    listed: list[dict[str, Any]] = []
    if proc is not None and proc.alive:
        try:
            found = await proc.channel.request("thread/list", {"cwd": str(proc.workspace)})
            listed = [t for t in (found or {}).get("data") or [] if isinstance(t, dict)]
        except (CodexJsonRpcError, TransportClosed) as exc:
            logger.info("Room %s: thread/list failed: %s", room_id, exc)
    ids = [str(t.get("id")) for t in listed if t.get("id")]
    if room.thread_id and room.thread_id not in ids:
        ids.insert(0, room.thread_id)
    if not ids:
        return "This room has no Codex thread yet."
    lines = [f"Codex threads of this room ({len(ids)}):"]
    lines += [f"- `{t}`" + (" (current)" if t == room.thread_id else "") for t in ids]
    return "\n".join(lines)


def _thread_info(adapter: CommandHost, room_id: str) -> str:
    room = adapter.room(room_id)
    if room.thread_id is None:
        return "This room has no Codex thread yet; the next message starts one."
    usage = room.thread_usage()
    tools = f"{len(room.tool_names)} tools" if room.tool_names else "tools not recorded"
    how = ", resumed into this process" if room.restored else ""
    return "\n".join(
        [
            f"Thread `{room.thread_id}` ({tools}{how}).",
            f"Model `{adapter.room_model(room_id)}`; sandbox "
            f"`{adapter.room_sandbox(room_id) or 'default'}`.",
            f"Token usage: {usage.format_summary()}." if usage else "Token usage: none yet.",
        ]
    )


async def _archive(adapter: CommandHost, room_id: str, reporter: Reporter) -> str:
    room = adapter.room(room_id)
    if adapter.turns.running(room_id) is not None:
        return "A turn is still running in this room; archive the thread once it is done."
    thread = room.thread_id
    if thread is None:
        return "This room has no Codex thread to archive; the next message starts one."
    async with room.rpc_lock:  # not while a turn maps the room to its thread
        proc = adapter.processes.current(room_id)
        if proc is not None and proc.alive:
            try:
                await proc.channel.request("thread/archive", {"threadId": thread})
            except (CodexJsonRpcError, TransportClosed) as exc:
                logger.info("Room %s: thread/archive %s failed: %s", room_id, thread, exc)
            proc.thread_id = None
        room.forget_thread()
    await reporter.task(
        "Codex thread archived",
        {THREAD_KEY: None, "codex_archived_thread_id": thread, "codex_room_id": room_id},
        always=True,
    )
    return f"Thread `{thread}` archived; the next message starts a new thread."
