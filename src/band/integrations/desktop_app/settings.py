"""The room view's configuration: tuning knobs and the connection it acts as.

The agent key comes from ``BAND_AGENT_KEY``, else it is borrowed from the Claude Desktop
config's ``band-mcp`` entry (so the key lives in one place); with several such entries,
``BAND_DESKTOP_MCP_SERVER`` says which one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = [
    "BAND_MCP_COMMAND",
    "MAX_ROOM_EVENT_TIMEOUT_S",
    "DesktopRoomViewSettings",
    "RoomViewTuning",
    "runs_band_mcp",
    "websocket_url",
]

# The longest monitor wait: the worst delay before a user typing mid-wait is heard.
MAX_ROOM_EVENT_TIMEOUT_S = 15
BAND_MCP_COMMAND = "band-mcp"


def runs_band_mcp(server: dict[str, Any]) -> bool:
    """Whether a Desktop ``mcpServers`` entry runs band-mcp (itself, or through a runner)."""
    words = [server.get("command"), *(server.get("args") or [])]
    return any(word and Path(str(word)).name == BAND_MCP_COMMAND for word in words)


class RoomViewTuning(BaseSettings):
    """Knobs read once at start (the tool schemas carry them as defaults and bounds)."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, env_ignore_empty=True)

    band_room_event_timeout_s: int = Field(
        5,
        ge=1,
        le=MAX_ROOM_EVENT_TIMEOUT_S,
        description="How long one monitor call waits for the room to change.",
    )
    band_transcript_page_size: int = Field(100, ge=1)
    band_initial_transcript_messages: int = Field(25, ge=1)
    band_max_message_chars: int = Field(2_000, ge=1)
    band_max_transcript_pages: int = Field(20, ge=1)
    band_named_rooms_limit: int = Field(20, ge=1)
    band_room_stale_grace_s: float = Field(30, ge=0)


def websocket_url(rest_url: str) -> str:
    """The platform's WebSocket endpoint for its REST origin (http->ws, https->wss)."""
    parts = urlsplit(rest_url)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise ValueError(f"Unsupported BAND_BASE_URL: {rest_url}")
    return urlunsplit((scheme, parts.netloc, "/api/v1/socket/websocket", "", ""))


def _desktop_config() -> Path:
    return Path.home() / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"


class DesktopRoomViewSettings(BaseSettings):
    """Who the room view connects as, and where."""

    model_config = SettingsConfigDict(
        extra="ignore", case_sensitive=False, env_ignore_empty=True, populate_by_name=True
    )

    band_agent_key: SecretStr = SecretStr("")
    band_base_url: str = Field(
        "https://app.band.ai", validation_alias=AliasChoices("BAND_BASE_URL", "BAND_REST_URL")
    )
    band_ws_url: str = Field("", validation_alias="BAND_WS_URL")
    band_desktop_mcp_server: str = Field(
        "",
        description="The Desktop mcpServers entry to act as, when several run band-mcp.",
    )
    band_desktop_config: Path = Field(default_factory=_desktop_config)

    def agent_servers(self) -> dict[str, dict[str, str]]:
        """``name -> env`` of each Desktop entry running band-mcp with a ``BAND_AGENT_KEY``."""
        try:
            config = json.loads(self.band_desktop_config.expanduser().read_text())
        except (OSError, json.JSONDecodeError):
            return {}
        servers = config.get("mcpServers") or {}
        return {
            name: server["env"]
            for name, server in servers.items()
            if runs_band_mcp(server) and (server.get("env") or {}).get("BAND_AGENT_KEY")
        }

    def resolve_connection(self) -> tuple[str, str, str]:
        """``(agent_key, rest_url, ws_url)``: the explicit key, else the one band-mcp has."""
        if key := self.band_agent_key.get_secret_value():
            return self._connection(key, self.band_base_url, self.band_ws_url)
        servers, chosen = self.agent_servers(), self.band_desktop_mcp_server
        if not servers:
            raise ValueError(
                "BAND_AGENT_KEY is required for the Desktop room view: no MCP server in "
                f"{self.band_desktop_config} runs band-mcp with a BAND_AGENT_KEY. Configure "
                "band-mcp for an agent in Claude Desktop, set BAND_AGENT_KEY here, or point "
                "BAND_DESKTOP_CONFIG at the right file."
            )
        names = ", ".join(sorted(servers))
        if chosen and chosen not in servers:
            raise ValueError(
                f"Claude Desktop has no agent band-mcp server named '{chosen}'. It has: {names}."
            )
        if not chosen and len(servers) > 1:
            raise ValueError(
                f"Claude Desktop runs band-mcp as several Band agents ({names}); set "
                "BAND_DESKTOP_MCP_SERVER to the one this room view acts as."
            )
        env = servers[chosen or next(iter(servers))]
        rest = env.get("BAND_BASE_URL") or env.get("BAND_REST_URL") or self.band_base_url
        return self._connection(
            str(env["BAND_AGENT_KEY"]), str(rest), str(env.get("BAND_WS_URL") or self.band_ws_url)
        )

    def _connection(self, key: str, rest_url: str, ws_url: str) -> tuple[str, str, str]:
        return key, rest_url, ws_url or websocket_url(rest_url)
