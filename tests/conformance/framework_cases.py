"""Conformance cases of the framework-wrapping adapters, present only where installed.

LangGraph, Pydantic AI and Parlant live in their own venvs (scripts/test-adapter langgraph,
scripts/test-adapter pydantic-ai, scripts/test-adapter parlant); in any other environment
these cases are simply absent.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import tempfile
import warnings
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
    return LangGraphAdapter(llm=llm, **features)


def pydantic_ai_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from band.adapters import PydanticAIAdapter

    model = OpenAIChatModel(
        "fake-model", provider=OpenAIProvider(openai_client=openai_client(fake))
    )
    return PydanticAIAdapter(llm=model, **features)


def parlant_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    """Parlant's engine writes the reply: its drafts are answered by ``fake``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from band.adapters import ParlantAdapter
        from band.testing.parlant_nlp import ModelBackedNLPService

    nlp = ModelBackedNLPService(fake)
    return ParlantAdapter(nlp_service=nlp.factory, server_options={"host": "127.0.0.1"}, **features)


PARLANT_SKIPS = {
    "tool_events": "Parlant runs tools only from matched guidelines; its reply is drafted by "
    "the NLP service, not a model tool call, so no band_send_message call/result pair exists",
    "thoughts": "Parlant's draft schema has no text alongside tool calls; THOUGHTS is not a "
    "supported emit kind",
}


def _parlant_home() -> None:
    """Parlant reads PARLANT_HOME when first imported: give it a throwaway one first."""
    if "PARLANT_HOME" not in os.environ:
        home = tempfile.mkdtemp(prefix="band-parlant-home-")
        os.environ["PARLANT_HOME"] = home
        atexit.register(shutil.rmtree, home, ignore_errors=True)


def framework_cases() -> list[AdapterCase]:
    cases: list[AdapterCase] = []
    skips = {"thoughts": NO_THOUGHTS}
    if _installed("langgraph", "langchain_openai"):
        cases.append(AdapterCase("langgraph", langgraph_adapter, openai_call_ids, skips))
    if _installed("pydantic_ai"):
        cases.append(AdapterCase("pydantic-ai", pydantic_ai_adapter, openai_call_ids, skips))
    if _installed("parlant"):
        _parlant_home()
        cases.append(AdapterCase("parlant", parlant_adapter, None, PARLANT_SKIPS))
    return cases
