"""Google ADK's side of ``GoogleADKAdapter``: the classes that subclass ADK's own.

Imported when an adapter is built, so that ``band.adapters.google_adk`` imports without
google-adk (as band-sdk's does) and the missing extra is named on first use.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import httpx

from band._extras import needs_extra

with needs_extra("GoogleADKAdapter needs google-adk", "google_adk"):
    from google import genai
    from google.adk import Agent as ADKAgent
    from google.adk.models.google_llm import Gemini
    from google.adk.runners import InMemoryRunner
    from google.adk.tools import BaseTool
    from google.genai import types

from ._tool_events import run_band_tool

__all__ = ["ADKAgent", "BandADKTool", "BoundedGemini", "InMemoryRunner", "types"]


class BoundedGemini(Gemini):  # type: ignore[misc]
    """ADK's Gemini model on an httpx client, so retries stay within ``retry_options`` (the
    aiohttp transport reconnects on its own), and with a way to close its clients.

    ``sharing(owner)`` makes a model that uses ``owner``'s clients: building a client costs
    three TLS contexts (~20 ms of CPU), so the adapter builds them once, not every turn.
    """

    def sharing(self, owner: BoundedGemini) -> BoundedGemini:
        self.__dict__["api_client"] = owner.api_client  # the cached_property's slot
        return self

    @cached_property
    def httpx_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient()

    @cached_property
    def api_client(self) -> genai.Client:
        headers = self._tracking_headers
        if callable(headers):  # a method from google-adk 1.20 on, a property before
            headers = headers()
        options = types.HttpOptions(
            headers=headers, retry_options=self.retry_options, httpx_async_client=self.httpx_client
        )
        return genai.Client(http_options=options)

    async def aclose(self) -> None:
        client = self.__dict__.get("api_client")
        http = self.__dict__.get("httpx_client")
        try:
            if client is not None:
                await client.aio.aclose()
        finally:
            try:
                if http is not None:
                    await http.aclose()
            finally:
                if client is not None:
                    client.close()


class BandADKTool(BaseTool):  # type: ignore[misc]
    """One Band (or custom) tool offered to the ADK agent; runs through Band's tools."""

    def __init__(self, name: str, description: str, parameters: dict[str, Any], turn: Any):
        super().__init__(name=name, description=description)
        self._turn = turn
        # Schema.from_json_schema inlines $ref/$defs, which Gemini's schema subset lacks.
        self._declaration = types.FunctionDeclaration(
            name=name,
            description=description,
            parameters=types.Schema.from_json_schema(json_schema=types.JSONSchema(**parameters)),
        )

    def _get_declaration(self) -> types.FunctionDeclaration:
        return self._declaration

    get_declaration = _get_declaration  # the public name, should ADK rename it

    async def run_async(self, *, args: dict[str, Any], tool_context: Any) -> str:
        output, is_error = await run_band_tool(self._turn.tools, self.name, args, self._turn.custom)
        if is_error and getattr(tool_context, "function_call_id", None):
            self._turn.failed.add(tool_context.function_call_id)
        return output
