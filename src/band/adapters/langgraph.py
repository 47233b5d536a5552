"""``LangGraphAdapter``: Band rooms on a LangGraph agent; LangGraph runs the tool loop.

Each room is a LangGraph thread (``thread_id`` = room id) whose state lives in the
checkpointer. The system prompt and the converted room history go into a thread only while
its checkpoint is empty, so a restarted agent with a fresh checkpointer picks the
conversation up from the room. Tool and usage events are read off ``astream_events``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Unpack

from pydantic import PositiveInt

from band._extras import needs_extra
from band.core.adapterconfig import BaseAdapterConfig
from band.core.protocols import AgentToolsProtocol, HistoryConverter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage, TurnUsage
from band.runtime.custom_tools import CustomToolDef
from band.runtime.prompts import system_updates

from ._prompt import PromptedAdapter
from ._tool_events import UsageTotal, as_text, report_tool_call, report_tool_result

with needs_extra("LangGraphAdapter needs LangGraph", "langgraph"):
    from langchain_core.messages import (
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
    from langchain_core.tools import BaseTool
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

from band.converters.langchain import LangChainHistoryConverter
from band.integrations.langgraph.decline import terminal_decline
from band.integrations.langgraph.langchain_tools import schemas_to_langchain

__all__ = ["GraphFactory", "LangGraphAdapter", "LangGraphAdapterConfig", "build_react_graph"]

logger = logging.getLogger("band.adapters.langgraph")


class LangGraphAdapterConfig(BaseAdapterConfig):
    """What ``LangGraphAdapter`` runs with.

    ``prompt_template`` names the system prompt's template (``band.runtime.TEMPLATES``) and
    ``custom_section`` is added to it; ``recursion_limit`` bounds the graph steps of one
    turn. ``inject_system_prompt`` puts the rendered prompt at the start of a new thread;
    None does so only for ``llm=`` (a graph of your own usually brings its own prompt).
    """

    prompt_template: str = "default"
    custom_section: str = ""
    recursion_limit: PositiveInt = 50
    inject_system_prompt: bool | None = None


GraphFactory = Callable[[list[BaseTool]], Any]
"""Builds a compiled graph over the room's tools; compile it with a checkpointer."""


