"""The adapters the conformance suite runs, each behind a factory.

To join the suite, an adapter appends an :class:`AdapterCase` to ``CASES``: a factory that
builds it against a :class:`FakeModel` (the scripted model every case answers from) with
the feature keywords under test. Behaviours an adapter cannot show go in ``skips`` with the
reason, e.g. an engine whose replies do not come from ``FakeModel`` scripts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from band.adapters import AnthropicAdapter, AnthropicAdapterConfig, OpenAIChatAdapter
from band.core import SimpleAdapter
from band.core.protocols import TURN_FAILURE_PROVIDER
from band.testing import FakeModel, ModelRequest, anthropic_client, openai_client

Factory = Callable[..., SimpleAdapter[Any]]


@dataclass(frozen=True)
class AdapterCase:
    """One adapter configuration: ``build(fake, **features)`` returns a fresh adapter.

    ``replayed_call_ids`` reads the tool-call ids a model request replays from history
    (None when the adapter does not replay tool calls). A model error is reported by
    ``failure_provider`` in an error event containing ``failure_text`` (None: the generic
    message).
    """

    id: str
    build: Factory
    replayed_call_ids: Callable[[ModelRequest], set[str]] | None = None
    skips: Mapping[str, str] = field(default_factory=dict)
    failure_provider: str = TURN_FAILURE_PROVIDER
    failure_text: str | None = None


def openai_call_ids(request: ModelRequest) -> set[str]:
    return {
        str(call.get("id"))
        for message in request.body.get("messages", [])
        for call in message.get("tool_calls") or []
    }


def anthropic_call_ids(request: ModelRequest) -> set[str]:
    return {
        str(block.get("id"))
        for message in request.body.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    }


def _openai(stream: bool) -> Factory:
    def build(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
        return OpenAIChatAdapter(
            "fake-model", client=openai_client(fake), stream=stream, **features
        )

    return build


def _anthropic(stream: bool) -> Factory:
    def build(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
        return AnthropicAdapter(
            AnthropicAdapterConfig(model="fake-model"),
            client=anthropic_client(fake),
            stream=stream,
            **features,
        )

    return build


CASES: list[AdapterCase] = [
    AdapterCase("openai", _openai(False), openai_call_ids),
    AdapterCase("openai-stream", _openai(True), openai_call_ids),
    AdapterCase("anthropic", _anthropic(False), anthropic_call_ids),
    AdapterCase("anthropic-stream", _anthropic(True), anthropic_call_ids),
]

# Framework-wrapping adapters join only where their framework is installed (own venvs).
from .framework_cases import framework_cases  # noqa: E402

CASES.extend(framework_cases())

# Coding agents run as child processes (the real codex app-server, an ACP agent).
from .coding_cases import coding_cases  # noqa: E402

CASES.extend(coding_cases())

# Gemini and Google ADK join where google-genai / google-adk are installed (own venvs).
from .google_cases import google_cases  # noqa: E402

CASES.extend(google_cases())
# Adapters that reach a separate server (a remote A2A agent answering from the fake model).
from .a2a_cases import a2a_cases  # noqa: E402

CASES.extend(a2a_cases())

# Adapters wrapping another (Slack around the OpenAI adapter), on their Band side.
from .wrapper_cases import wrapper_cases  # noqa: E402

CASES.extend(wrapper_cases())

# Letta: a real Letta server in its own environment (scripts/test-adapter letta).
from .letta_cases import letta_cases  # noqa: E402

CASES.extend(letta_cases())
