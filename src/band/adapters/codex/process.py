"""A room's ``codex app-server`` process: started, initialised, waited on, closed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from band.integrations.codex.rpc_base import TRANSPORT_CLOSED, RpcEvent
from band.integrations.codex.stdio_client import kill_process_tree
from band.integrations.codex.types import (
    CODEX_APPROVAL_METHODS,
    DYNAMIC_TOOL_CALL_METHOD,
    CodexRequestMethod,
)

from .native import NativeTurn, undelivered
from .room import RoomCodexClient
from .rpc import (
    METHOD_NOT_FOUND,
    CodexClientProtocol,
    CodexJsonRpcError,
    StdioRpc,
    TransportClosed,
    answer,
    answer_error,
)

__all__ = [
    "UNOWNED_TOOL_CALL",
    "CodexProcess",
    "CodexTurn",
    "SkillRootsRefused",
    "TurnWaiter",
    "tool_response",
]

logger = logging.getLogger("band.adapters.codex")
UNOWNED_TOOL_CALL = "No Band turn started this Codex turn, so Band tools are unavailable to it."

CLIENT_INFO = {"name": "band_codex_adapter", "title": "Band Codex Adapter", "version": "0.1.0"}


class SkillRootsRefused(CodexJsonRpcError):
    """Codex did not accept the configured ``skill_roots``."""


def tool_response(text: str, *, success: bool) -> dict[str, Any]:
    """A dynamic tool call's result: one text item."""
    return {"contentItems": [{"type": "inputText", "text": text}], "success": success}


class TurnWaiter(Protocol):
    """What waiting for a turn reads of it (``turn.CodexTurnRun`` is one)."""

    @property
    def done(self) -> asyncio.Future[dict[str, Any]]: ...

    @property
    def awaiting_approval(self) -> int: ...


@dataclass(frozen=True)
class CodexTurn:
    """What interrupting one room's running app-server turn needs."""

    client: CodexClientProtocol
    thread_id: str
    turn_id: str

    async def interrupt(self) -> None:
        """Ask Codex to stop the turn (``turn/interrupt``); it then completes as
        ``interrupted``. A refusal raises ``CodexJsonRpcError``."""
        params = {"threadId": self.thread_id, "turnId": self.turn_id}
        await self.client.request(CodexRequestMethod.TURN_INTERRUPT, params)


