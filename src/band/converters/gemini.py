"""``GeminiHistoryConverter``: room history as google-genai ``Content`` turns.

Gemini wants user and model turns to alternate, so neighbouring turns of one role are merged
into one ``Content`` (a tool exchange's results and the next person's line share a user turn).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from band._extras import needs_extra

with needs_extra("GeminiHistoryConverter needs google-genai", "gemini"):
    from google.genai import types

from .tool_history import FoldedHistoryConverter, Said, ToolExchange

__all__ = ["GeminiHistoryConverter", "GeminiMessages", "append_turn", "function_response"]

GeminiMessages = list[types.Content]


def function_response(output: str, is_error: bool) -> dict[str, Any]:
    """The ``response`` of a function response part: ``{"error": ...}`` or ``{"output": ...}``."""
    return {"error": output} if is_error else {"output": output}


def append_turn(contents: GeminiMessages, role: str, parts: Iterable[types.Part]) -> None:
    """Append ``parts`` as a ``role`` turn, into the last turn when it has the same role."""
    new = list(parts)
    if contents and contents[-1].role == role:
        last = contents[-1]
        contents[-1] = types.Content(role=role, parts=[*(last.parts or []), *new])
    else:
        contents.append(types.Content(role=role, parts=new))


class GeminiHistoryConverter(FoldedHistoryConverter[types.Content]):
    """Own replies become ``model`` turns, everyone else's ``user`` turns as ``[name]: text``;
    a tool exchange becomes a ``model`` turn of ``function_call`` parts and a ``user`` turn of
    ``function_response`` parts (a call left unanswered gets the interrupted error).
    """

    def convert(self, raw: list[dict[str, Any]]) -> GeminiMessages:
        contents: GeminiMessages = []
        for content in super().convert(raw):
            append_turn(contents, content.role or "user", content.parts or [])
        return contents

    def said(self, line: Said) -> GeminiMessages:
        role = "model" if line.role == "assistant" else "user"
        return [types.Content(role=role, parts=[types.Part.from_text(text=line.text)])]

    def exchange(self, tools: ToolExchange) -> GeminiMessages:
        pairs = tools.paired()
        calls = [
            types.Part(
                function_call=types.FunctionCall(
                    id=call.tool_call_id, name=call.name, args=call.args
                )
            )
            for call, _ in pairs
        ]
        results = [
            types.Part(
                function_response=types.FunctionResponse(
                    id=call.tool_call_id,
                    name=call.name,
                    response=function_response(result.output, result.is_error),
                )
            )
            for call, result in pairs
        ]
        return [types.Content(role="model", parts=calls), types.Content(role="user", parts=results)]
