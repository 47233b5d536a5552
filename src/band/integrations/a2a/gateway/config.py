"""``A2AGatewayAdapterConfig``: where the gateway listens and what its agent cards say."""

from __future__ import annotations

from pydantic import PositiveFloat

from band.core.adapterconfig import BaseAdapterConfig

__all__ = ["A2AGatewayAdapterConfig"]


class A2AGatewayAdapterConfig(BaseAdapterConfig):
    """Settings of an ``A2AGatewayAdapter`` (frozen, unknown fields rejected).

    * ``gateway_url``: the base URL A2A clients reach the gateway at, as the agent cards
      advertise it (default ``http://localhost:<port>``);
    * ``port``: where the HTTP server listens (0: any free port; ``public_url`` then uses the
      bound one);
    * ``host``: the interface it binds, loopback unless set (``0.0.0.0`` serves the network);
    * ``response_timeout_s``: how long an A2A request waits for the Band peer's reply before
      its task fails (``None``: no limit).
    """

    gateway_url: str | None = None
    port: int = 10000
    response_timeout_s: PositiveFloat | None = 300.0
    host: str = "127.0.0.1"

    @property
    def public_url(self) -> str:
        """The base URL the agent cards advertise."""
        return self.gateway_url or f"http://localhost:{self.port}"