class CodexProcess:
    """A room's ``codex app-server``: the RPC channel and the thread it runs.

    Its events go to the room's running turn (``room.turn``, when it runs on this process)
    or, when no turn owns them, are refused: a Band tool call fails, an approval is
    declined, another request is answered "method not found".
    """

    def __init__(self, room: RoomCodexClient, *, close_timeout_s: float | None = None) -> None:
        self.room = room
        self.room_id = room.room_id
        self.workspace = Path(room.workspace)
        self.close_timeout_s = close_timeout_s
        self.rpc: StdioRpc | None = None
        self.thread_id: str | None = None
        self.server_info: dict[str, Any] = {}
        room.generation += 1
        self.generation = room.generation

    @property
    def alive(self) -> bool:
        return self.rpc is not None and self.rpc.alive

    @property
    def pid(self) -> int | None:
        return self.rpc.proc.pid if self.rpc is not None else None

    @property
    def exit_description(self) -> str:
        return self.rpc.exit_description if self.rpc is not None else "not started"

    @property
    def channel(self) -> StdioRpc:
        if self.rpc is None:
            raise TransportClosed("codex app-server is not running")
        return self.rpc

    async def start(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        skill_roots: Sequence[str] = (),
        *,
        client_info: Mapping[str, str] = CLIENT_INFO,
        experimental_api: bool = True,
    ) -> None:
        """Spawn, ``initialize`` (as ``client_info``: name, title, version; asking for
        Codex's experimental API when ``experimental_api``) and register ``skill_roots``
        (``skills/extraRoots/set``). ``server_info`` keeps what ``initialize`` answered."""
        self.rpc = await StdioRpc.spawn(
            argv,
            cwd=str(self.workspace),
            env=env,
            on_event=self._route,
            label="codex app-server",
        )
        self.room.client, self.room.reader = self.rpc.client, self.rpc.reader
        self.server_info = await self.rpc.initialize(client_info, experimental_api=experimental_api)
        if skill_roots:
            roots = {"extraRoots": list(skill_roots)}
            try:
                await self.rpc.request(CodexRequestMethod.SKILLS_EXTRA_ROOTS_SET, roots)
            except CodexJsonRpcError as exc:
                raise SkillRootsRefused(
                    code=exc.code, message=f"skill_roots {list(skill_roots)}: {exc.message}"
                ) from exc

    def native_turn(self) -> NativeTurn | None:
        """The room's running turn, when it runs on this process."""
        native = self.room.turn
        return native if native is not None and native.generation == self.generation else None

    async def _route(self, event: RpcEvent) -> None:
        native = self.native_turn()
        if event.method == TRANSPORT_CLOSED:
            if native is not None:
                self.room.decline_approvals()  # the lost process can never read an answer
                native.lose(event)
            return
        if native is not None and native.turn_id is None:
            native.early.append(event)  # turn/start has not answered yet
        elif native is None or not native.claim(event):
            await self.refuse(event)

    async def refuse(self, event: RpcEvent) -> None:
        """Answer work no Band turn started, without lending it a turn's tools."""
        if not event.is_request or event.id is None or self.rpc is None:
            logger.debug("Room %s: no turn owns Codex %s; dropped", self.room_id, event.method)
            return
        logger.warning(
            "Room %s: refusing Codex %s, which no Band turn started", self.room_id, event.method
        )
        client = self.rpc.client
        if event.method == DYNAMIC_TOOL_CALL_METHOD:
            await answer(client, event.id, tool_response(UNOWNED_TOOL_CALL, success=False))
        elif event.method in CODEX_APPROVAL_METHODS:
            await answer(client, event.id, {"decision": "decline"})
        else:
            message = f"Unhandled server request: {event.method}"
            await answer_error(client, event.id, METHOD_NOT_FOUND, message)

    async def refuse_undelivered(self, native: NativeTurn, limit: float) -> None:
        """Refuse what a finished turn left unhandled, within ``limit`` seconds (a process
        that stopped reading cannot hold the room); a lost process is not answered."""
        if native.lost:
            return
        try:
            async with asyncio.timeout(limit):
                for event in undelivered(native):
                    await self.refuse(event)
        except TimeoutError:
            logger.warning("Room %s: Codex stopped reading; requests left open", self.room_id)

    def running_turn(self) -> CodexTurn | None:
        """The turn Codex is running for this room, once it has an id (None otherwise)."""
        native, rpc = self.native_turn(), self.rpc
        if native is None or native.turn_id is None or native.thread_id is None:
            return None
        if rpc is None or not rpc.alive:
            return None
        return CodexTurn(rpc.client, native.thread_id, native.turn_id)

    async def wait(self, turn: TurnWaiter, limit: float) -> dict[str, Any] | None:
        """The completed turn; None on timeout (time spent on approvals is not counted).
        The process's loss raises ``TransportClosed``."""
        while True:
            done, _ = await asyncio.wait({turn.done}, timeout=limit)
            if done:
                return turn.done.result()
            if not turn.awaiting_approval:
                return None

    async def close(self) -> None:
        """Stop the app-server. Past ``close_timeout_s`` (None: no bound) its process group
        is killed and TimeoutError names the room."""
        rpc = self.rpc
        if rpc is None:
            return
        try:
            await asyncio.wait_for(rpc.close(), self.close_timeout_s)
        except TimeoutError as exc:
            if rpc.client.process is not None:
                await kill_process_tree(rpc.client.process)
            raise TimeoutError(
                f"Codex process for room {self.room_id} did not close within "
                f"{self.close_timeout_s}s"
            ) from exc
        finally:
            if self.room.client is rpc.client:
                self.room.client = None
                self.room.restored = False
            if self.room.reader is rpc.reader:
                self.room.reader = None
