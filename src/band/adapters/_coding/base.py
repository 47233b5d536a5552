"""``CodingAgentAdapter``: what Codex and ACP rooms share.

One agent process per room (:class:`RoomSupervisor`, each start bounded by
``start_timeout_s``), room commands (approvals, ``/approvals``, ``/permissions``, ``/help``,
``/status``, ``/model``, plus the subclass's own), the approvals relay, turns that may
detach while an approval waits, and a lost process reported once. A subclass starts its
process and runs one prompt on it.
"""

from __future__ import annotations

import asyncio
import logging
from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, NoReturn, TypeVar, Unpack

from band.core.exceptions import BandError, TurnResultAlreadyReported
from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage
from band.runtime.custom_tools import CustomToolDef
from band.runtime.prompts import system_updates
from band.workspaces import RoomWorkspaces, WorkspaceResolver
from band_protocol import AgentFailure

from .._prompt import PromptedAdapter
from .approvals import ApprovalRelay
from .commands import APPROVAL_COMMANDS, RoomCommand, parse_command
from .events import Reporter
from .history import CodingHistory, CodingHistoryConverter, as_coding_history
from .supervisor import AgentProcess, RoomSupervisor, TransportClosed
from .turns import DetachableTurn, TurnTasks

__all__ = ["CodingAgentAdapter", "Prompt"]

logger = logging.getLogger("band.adapters.coding")
P = TypeVar("P", bound=AgentProcess)
TRANSPORT_CLOSED = "transport_closed"


class Prompt:
    """One message as the agent will get it, with the turn it belongs to."""

    def __init__(
        self,
        msg: PlatformMessage,
        room_id: str,
        history: CodingHistory,
        updates: list[str],
        reporter: Reporter,
        turn: DetachableTurn,
    ) -> None:
        self.msg = msg
        self.room_id = room_id
        self.history = history
        self.updates = updates
        self.reporter = reporter
        self.turn = turn

    @property
    def tools(self) -> AgentToolsProtocol:
        return self.reporter.tools


