"""``RestBridgeAdapter``: the base of adapters that act in rooms outside their own turns.

The A2A gateway and the ACP server post into rooms when a request from outside arrives, not
when a mention does: they hold a REST client of their own (built from the platform
connection at start, unless one is given), and their turns are never judged (what arrives in
a room is relayed out, not answered there).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, Generic, TypeVar, Unpack

from pydantic import BaseModel

from band.client.rest import AsyncRestClient
from band.core.protocols import AgentToolsProtocol, HistoryConverter
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage

__all__ = ["RestBridgeAdapter"]

H = TypeVar("H")
C = TypeVar("C", bound=BaseModel)


class RestBridgeAdapter(SimpleAdapter[H], Generic[H, C]):
    """A REST client of its own (``rest``) and no judged turns (see the module docstring).

    Both bridges take band-sdk's ``(config=None, *, rest_client=None, **features)``: a subclass
    names its ``config_model`` (built with its defaults when no ``config`` is given) and its
    ``history_converter_model``, and sets up its own state in ``_setup``. A turn reads the
    room's state back on bootstrap (``_rehydrate``), then relays the message (``_relay``).
    """

    config_model: type[C]
    history_converter_model: type[HistoryConverter[H]]

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset()
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset()

    def __init__(
        self,
        config: C | None = None,
        *,
        rest_client: AsyncRestClient | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=self.history_converter_model(), **features)
        self._rest = rest_client
        self._owns_rest = rest_client is None
        self.config = config or self.config_model()
        self._setup()

    @abstractmethod
    def _setup(self) -> None:
        """Set up the adapter's own state (``config`` is set by then)."""

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: H,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if is_session_bootstrap and history:
            self._rehydrate(history)
        await self._relay(msg, room_id)

    @abstractmethod
    def _rehydrate(self, history: H) -> None:
        """Take what a room's history records; what is known already stays."""

    @abstractmethod
    async def _relay(self, msg: PlatformMessage, room_id: str) -> None:
        """Carry a message of ``room_id`` out to the request waiting on that room."""

    @property
    def judges_turns(self) -> bool:
        """What arrives in its rooms is relayed out; it owes the room no reply."""
        return False

    @property
    def rest(self) -> AsyncRestClient:
        if self._rest is None:
            raise RuntimeError(f"{type(self).__name__}'s REST client exists once the agent started")
        return self._rest

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        if self._rest is None:
            platform = self.require_platform()
            self._rest = AsyncRestClient(base_url=platform.rest_url, api_key=platform.api_key)

    async def close_rest(self) -> None:
        """Close the REST client if this adapter built it."""
        if self._owns_rest and self._rest is not None:
            await self._rest.aclose()
            self._rest = None
