"""``platform_connection_stub``: the platform coordinates an adapter gets, for unit tests."""

from __future__ import annotations

from band.core.types import PlatformConnection

__all__ = ["platform_connection_stub"]


def platform_connection_stub(agent_id: str = "test-agent-id") -> PlatformConnection:
    """What ``Agent.start`` injects as ``adapter.platform``, with placeholder credentials."""
    return PlatformConnection(
        agent_id=agent_id,
        api_key="test-api-key",
        rest_url="https://test.invalid",
        ws_url="wss://test.invalid/socket",
    )
