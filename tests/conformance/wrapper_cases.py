"""Conformance of adapters that wrap another: ``SlackAdapter`` around ``OpenAIChatAdapter``.

On the Band side (a room not bound to a Slack thread) the wrapper must behave exactly as the
brain it wraps, under its own name; its Slack side has its own tests (tests/adapters/slack).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from band.adapters import OpenAIChatAdapter
from band.core import SimpleAdapter
from band.testing import FakeModel, openai_client

from .adapter_cases import AdapterCase, openai_call_ids


def slack_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from band.integrations.slack import SlackAdapter, SlackAdapterConfig, SlackApp

    app = SlackApp(slug="conformance", bot_token="xoxb-unused", signing_secret="unused")
    custom = features.pop("additional_tools", ())  # the brain's, not the wrapper's
    brain = OpenAIChatAdapter("fake-model", client=openai_client(fake), additional_tools=custom)
    return SlackAdapter(SlackAdapterConfig(apps=(app,)), inner=brain, **features)


def wrapper_cases() -> list[AdapterCase]:
    if importlib.util.find_spec("slack_sdk") is None:
        return []
    return [AdapterCase("slack-openai", slack_adapter, openai_call_ids)]
