"""A small but real ACP agent for tests, written on the ``agent-client-protocol`` SDK.

Run as ``python scripted_agent.py`` with ``BAND_FAKE_MODEL_URL`` pointing at an OpenAI Chat
Completions endpoint (the fake from ``band.testing``). It is a coding agent in miniature:
each prompt runs a tool loop over the model, with the MCP tools the client offered (Band's
``band`` server) plus a local ``run_command`` that asks the client for permission first.
Every step is reported as ACP session updates; sessions are saved in the working folder,
so ``session/load`` works in a new process (an unknown id gets error -32002). Sessions offer
a ``model`` and a ``thought_level`` select (``session/set_config_option``), sent with each
model request. The model is called with plain httpx (no ``openai`` import: a cheaper start).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import acp
import httpx
from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    start_tool_call,
    update_agent_message_text,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    PermissionOption,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SetSessionConfigOptionResponse,
    Usage,
)
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

RUN_COMMAND = {
    "type": "function",
    "function": {
        "name": "run_command",
        "description": "Run a shell command in the working folder (asks for permission).",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}
MODELS = ("fake-model", "fake-model-large")
EFFORTS = ("low", "medium", "high")
PERMISSIONS = [
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]


def config_options(session: dict[str, Any]) -> list[SessionConfigOptionSelect]:
    def select(ident: str, category: str, values: tuple[str, ...]) -> SessionConfigOptionSelect:
        options = [SessionConfigSelectOption(value=v, name=v) for v in values]
        return SessionConfigOptionSelect(
            id=ident,
            name=ident,
            category=category,
            current_value=session[ident],
            options=options,
            type="select",
        )

    return [select("model", "model", MODELS), select("effort", "thought_level", EFFORTS)]


class ScriptedAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.http = httpx.AsyncClient(base_url=os.environ["BAND_FAKE_MODEL_URL"], timeout=60)
        self.sessions: dict[str, dict[str, Any]] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(load_session=True),
        )

    def _path(self, cwd: str, session_id: str) -> Path:
        return Path(cwd) / ".scripted-agent" / f"{session_id}.json"

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        session_id = uuid.uuid4().hex
        session = {"cwd": cwd, "messages": [], "mcp": _urls(mcp_servers)}
        self.sessions[session_id] = {**session, "model": MODELS[0], "effort": "medium"}
        return NewSessionResponse(
            session_id=session_id, config_options=config_options(self.sessions[session_id])
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        path = self._path(cwd, session_id)
        if not path.exists():
            raise RequestError(-32002, f"unknown session {session_id}")
        saved = json.loads(path.read_text())
        session = {"cwd": cwd, "messages": saved, "mcp": _urls(mcp_servers)}
        self.sessions[session_id] = {**session, "model": MODELS[0], "effort": "medium"}
        return LoadSessionResponse(config_options=config_options(self.sessions[session_id]))

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self.sessions[session_id]
        allowed = {"model": MODELS, "effort": EFFORTS}.get(config_id, ())
        if value not in allowed:
            raise RequestError.invalid_params({"configId": config_id, "value": value})
        session[config_id] = value
        return SetSessionConfigOptionResponse(config_options=config_options(session))

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        session = self.sessions[session_id]
        for block in prompt:
            session["messages"].append({"role": "user", "content": block.text})
        async with AsyncExitStack() as stack:
            mcp = None
            if session["mcp"]:
                read, write, _ = await stack.enter_async_context(
                    streamablehttp_client(session["mcp"][0])
                )
                mcp = await stack.enter_async_context(ClientSession(read, write))
                await mcp.initialize()
            usage = await self._loop(session_id, session, mcp)
        path = self._path(session["cwd"], session_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(session["messages"]))
        return PromptResponse(stop_reason="end_turn", usage=usage)

    async def _loop(self, session_id: str, session: dict[str, Any], mcp: Any) -> Usage:
        tools = [RUN_COMMAND]
        if mcp is not None:
            for tool in (await mcp.list_tools()).tools:
                function = {
                    "name": tool.name,
                    "description": tool.description or "",
                    "parameters": tool.inputSchema,
                }
                tools.append({"type": "function", "function": function})
        counts = [0, 0]
        for _ in range(8):
            body = {
                "model": session["model"],
                "reasoning_effort": session["effort"],
                "messages": session["messages"],
                "tools": tools,
            }
            reply = await self.http.post("/chat/completions", json=body)
            reply.raise_for_status()
            answer = reply.json()
            usage = answer.get("usage") or {}
            counts[0] += int(usage.get("prompt_tokens") or 0)
            counts[1] += int(usage.get("completion_tokens") or 0)
            message = answer["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            session["messages"].append({k: v for k, v in message.items() if v is not None})
            if message.get("content"):
                await self.conn.session_update(
                    session_id, update_agent_message_text(message["content"])
                )
            if not calls:
                break
            for call in calls:
                output = await self._run(session_id, session, mcp, call)
                session["messages"].append(
                    {"role": "tool", "tool_call_id": call["id"], "content": output}
                )
        return Usage(input_tokens=counts[0], output_tokens=counts[1], total_tokens=sum(counts))

    async def _run(
        self, session_id: str, session: dict[str, Any], mcp: Any, call: dict[str, Any]
    ) -> str:
        call_id = call["id"]
        name = call["function"]["name"]
        args = json.loads(call["function"].get("arguments") or "{}")
        kind = "execute" if name == "run_command" else "other"
        await self.conn.session_update(
            session_id,
            start_tool_call(call_id, name, kind=kind, status="in_progress", raw_input=args),
        )
        if name == "run_command":
            output, failed = await self._command(session_id, session, call_id, args)
        else:
            result = await mcp.call_tool(name, args)
            output = "".join(getattr(c, "text", "") for c in result.content)
            failed = bool(result.isError)
        await self.conn.session_update(
            session_id,
            update_tool_call(
                call_id, status="failed" if failed else "completed", raw_output=output
            ),
        )
        return output

    async def _command(
        self, session_id: str, session: dict[str, Any], call_id: str, args: dict[str, Any]
    ) -> tuple[str, bool]:
        tool_call = update_tool_call(call_id, title=f"run_command: {args.get('command')}")
        answer = await self.conn.request_permission(
            session_id=session_id, tool_call=tool_call, options=PERMISSIONS
        )
        outcome = answer.outcome
        if getattr(outcome, "option_id", None) not in ("allow", "always"):
            return "The user declined: the command did not run.", True
        done = subprocess.run(
            args["command"], shell=True, cwd=session["cwd"], capture_output=True, text=True
        )
        return (done.stdout + done.stderr) or f"exit code {done.returncode}", done.returncode != 0

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


def _urls(servers: list[Any] | None) -> list[str]:
    return [s.url for s in servers or [] if getattr(s, "url", None)]


if __name__ == "__main__":
    asyncio.run(acp.run_agent(ScriptedAgent()))
