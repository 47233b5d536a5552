"""The Claude CLI's subprocess transport, built the way the SDK builds its own.

``ClaudeSDKClient`` starts the CLI through a transport; handing it one made here lets the
caller hold the transport too, so the process is closed (and its pid read) even when a
start fails before the client is fully connected. Permission requests go over stdio
whenever ``can_use_tool`` is set, as the SDK's default transport does. Needs the extra
``claude_sdk`` (``pip install 'openband[claude_sdk]'``).
"""

from __future__ import annotations

from typing import Any

try:
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport
    from claude_agent_sdk.types import _configure_can_use_tool
except ImportError as exc:  # the framework is an optional extra
    raise ImportError(
        "band.integrations.claude_sdk.transport needs the Claude Agent SDK: "
        "pip install 'openband[claude_sdk]'"
    ) from exc

__all__ = ["create_transport"]


def create_transport(options: Any) -> Any:
    """A subprocess transport for ``options`` (a ``ClaudeAgentOptions``), streaming, with
    permission prompts routed over stdio when ``can_use_tool`` is set."""
    return SubprocessCLITransport(prompt="", options=_configure_can_use_tool(options))
