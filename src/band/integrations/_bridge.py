"""``RestBridgeAdapter``: the base of adapters that act in rooms outside their own turns.

The A2A gateway and the ACP server post into rooms when a request from outside arrives, not
when a mention does: they hold a REST client of their own (built from the platform
connection at start, unless one is given), and their turns are never judged (what arrives in
a room is relayed out, not answered there).
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar, Unpack

from band.client.rest import AsyncRestClient
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Capability, Emit, FeatureKwargs

__all__ = ["RestBridgeAdapter"]

H = TypeVar("H")


class RestBridgeAdapter(SimpleAdapter[H], Generic[H]):
    """A REST client of its own (``rest``) and no judged turns (see the module docstring)."""

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset()
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset()

    def __init__(
        self,
        *,
        rest_client: AsyncRestClient | None,
        history_converter: Any,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=history_converter, **features)
        self._rest = rest_client
        self._owns_rest = rest_client is None

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
