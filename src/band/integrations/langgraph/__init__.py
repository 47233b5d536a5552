"""LangGraph / LangChain glue: Band room tools as LangChain ``StructuredTool`` objects."""

from .langchain_tools import agent_tools_to_langchain

__all__ = ["agent_tools_to_langchain"]
