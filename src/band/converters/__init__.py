"""History converters and tool-event parsers.

Names resolve lazily on first use (PEP 562), so importing ``band.converters`` never needs an
optional extra; each entry of ``_EXPORTS`` maps a public name to the module defining it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "CopilotSDKHistoryConverter": "band.converters.copilot_sdk",
    "ClaudeSDKHistoryConverter": "band.converters.claude_sdk",
    "OpencodeHistoryConverter": "band.converters.opencode",
    "ACPClientHistoryConverter": "band.converters.acp_client",
    "AgnoHistoryConverter": "band.converters.agno",
    "CrewAIHistoryConverter": "band.converters.crewai",
    "CrewAIFlowStateConverter": "band.converters.crewai_flow",
    "StrandsHistoryConverter": "band.converters.strands",
    "AnthropicHistoryConverter": "band.converters.anthropic",
    "GeminiHistoryConverter": "band.converters.gemini",
    "GoogleADKHistoryConverter": "band.converters.google_adk",
    "LangChainHistoryConverter": "band.converters.langchain",
    "OpenAIChatHistoryConverter": "band.converters.openai_chat",
    "PydanticAIHistoryConverter": "band.converters.pydantic_ai",
    "INTERRUPTED_TOOL_TEXT": "band.converters.parsing",
    "ParsedToolCall": "band.converters.parsing",
    "ParsedToolResult": "band.converters.parsing",
    "parse_tool_call": "band.converters.parsing",
    "parse_tool_result": "band.converters.parsing",
}

__all__ = [
    "INTERRUPTED_TOOL_TEXT",
    "ACPClientHistoryConverter",
    "AgnoHistoryConverter",
    "AnthropicHistoryConverter",
    "ClaudeSDKHistoryConverter",
    "CopilotSDKHistoryConverter",
    "CrewAIFlowStateConverter",
    "CrewAIHistoryConverter",
    "GeminiHistoryConverter",
    "GoogleADKHistoryConverter",
    "LangChainHistoryConverter",
    "OpenAIChatHistoryConverter",
    "OpencodeHistoryConverter",
    "ParsedToolCall",
    "ParsedToolResult",
    "PydanticAIHistoryConverter",
    "StrandsHistoryConverter",
    "parse_tool_call",
    "parse_tool_result",
]

if TYPE_CHECKING:
    from band.converters.acp_client import ACPClientHistoryConverter
    from band.converters.agno import AgnoHistoryConverter
    from band.converters.anthropic import AnthropicHistoryConverter
    from band.converters.claude_sdk import ClaudeSDKHistoryConverter
    from band.converters.copilot_sdk import CopilotSDKHistoryConverter
    from band.converters.crewai import CrewAIHistoryConverter
    from band.converters.crewai_flow import CrewAIFlowStateConverter
    from band.converters.gemini import GeminiHistoryConverter
    from band.converters.google_adk import GoogleADKHistoryConverter
    from band.converters.langchain import LangChainHistoryConverter
    from band.converters.openai_chat import OpenAIChatHistoryConverter
    from band.converters.opencode import OpencodeHistoryConverter
    from band.converters.parsing import (
        INTERRUPTED_TOOL_TEXT,
        ParsedToolCall,
        ParsedToolResult,
        parse_tool_call,
        parse_tool_result,
    )
    from band.converters.pydantic_ai import PydanticAIHistoryConverter
    from band.converters.strands import StrandsHistoryConverter

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
