"""Framework adapters shipped with the SDK, imported lazily (PEP 562).

``from band.adapters import ParlantAdapter`` loads only the Parlant adapter module, so
importing ``band.adapters`` never pulls in a framework a deployment does not use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

if TYPE_CHECKING:
    from .a2a import A2AAdapter, A2AAdapterConfig
    from .a2a_gateway import A2AGatewayAdapter, A2AGatewayAdapterConfig
    from .acp import ACPClientAdapter, ACPClientAdapterConfig
    from .agno import AgnoAdapter, AgnoAdapterConfig
    from .anthropic import AnthropicAdapter, AnthropicAdapterConfig
    from .claude_sdk import (
        ClaudeApprovalOptions,
        ClaudeCLIOptions,
        ClaudeSDKAdapter,
        ClaudeSDKAdapterConfig,
    )
    from .codex import CodexAdapter, CodexAdapterConfig
    from .copilot_acp import CopilotACPAdapter, CopilotACPAdapterConfig
    from .copilot_sdk import CopilotSDKAdapter, CopilotSDKAdapterConfig
    from .crewai import CrewAIAdapter, CrewAIAdapterConfig
    from .crewai_flow import CrewAIFlowAdapter, CrewAIFlowAdapterConfig
    from .cursor_acp import CursorACPAdapter, CursorACPAdapterConfig
    from .gemini import GeminiAdapter, GeminiAdapterConfig
    from .google_adk import GoogleADKAdapter, GoogleADKAdapterConfig
    from .langgraph import LangGraphAdapter, LangGraphAdapterConfig
    from .letta import LettaAdapter, LettaAdapterConfig
    from .omp_acp import OmpACPAdapter, OmpACPAdapterConfig
    from .openai_chat import OpenAIChatAdapter
    from .opencode import OpencodeAdapter, OpencodeAdapterConfig
    from .parlant import ParlantAdapter, ParlantAdapterConfig
    from .pydantic_ai import PydanticAIAdapter, PydanticAIAdapterConfig
    from .slack import SlackAdapter, SlackAdapterConfig
    from .strands import StrandsAdapter, StrandsAdapterConfig

__all__ = [
    "A2AAdapter",
    "A2AAdapterConfig",
    "A2AGatewayAdapter",
    "A2AGatewayAdapterConfig",
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "AgnoAdapter",
    "AgnoAdapterConfig",
    "AnthropicAdapter",
    "AnthropicAdapterConfig",
    "ClaudeApprovalOptions",
    "ClaudeCLIOptions",
    "ClaudeSDKAdapter",
    "ClaudeSDKAdapterConfig",
    "CodexAdapter",
    "CodexAdapterConfig",
    "CopilotACPAdapter",
    "CopilotACPAdapterConfig",
    "CopilotSDKAdapter",
    "CopilotSDKAdapterConfig",
    "CrewAIAdapter",
    "CrewAIAdapterConfig",
    "CrewAIFlowAdapter",
    "CrewAIFlowAdapterConfig",
    "CursorACPAdapter",
    "CursorACPAdapterConfig",
    "GeminiAdapter",
    "GeminiAdapterConfig",
    "GoogleADKAdapter",
    "GoogleADKAdapterConfig",
    "LangGraphAdapter",
    "LangGraphAdapterConfig",
    "LettaAdapter",
    "LettaAdapterConfig",
    "NooaAdapter",
    "NooaAdapterConfig",
    "NooaRoomAgent",
    "OmpACPAdapter",
    "OmpACPAdapterConfig",
    "OpenAIChatAdapter",
    "OpencodeAdapter",
    "OpencodeAdapterConfig",
    "ParlantAdapter",
    "ParlantAdapterConfig",
    "PydanticAIAdapter",
    "PydanticAIAdapterConfig",
    "SlackAdapter",
    "SlackAdapterConfig",
    "StrandsAdapter",
    "StrandsAdapterConfig",
]

_EXPORTS: dict[str, str] = {
    "A2AAdapter": "band.adapters.a2a",
    "A2AAdapterConfig": "band.adapters.a2a",
    "A2AGatewayAdapter": "band.adapters.a2a_gateway",
    "A2AGatewayAdapterConfig": "band.adapters.a2a_gateway",
    "ACPClientAdapter": "band.adapters.acp",
    "ACPClientAdapterConfig": "band.adapters.acp",
    "AgnoAdapter": "band.adapters.agno",
    "AgnoAdapterConfig": "band.adapters.agno",
    "AnthropicAdapter": "band.adapters.anthropic",
    "AnthropicAdapterConfig": "band.adapters.anthropic",
    "ClaudeApprovalOptions": "band.adapters.claude_sdk",
    "ClaudeCLIOptions": "band.adapters.claude_sdk",
    "ClaudeSDKAdapter": "band.adapters.claude_sdk",
    "ClaudeSDKAdapterConfig": "band.adapters.claude_sdk",
    "CodexAdapter": "band.adapters.codex",
    "CodexAdapterConfig": "band.adapters.codex",
    "CopilotACPAdapter": "band.adapters.copilot_acp",
    "CopilotACPAdapterConfig": "band.adapters.copilot_acp",
    "CopilotSDKAdapter": "band.adapters.copilot_sdk",
    "CopilotSDKAdapterConfig": "band.adapters.copilot_sdk",
    "CrewAIAdapter": "band.adapters.crewai",
    "CrewAIAdapterConfig": "band.adapters.crewai",
    "CrewAIFlowAdapter": "band.adapters.crewai_flow",
    "CrewAIFlowAdapterConfig": "band.adapters.crewai_flow",
    "CursorACPAdapter": "band.adapters.cursor_acp",
    "CursorACPAdapterConfig": "band.adapters.cursor_acp",
    "GeminiAdapter": "band.adapters.gemini",
    "GeminiAdapterConfig": "band.adapters.gemini",
    "GoogleADKAdapter": "band.adapters.google_adk",
    "GoogleADKAdapterConfig": "band.adapters.google_adk",
    "LangGraphAdapter": "band.adapters.langgraph",
    "LangGraphAdapterConfig": "band.adapters.langgraph",
    "LettaAdapter": "band.adapters.letta",
    "LettaAdapterConfig": "band.adapters.letta",
    "NooaAdapter": "band.adapters.nooa",
    "NooaAdapterConfig": "band.adapters.nooa",
    "NooaRoomAgent": "band.adapters.nooa",
    "OmpACPAdapter": "band.adapters.omp_acp",
    "OmpACPAdapterConfig": "band.adapters.omp_acp",
    "OpenAIChatAdapter": "band.adapters.openai_chat",
    "OpencodeAdapter": "band.adapters.opencode",
    "OpencodeAdapterConfig": "band.adapters.opencode",
    "ParlantAdapter": "band.adapters.parlant",
    "ParlantAdapterConfig": "band.adapters.parlant",
    "PydanticAIAdapter": "band.adapters.pydantic_ai",
    "PydanticAIAdapterConfig": "band.adapters.pydantic_ai",
    "StrandsAdapter": "band.adapters.strands",
    "StrandsAdapterConfig": "band.adapters.strands",
    "SlackAdapter": "band.adapters.slack",
    "SlackAdapterConfig": "band.adapters.slack",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
