"""A compiled LangGraph graph offered to another agent as one tool.

``graph_as_tool(graph, name, description, input_schema)`` lets a room's agent hand a task to a
specialised graph: the model fills in ``input_schema``'s fields (they must be fields of the
graph's state), the graph runs, and ``result_formatter(final_state)`` is what the model reads
(the whole state as text without one). With ``isolate_thread`` (the default) every call runs
on a fresh thread of the subgraph; without it the subgraph shares the room's thread, so it
remembers earlier calls in that room.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field, create_model

from band._extras import needs_extra

with needs_extra("band.integrations.langgraph needs LangGraph", "langgraph"):
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool

__all__ = ["graph_as_tool"]

logger = logging.getLogger(__name__)


def graph_as_tool(
    graph: Any,
    name: str,
    description: str,
    input_schema: dict[str, Any],
    result_formatter: Callable[[dict[str, Any]], Any] | None = None,
    isolate_thread: bool = True,
) -> BaseTool:
    """``graph`` as a LangChain tool; ``input_schema`` maps each input field to its
    description. Errors inside the graph propagate to the calling agent."""
    for value, what in ((name, "name"), (description, "description"), (input_schema, "schema")):
        if not value:
            raise ValueError(f"graph_as_tool needs a {what}")
    fields: dict[str, Any] = {
        key: (Any, Field(description=str(text))) for key, text in input_schema.items()
    }
    arguments = create_model(f"{name.title().replace('_', '')}Input", **fields)
    listed = "\n".join(f"  - {key}: {text}" for key, text in input_schema.items())

    async def run(config: Annotated[RunnableConfig, InjectedToolArg], **inputs: Any) -> str:
        configurable = dict(config.get("configurable") or {})
        room_thread = configurable.get("thread_id")
        thread = room_thread
        if isolate_thread:
            thread = f"subgraph:{name}:{room_thread}:{uuid.uuid4().hex[:8]}"
        logger.debug("Tool %s: running the graph on thread %s", name, thread)
        sub_config: Any = {**config, "configurable": {**configurable, "thread_id": thread}}
        state = await graph.ainvoke(inputs, sub_config)
        if result_formatter is None:
            return str(state)
        shown = result_formatter(state)
        if isinstance(shown, (dict, list)):
            return json.dumps(shown, indent=2, default=str)
        return str(shown)

    return StructuredTool.from_function(
        coroutine=run,
        name=name,
        description=f"{description}\n\nParameters:\n{listed}",
        args_schema=arguments,
    )
