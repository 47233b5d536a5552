"""LangGraph / LangChain glue: Band room tools as LangChain tools, a graph as a tool, and
formatters from a room message to a graph's input. The adapter is
``band.adapters.LangGraphAdapter``."""

from .graph_tools import graph_as_tool
from .langchain_tools import agent_tools_to_langchain
from .message_formatters import MessageFormatter, default_messages_state_formatter

__all__ = [
    "MessageFormatter",
    "agent_tools_to_langchain",
    "default_messages_state_formatter",
    "graph_as_tool",
]
