"""``A2AGatewayAdapter`` under ``band.adapters`` (code: ``band.integrations.a2a.gateway``)."""

from band.integrations.a2a import gateway
from band.integrations.a2a.gateway import *  # noqa: F403  (its __all__, added below)

__all__: list[str] = []
__all__ += gateway.__all__
