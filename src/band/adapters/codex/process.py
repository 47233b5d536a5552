"""A room's ``codex app-server`` process: started, initialised, waited on, closed."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from band.integrations.codex.stdio_client import kill_process_tree
from band.integrations.codex.types import CodexRequestMethod

from .rpc import CodexClientProtocol, CodexJsonRpcError, StdioRpc, TransportClosed

__all__ = ["ActiveTurn", "CodexProcess", "CodexTurn", "SkillRootsRefused"]

CLIENT_INFO = {"name": "band_codex_adapter", "title": "Band Codex Adapter", "version": "0.1.0"}


class SkillRootsRefused(CodexJsonRpcError):
    """Codex did not accept the configured ``skill_roots``."""


class ActiveTurn(Protocol):
    """The running turn that the process hands its traffic to (``turn.CodexTurnRun``)."""

    @property
    def thread_id(self) -> str: ...

    @property
    def turn_id(self) -> str | None: ...

    @property
    def done(self) -> asyncio.Future[dict[str, Any]]: ...

    @property
    def awaiting_approval(self) -> int: ...

    async def on_notification(self, method: str, params: dict[str, Any]) -> None: ...

    async def on_request(self, method: str, params: dict[str, Any]) -> Any: ...


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
    """A room's ``codex app-server``: the RPC channel, its thread and the active turn."""

    def __init__(
        self, room_id: str, workspace: Path, *, close_timeout_s: float | None = None
    ) -> None:
        self.room_id = room_id
        self.workspace = workspace
        self.close_timeout_s = close_timeout_s
        self.rpc: StdioRpc | None = None
        self.thread_id: str | None = None
        self.active: ActiveTurn | None = None
        self.server_info: dict[str, Any] = {}

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
            on_notification=self._notification,
            on_request=self._request,
            label="codex app-server",
        )
        self.server_info = await self.rpc.initialize(client_info, experimental_api=experimental_api)
        if skill_roots:
            roots = {"extraRoots": list(skill_roots)}
            try:
                await self.rpc.request(CodexRequestMethod.SKILLS_EXTRA_ROOTS_SET, roots)
            except CodexJsonRpcError as exc:
                raise SkillRootsRefused(
                    code=exc.code, message=f"skill_roots {list(skill_roots)}: {exc.message}"
                ) from exc

    async def _notification(self, method: str, params: dict[str, Any]) -> None:
        if self.active is not None:
            await self.active.on_notification(method, params)

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        if self.active is None:
            raise ValueError(f"no turn is running to answer {method}")
        return await self.active.on_request(method, params)

    def running_turn(self) -> CodexTurn | None:
        """The turn Codex is running for this room, once it has an id (None otherwise)."""
        active, rpc = self.active, self.rpc
        if active is None or active.turn_id is None or rpc is None or not rpc.alive:
            return None
        return CodexTurn(rpc.client, active.thread_id, active.turn_id)

    async def wait(self, turn: ActiveTurn, limit: float) -> dict[str, Any] | None:
        """The completed turn; None on timeout (time spent on approvals is not counted)."""
        closed = asyncio.create_task(self.channel.closed.wait())
        waiters: set[asyncio.Future[Any]] = {turn.done, closed}
        try:
            while True:
                done, _ = await asyncio.wait(
                    waiters, timeout=limit, return_when=asyncio.FIRST_COMPLETED
                )
                if turn.done in done:
                    return turn.done.result()
                if closed in done:
                    raise TransportClosed(f"codex app-server exited ({self.exit_description})")
                if not turn.awaiting_approval:
                    return None
        finally:
            closed.cancel()

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
