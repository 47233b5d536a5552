"""Test helpers: fakes of the platform tools and of model endpoints.

Names resolve lazily on first use (PEP 562), so importing ``band.testing`` never needs an
optional extra; each entry of ``_EXPORTS`` maps a public name to the module defining it.
A new name goes in ``_EXPORTS``, ``__all__`` and the ``TYPE_CHECKING`` imports (for types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    # in-memory platform tools (FakeAgentTools)
    "FakeAgentTools": "band.testing.fake_tools",
    "MISSING_REPLY_FAILURE": "band.testing.fake_tools",
    "events_of_type": "band.testing.fake_tools",
    "failure_reports": "band.testing.fake_tools",
    "feature_kwargs": "band.testing.features",
    "platform_connection_stub": "band.testing.platform",
    # a real loopback Phoenix server, and cutting a link's transport
    "FakePhoenixServer": "band.testing.phoenix_server",
    "JoinOutcome": "band.testing.phoenix_server",
    "fake_phoenix_server": "band.testing.phoenix_server",
    "close_transport": "band.testing.transport",
    "force_transport_disconnect": "band.testing.transport",
    "live_connection": "band.testing.transport",
    # scripted model turns (FakeModel.script)
    "ErrorTurn": "band.testing._turns",
    "ScriptedTurn": "band.testing._turns",
    "TextTurn": "band.testing._turns",
    "ToolTurn": "band.testing._turns",
    "reported_failures": "band.testing.fake_tools",
    "FakePlatform": "band.testing._fake_platform",
    "Identity": "band_server.testing.local_platform",
    "LocalPlatform": "band_server.testing.local_platform",
    # fake model endpoints (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini)
    "ChatEntry": "band.testing.fake_models",
    "Failure": "band.testing.fake_models",
    "FakeModel": "band.testing.fake_models",
    "FakeModelApp": "band.testing.fake_models",
    "FakeModelServer": "band.testing.fake_models",
    "ModelRequest": "band.testing.fake_models",
    "OFFLINE_MODEL_LABEL": "band.testing.fake_models",
    "Reply": "band.testing.fake_models",
    "ToolCall": "band.testing.fake_models",
    "anthropic_client": "band.testing.fake_models",
    "default_policy": "band.testing.fake_models",
    "fake_anthropic_server": "band.testing.fake_models",
    "fake_gemini_server": "band.testing.fake_models",
    "fake_openai_server": "band.testing.fake_models",
    "gemini_client": "band.testing.fake_models",
    "offline_openai_client": "band.testing.fake_models",
    "openai_client": "band.testing.fake_models",
    "serve_asgi": "band.testing.fake_models",
    "serve_fake_models": "band.testing.fake_models",
}

__all__ = [
    "MISSING_REPLY_FAILURE",
    "OFFLINE_MODEL_LABEL",
    "ChatEntry",
    "ErrorTurn",
    "Failure",
    "FakeAgentTools",
    "FakeModel",
    "FakeModelApp",
    "FakeModelServer",
    "FakePhoenixServer",
    "FakePlatform",
    "Identity",
    "JoinOutcome",
    "LocalPlatform",
    "ModelRequest",
    "Reply",
    "ScriptedTurn",
    "TextTurn",
    "ToolCall",
    "ToolTurn",
    "anthropic_client",
    "close_transport",
    "default_policy",
    "events_of_type",
    "failure_reports",
    "fake_anthropic_server",
    "fake_gemini_server",
    "fake_openai_server",
    "fake_phoenix_server",
    "feature_kwargs",
    "force_transport_disconnect",
    "gemini_client",
    "live_connection",
    "offline_openai_client",
    "openai_client",
    "platform_connection_stub",
    "reported_failures",
    "serve_asgi",
    "serve_fake_models",
]

if TYPE_CHECKING:
    from band.testing._fake_platform import FakePlatform
    from band.testing._turns import ErrorTurn, ScriptedTurn, TextTurn, ToolTurn
    from band.testing.fake_models import (
        OFFLINE_MODEL_LABEL,
        ChatEntry,
        Failure,
        FakeModel,
        FakeModelApp,
        FakeModelServer,
        ModelRequest,
        Reply,
        ToolCall,
        anthropic_client,
        default_policy,
        fake_anthropic_server,
        fake_gemini_server,
        fake_openai_server,
        gemini_client,
        offline_openai_client,
        openai_client,
        serve_asgi,
        serve_fake_models,
    )
    from band.testing.fake_tools import (
        MISSING_REPLY_FAILURE,
        FakeAgentTools,
        events_of_type,
        failure_reports,
        reported_failures,
    )
    from band.testing.features import feature_kwargs
    from band.testing.phoenix_server import FakePhoenixServer, JoinOutcome, fake_phoenix_server
    from band.testing.platform import platform_connection_stub
    from band.testing.transport import (
        close_transport,
        force_transport_disconnect,
        live_connection,
    )

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