class CodingAgentAdapter(PromptedAdapter[CodingHistory], Generic[P]):
    """Base of adapters that drive a coding agent process per room."""

    PROVIDER: ClassVar[str] = "coding-agent"
    LABEL: ClassVar[str] = "agent"
    # What every coding agent reports; an agent that posts more widens it.
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.USAGE}
    )
    # Band's tools are served to the agent whole: every capability is supported.
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(
        self,
        *,
        relay: ApprovalRelay,
        session_key: str,
        custom_section: str = "",
        system_prompt: str | None = None,
        include_base_instructions: bool = True,
        additional_tools: Sequence[CustomToolDef] = (),
        history_converter: Any = None,
        start_timeout_s: float = 60.0,
        workspace_for_room: WorkspaceResolver | None = None,
        turn_settle_s: float = 0.0,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            system_prompt=system_prompt,
            custom_section=custom_section,
            include_base_instructions=include_base_instructions,
            history_converter=history_converter or CodingHistoryConverter(session_key),
            **features,
        )
        self.relay = relay
        self.start_timeout_s = start_timeout_s
        self.additional_tools = list(additional_tools)
        self.processes: RoomSupervisor[P] = RoomSupervisor(self.LABEL)
        self.turns = TurnTasks()
        self.turn_settle_s = turn_settle_s  # a leave or stop lets a running turn end first
        # From each room's history: the session to resume, the transcript for a new one.
        self.known_sessions: dict[str, str] = {}
        self.transcripts: dict[str, tuple[str, ...]] = {}
        self.workspace_for_room = workspace_for_room
        self.workspaces = RoomWorkspaces(workspace_for_room)

    # -- subclass hooks ------------------------------------------------------------------------

    @abstractmethod
    async def start_process(self, room_id: str, reporter: Reporter) -> P:
        """Start and initialise the room's agent process."""

    @abstractmethod
    async def run_prompt(self, proc: P, prompt: Prompt) -> None:
        """Run one prompt to its end; raise ``TransportClosed``-like errors as they come."""

    def is_transport_error(self, error: BaseException) -> bool:
        return isinstance(error, TransportClosed)

    def status_lines(self, room_id: str) -> list[str]:
        return []

    async def model_command(self, room_id: str, args: tuple[str, ...]) -> str:
        return f"{type(self).__name__} cannot switch models from the room."

    async def room_command(
        self, command: RoomCommand, room_id: str, reporter: Reporter
    ) -> str | None:
        """The notice answering a subclass's own command; None when it is not one."""
        return None

    def command_help(self) -> list[str]:
        """Help lines of the subclass's own commands."""
        return []

    async def take_reply(self, msg: PlatformMessage, room_id: str) -> bool:
        """True when ``msg`` answers something the agent asked, consumed instead of a prompt."""
        return False

    async def forget_room(self, room_id: str) -> None:
        """Drop subclass state of a room (its process is closed already)."""

    # -- lifecycle -----------------------------------------------------------------------------

    async def on_cleanup(self, room_id: str) -> None:
        await self.turns.cancel(room_id, grace_s=self.turn_settle_s)
        self.relay.forget(room_id)
        self.known_sessions.pop(room_id, None)
        self.transcripts.pop(room_id, None)
        await self.processes.close(room_id)
        await self.forget_room(room_id)
        self.workspaces.release(room_id)

    async def cleanup_all(self) -> None:
        await self.turns.cancel_all(grace_s=self.turn_settle_s)
        await self.processes.close_all()
        for room_id in self.workspaces.rooms:
            self.workspaces.release(room_id)

    def room_folder(self, room_id: str) -> Path:
        """The folder the room's agent works in, held by this room until its cleanup."""
        return Path(self.workspaces.claim(room_id))

    # -- one message ---------------------------------------------------------------------------

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: CodingHistory,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if await self.take_reply(msg, room_id):
            tools.turn.settle()
            return
        history = as_coding_history(history, room_id)  # a band-sdk session state too
        if room_id not in self.known_sessions and history.session_id is not None:
            self.known_sessions[room_id] = history.session_id
        if history.transcript:
            self.transcripts[room_id] = history.transcript
        reporter = Reporter(self, tools, [msg.sender_id])
        command = parse_command(msg.content)
        if command is not None and await self._command(
            command, room_id, tools, reporter, sender_id=msg.sender_id
        ):
            tools.turn.settle()
            return
        earlier = self.turns.running(room_id)
        turn = DetachableTurn(tools, self.PROVIDER)
        updates = system_updates(participants_msg, contacts_msg)
        prompt = Prompt(msg, room_id, history, updates, reporter, turn)
        if earlier is not None:  # it waits for an approval: this one goes after it
            waiting = ", ".join(f"`{t}`" for t in self.relay.pending(room_id))
            what = f" (waiting for approval {waiting})" if waiting else ""
            await reporter.notice(
                f"I'm still working on the previous request in this room{what}; "
                "I'll take this one up when it is done."
            )
            turn.release()
        try:
            await turn.run(self._after(earlier, prompt))
        finally:
            self.turns.keep(room_id, turn)

    async def _after(self, earlier: DetachableTurn | None, prompt: Prompt) -> None:
        """Run ``prompt`` once the room's ``earlier`` turn (if any) has ended."""
        if earlier is not None:
            await earlier.finished()
        proc = await self._process(prompt.room_id, prompt.reporter)
        await self._guarded(proc, prompt)

    async def _process(self, room_id: str, reporter: Reporter) -> P:
        """The room's live process; a start that fails or overruns is reported once."""

        async def start() -> P:
            return await asyncio.wait_for(
                self.start_process(room_id, reporter), self.start_timeout_s
            )

        try:
            return await self.processes.get(room_id, start, reporter.notice)
        except TimeoutError:
            message = f"The {self.LABEL} did not start within {self.start_timeout_s:g} s."
        except (OSError, BandError) as exc:
            message = f"The {self.LABEL} could not start: {exc}"
        logger.warning("Room %s: %s", room_id, message)
        await self.fail(reporter.tools, message)

    async def _guarded(self, proc: P, prompt: Prompt) -> None:
        try:
            await self.run_prompt(proc, prompt)
        except Exception as exc:
            if not self.is_transport_error(exc):
                raise
            await self.processes.discard(prompt.room_id)
            message = (
                f"The {self.LABEL} process of this room stopped ({proc.exit_description}); "
                "a new one starts with the next message."
            )
            logger.warning("Room %s: %s", prompt.room_id, message)
            failure = AgentFailure(self.PROVIDER, message, TRANSPORT_CLOSED)
            await self.fail(prompt.tools, failure, exc)

    async def fail(
        self, tools: AgentToolsProtocol, failure: str | AgentFailure, cause: Exception | None = None
    ) -> NoReturn:
        """Show ``failure`` (a message: this adapter's failure) in the room and end the turn:
        the error raised says the room has been told already."""
        if isinstance(failure, str):
            failure = AgentFailure(self.PROVIDER, failure)
        await tools.send_failure(failure)
        if cause is None:
            raise TurnResultAlreadyReported(failure.message)
        raise TurnResultAlreadyReported(failure.message) from cause

    # -- room commands -------------------------------------------------------------------------

    async def _command(
        self,
        command: RoomCommand,
        room_id: str,
        tools: AgentToolsProtocol,
        reporter: Reporter,
        *,
        sender_id: str,
    ) -> bool:
        if command.name in APPROVAL_COMMANDS:
            await self.relay.answer(room_id, tools, command, reporter.mentions, sender_id=sender_id)
        elif command.name == "approvals":
            await reporter.notice(
                "\n".join([self.relay.describe(room_id), *self.approval_lines(room_id)])
            )
        elif command.name == "permissions":
            lines = [*self.permission_lines(room_id), *self.relay.permissions(room_id)]
            await reporter.notice("\n".join(lines))
        elif command.name == "help":
            await reporter.notice(self._help())
        elif command.name == "status":
            lines = [*self.status_lines(room_id), self.relay.describe(room_id)]
            await reporter.notice("\n".join(lines))
        elif command.name in ("model", "models"):
            await reporter.notice(await self.model_command(room_id, command.args))
        else:
            answer = await self.room_command(command, room_id, reporter)
            if answer is None:
                return False
            await reporter.notice(answer)
        return True

    def approval_lines(self, room_id: str) -> list[str]:
        """The subclass's own account of what waits for approval (the tail of ``/approvals``)."""
        return []

    def permission_lines(self, room_id: str) -> list[str]:
        """What the agent may do in ``room_id`` (the head of ``/permissions``)."""
        return [f"Approval mode: `{self.relay.mode}`."]

    def _help(self) -> str:
        return "\n".join(
            [
                f"Commands for {self.agent_name or self.LABEL}:",
                "- `/approve <id>`, `/decline <id>`, `/approve-session <id>`: answer an "
                "approval request (the session form also accepts the same request later)",
                "- `/approvals`: the approval mode and what is pending",
                "- `/permissions`: what the agent may do here, session approvals and the "
                "latest decisions",
                "- `/status`: the agent process, session and model of this room",
                "- `/model [list|<id>]`: show the model, list the models, or use another one "
                "in this room",
                *self.command_help(),
                "- `/help`: this list",
            ]
        )
