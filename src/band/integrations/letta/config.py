"""``LettaAdapterConfig`` and ``LettaMCPConfig``: which Letta server, which agents, which tools.

Most fields can come from ``LETTA_<FIELD>`` environment variables (``LETTA_BASE_URL``,
``LETTA_MODEL``, ``LETTA_EMBEDDING``, ...; the key also from ``LETTA_API_KEY``); a value
passed explicitly wins.
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from band.core.exceptions import BandConfigError
from band.integrations.mcp.local_server import LOCAL_MCP_HOST

__all__ = ["LETTA_CLOUD_BASE_URL", "LettaAdapterConfig", "LettaMCPConfig", "MCPTransport"]

MCPTransport = Literal["sse", "streamable_http"]
LETTA_CLOUD_BASE_URL = "https://api.letta.com"
_FROM_ENV = (
    "agent_id", "model", "base_url", "custom_section", "persona", "turn_timeout_s", "project",
    "org_scoped", "embedding", "auto_relay", "delete_agents_on_cleanup",
    "consolidate_memory_on_cleanup", "teardown_timeout_s", "mode", "memory_blocks",
)  # fmt: skip


def is_letta_cloud_url(base_url: str) -> bool:
    """Whether ``base_url`` is Letta Cloud (by host name) rather than a self-hosted server."""
    url = base_url.strip()
    return urlsplit(url if "://" in url else f"//{url}").hostname == "api.letta.com"


class LettaMCPConfig(BaseModel):
    """How the Letta server reaches Band's tools.

    * ``self_host`` (default): the adapter serves them itself (``band.integrations.mcp``, one
      multi-room server whose tools take ``chat_id``) on ``bind_host``, and registers it in
      Letta at ``advertised_host`` (default: ``bind_host``; ``host.docker.internal`` for a
      Letta in a container). A non-loopback bind exposes the tools to that network.
    * ``external``: register a Band MCP server someone else runs, at ``server_url`` (what
      Letta Cloud needs: it cannot reach a laptop).

    ``server_name`` is the registration's name in Letta (``None``: ``band`` for external, a
    fresh ``band-<suffix>`` per self-hosted registration, since Letta never frees a deleted
    name); ``transport`` is how Letta connects.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Literal["self_host", "external"] = "self_host"
    server_url: str = "http://localhost:8002/sse"
    server_name: str | None = None
    bind_host: str = LOCAL_MCP_HOST
    advertised_host: str | None = None
    transport: MCPTransport = "sse"


class LettaAdapterConfig(BaseModel):
    """Settings of a ``LettaAdapter`` (frozen, unknown fields rejected).

    * ``base_url`` / ``provider_key`` / ``project``: the Letta server (Cloud by default; a
      self-hosted one needs no key);
    * ``mode``: ``per_room`` (a Letta agent per room) or ``shared`` (one agent, a Letta
      conversation per room); ``agent_id``: in shared mode, the agent to use;
    * ``model`` / ``embedding``: model handles for the agents created (``openai/gpt-5.4-mini``);
    * ``persona`` (replaces the rendered system prompt), ``custom_section``,
      ``include_base_instructions``, ``memory_blocks`` (extra blocks, ``{"label", "value"}``);
    * ``mcp``: how Letta reaches Band's tools (``LettaMCPConfig``);
    * ``auto_relay``: post the agent's plain text when it did not call the send tool;
    * ``turn_timeout_s``: a Letta round trip longer than this fails the turn (``timeout``);
    * cleanup: ``delete_agents_on_cleanup`` (per_room: delete a room's agent when the room
      goes; off, so a restart resumes it), ``consolidate_memory_on_cleanup`` (ask the agent to
      save what matters to memory first), ``teardown_timeout_s`` (bounds each of those calls);
    * ``org_scoped``: self-hosted only, give this adapter its own Letta organization and user
      so its MCP tools never collide with another adapter's on the same server (default: on
      for a self-hosted ``base_url``);
    * ``summary_max_length``: the length of the topic remembered for a rejoin note.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    agent_id: str | None = None
    model: str | None = None
    provider_key: str | None = Field(default=None, repr=False)
    base_url: str = LETTA_CLOUD_BASE_URL
    custom_section: str = ""
    include_base_instructions: bool = True
    persona: str | None = None
    turn_timeout_s: float = 300.0
    memory_blocks: tuple[dict[str, str], ...] = ()
    summary_max_length: int = 150
    project: str | None = None
    org_scoped: bool | None = None
    embedding: str | None = None
    mcp: LettaMCPConfig = Field(default_factory=LettaMCPConfig)
    mcp_server_url: str | None = None
    mcp_server_name: str | None = None
    auto_relay: bool = True
    delete_agents_on_cleanup: bool = False
    consolidate_memory_on_cleanup: bool = True
    teardown_timeout_s: float = 10.0
    mode: Literal["per_room", "shared"] = "per_room"

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        values = dict(data) if isinstance(data, dict) else {}
        for name in _FROM_ENV:
            raw = os.environ.get(f"LETTA_{name.upper()}")
            if name not in values and raw:
                values[name] = json.loads(raw) if name == "memory_blocks" else raw
        key = os.environ.get("LETTA_API_KEY") or os.environ.get("LETTA_PROVIDER_KEY")
        if values.get("provider_key") is None and key:
            values["provider_key"] = key
        # The older flat fields name an external server.
        if values.get("mcp_server_url") or values.get("mcp_server_name"):
            values["mcp"] = LettaMCPConfig(
                mode="external",
                server_url=values.pop("mcp_server_url", None) or LettaMCPConfig().server_url,
                server_name=values.pop("mcp_server_name", None),
            )
        return values

    @model_validator(mode="after")
    def _no_org_scope_on_cloud(self) -> LettaAdapterConfig:
        if self.org_scoped and is_letta_cloud_url(self.base_url):
            raise BandConfigError(
                f"org_scoped=True needs a self-hosted Letta server (base_url={self.base_url!r}): "
                "Letta Cloud has no admin API for organizations"
            )
        return self

    @property
    def scoped(self) -> bool:
        """Whether this adapter gets its own Letta organization (see ``org_scoped``)."""
        if self.org_scoped is not None:
            return self.org_scoped
        return not is_letta_cloud_url(self.base_url)
