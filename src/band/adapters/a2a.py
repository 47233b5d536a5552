"""``A2AAdapter`` under ``band.adapters`` (the code is in ``band.integrations.a2a``)."""

from band.integrations.a2a.adapter import A2AAdapter
from band.integrations.a2a.types import A2AAdapterConfig, A2AAuth

__all__ = ["A2AAdapter", "A2AAdapterConfig", "A2AAuth"]
