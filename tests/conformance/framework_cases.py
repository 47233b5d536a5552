"""Conformance cases of the framework-wrapping adapters, present only where installed.

LangGraph and Pydantic AI live in their own venvs (scripts/test-adapter langgraph,
scripts/test-adapter pydantic-ai); in any other environment these cases are simply absent.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from band.core import SimpleAdapter
from band.testing import FakeModel, openai_client

from .adapter_cases import AdapterCase, openai_call_ids

NO_THOUGHTS = "the framework owns the loop; THOUGHTS is not a supported emit kind"


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def langgraph_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from langchain_openai import ChatOpenAI

    from band.adapters import LangGraphAdapter

    client = openai_client(fake)
    llm = ChatOpenAI(
        model="fake-model",
        api_key="fake",
        base_url=str(client.base_url),
        async_client=client.chat.completions,
        max_retries=0,
        stream_usage=True,
    )
    return LangGraphAdapter(llm, **features)


def pydantic_ai_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from band.adapters import PydanticAIAdapter

    model = OpenAIChatModel(
        "fake-model", provider=OpenAIProvider(openai_client=openai_client(fake))
    )
    return PydanticAIAdapter(model, **features)


def framework_cases() -> list[AdapterCase]:
    cases: list[AdapterCase] = []
    skips = {"thoughts": NO_THOUGHTS}
    if _installed("langgraph", "langchain_openai"):
        cases.append(AdapterCase("langgraph", langgraph_adapter, openai_call_ids, skips))
    if _installed("pydantic_ai"):
        cases.append(AdapterCase("pydantic-ai", pydantic_ai_adapter, openai_call_ids, skips))
    return cases