def build_react_graph(llm: Any, tools: list[BaseTool], checkpointer: Any = None) -> Any:
    """A minimal ReAct graph: the model, then its tool calls, until it answers.

    A successful ``band_no_reply`` ends the run: the agent chose to stay silent.
    """
    model = llm.bind_tools(tools) if tools else llm

    async def call_model(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def after_tools(state: MessagesState) -> str:
        return str(END) if terminal_decline(state["messages"]) else "model"

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_conditional_edges("tools", after_tools)
    return builder.compile(checkpointer=checkpointer)


def _usage(message: Any) -> TurnUsage:
    meta = getattr(message, "usage_metadata", None) or {}
    details = meta.get("input_token_details") or {}
    return TurnUsage(
        input_tokens=int(meta.get("input_tokens") or 0),
        output_tokens=int(meta.get("output_tokens") or 0),
        cache_read_tokens=int(details.get("cache_read") or 0),
        cache_write_tokens=int(details.get("cache_creation") or 0),
    )


class _ToolEvents:
    """Turns one run's ``astream_events`` into tool_call / tool_result events and usage.

    Calls are reported when the model asks for them (with the model's call ids); each
    tool run is matched to its call by the ``ToolMessage`` it returns, else by name.
    """

    def __init__(self, adapter: LangGraphAdapter, tools: AgentToolsProtocol) -> None:
        self.adapter = adapter
        self.tools = tools
        self.usage = UsageTotal()
        self.pending: list[tuple[str, str]] = []
        self.runs: dict[str, str] = {}

    async def handle(self, event: dict[str, Any]) -> None:
        kind, data = event.get("event"), event.get("data") or {}
        if kind == "on_chat_model_end":
            await self._model_end(data.get("output"))
        elif kind == "on_tool_start":
            await self._tool_start(event, data)
        elif kind in ("on_tool_end", "on_tool_error"):
            await self._tool_end(event, data, failed=kind == "on_tool_error")

    async def _model_end(self, output: Any) -> None:
        self.usage.add(_usage(output))
        for call in getattr(output, "tool_calls", None) or []:
            call_id = str(call.get("id") or "")
            if not call_id:
                continue
            self.pending.append((call["name"], call_id))
            raw_args = call.get("args")
            args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
            await report_tool_call(self.tools, self.adapter.features, call["name"], args, call_id)

    async def _tool_start(self, event: dict[str, Any], data: dict[str, Any]) -> None:
        name, run_id = str(event.get("name") or ""), str(event.get("run_id") or "")
        for i, (pending_name, call_id) in enumerate(self.pending):
            if pending_name == name:
                del self.pending[i]
                self.runs[run_id] = call_id
                return
        # A tool the graph ran without a model call: its run id stands in for a call id.
        self.runs[run_id] = run_id
        raw_args = data.get("input")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        await report_tool_call(self.tools, self.adapter.features, name, args, run_id)

    async def _tool_end(self, event: dict[str, Any], data: dict[str, Any], *, failed: bool) -> None:
        name, run_id = str(event.get("name") or ""), str(event.get("run_id") or "")
        call_id = self.runs.pop(run_id, run_id)
        if failed:
            call_id = str(data.get("tool_call_id") or call_id)
            output, is_error = f"Error: {data.get('error')}", True
        else:
            result = data.get("output")
            if isinstance(result, ToolMessage):
                call_id = result.tool_call_id or call_id
                output, is_error = _content_text(result.content), result.status == "error"
            else:
                output, is_error = _content_text(result), False
        await report_tool_result(
            self.tools, self.adapter.features, name, output, call_id, is_error=is_error
        )


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
        return "".join(p if isinstance(p, str) else as_text(p) for p in parts)
    return as_text(content)


class LangGraphAdapter(PromptedAdapter[list[BaseMessage]]):
    """Runs a LangGraph agent per Band message, one LangGraph thread per room.

    ``config`` is a ``LangGraphAdapterConfig``. Give exactly one of:

    * ``llm``: a LangChain chat model; the adapter builds :func:`build_react_graph` over
      the room's tools each message (threads kept in ``checkpointer``, in memory by default).
    * ``graph_factory(tools)``: your own compiled graph over the room's LangChain tools.
    * ``graph``: a static compiled graph with its own tools; its turns are not judged,
      since it cannot reach the room's reply tools.

    ``additional_tools`` are custom tools ``(InputModel, handler)`` or ready LangChain tools.
    The model's plain final text is not relayed: replies reach the room only through
    ``band_send_message``.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.CONTACTS, Capability.MEMORY}
    )

    def __init__(
        self,
        config: LangGraphAdapterConfig | None = None,
        *,
        history_converter: HistoryConverter[list[BaseMessage]] | None = None,
        additional_tools: Sequence[CustomToolDef | BaseTool] | None = None,
        llm: Any = None,
        checkpointer: Any = None,
        graph_factory: GraphFactory | None = None,
        graph: Any = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        if sum(x is not None for x in (llm, graph_factory, graph)) != 1:
            raise ValueError("Set exactly one of llm, graph_factory or graph")
        self.config = config = config or LangGraphAdapterConfig()
        super().__init__(
            custom_section=config.custom_section,
            prompt_template=config.prompt_template,
            history_converter=history_converter or LangChainHistoryConverter(),
            **features,
        )
        self.llm = llm
        self.graph_factory = graph_factory
        self.graph = graph
        self.checkpointer = checkpointer if checkpointer is not None else InMemorySaver()
        self.recursion_limit = config.recursion_limit
        inject = config.inject_system_prompt
        self.inject_system_prompt = llm is not None if inject is None else inject
        tools = list(additional_tools or ())
        self.additional_tools = [t for t in tools if isinstance(t, tuple)]
        self.langchain_tools = [t for t in tools if not isinstance(t, tuple)]
        self._seeded: set[str] = set()

    @property
    def judges_turns(self) -> bool:
        return self.graph is None

    async def on_cleanup(self, room_id: str) -> None:
        # The checkpointer keeps the thread; only this process forgets it was seeded.
        self._seeded.discard(room_id)

    def _graph_for(self, tools: AgentToolsProtocol) -> Any:
        if self.graph is not None:
            return self.graph
        schemas = tools.get_openai_tool_schemas(capabilities=self.features.capabilities)
        lc_tools: list[BaseTool] = [
            *schemas_to_langchain(tools, schemas, self.additional_tools),
            *self.langchain_tools,
        ]
        if self.graph_factory is not None:
            return self.graph_factory(lc_tools)
        return build_react_graph(self.llm, lc_tools, self.checkpointer)

    async def _thread_is_empty(self, graph: Any, config: dict[str, Any]) -> bool:
        try:
            snapshot = await graph.aget_state(config)
        except ValueError:  # a graph compiled without a checkpointer keeps no thread
            return True
        return not (snapshot.values or {}).get("messages")

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[BaseMessage],
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        graph = self._graph_for(tools)
        config: dict[str, Any] = {
            "configurable": {"thread_id": room_id},
            "recursion_limit": self.recursion_limit,
        }
        messages: list[BaseMessage] = []
        if room_id not in self._seeded:
            if await self._thread_is_empty(graph, config):
                if self.system_prompt and self.inject_system_prompt:
                    messages.append(SystemMessage(content=self.system_prompt))
                messages.extend(history)
            self._seeded.add(room_id)
        # Many providers reject a second system message, so updates are user lines.
        messages.extend(
            HumanMessage(content=line) for line in system_updates(participants_msg, contacts_msg)
        )
        messages.append(HumanMessage(content=msg.format_for_llm()))
        events = _ToolEvents(self, tools)
        try:
            async for event in graph.astream_events(
                {"messages": messages}, config=config, version="v2"
            ):
                await events.handle(event)
        finally:
            await self.emit_usage(tools, events.usage.total())
