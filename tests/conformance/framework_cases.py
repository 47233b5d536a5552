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
    "custom_tools": "Parlant calls a tool only from a matched guideline, not from a scripted "
    "model tool call; tests/adapters/parlant pins its custom tools' turn effects",
}


def _parlant_home() -> None:
    """Parlant reads PARLANT_HOME when first imported: give it a throwaway one first."""
    if "PARLANT_HOME" not in os.environ:
        home = tempfile.mkdtemp(prefix="band-parlant-home-")
        os.environ["PARLANT_HOME"] = home
        atexit.register(shutil.rmtree, home, ignore_errors=True)


def _loopback_url(fake: FakeModel) -> str:
    """An OpenAI base URL serving ``fake`` over loopback (for frameworks that build clients)."""
    from .coding_cases import ROUTER

    return ROUTER.base_url(fake)


def crewai_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from crewai import LLM

    from band.adapters import CrewAIAdapter

    llm = LLM(
        model="openai/fake-model", base_url=_loopback_url(fake), api_key="fake", max_retries=0
    )
    return CrewAIAdapter(llm=llm, **features)


def strands_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from strands.models.openai import OpenAIModel

    from band.adapters import StrandsAdapter

    client_args = {"base_url": _loopback_url(fake), "api_key": "fake", "max_retries": 0}
    return StrandsAdapter(
        llm=OpenAIModel(client_args=client_args, model_id="fake-model"), **features
    )


def agno_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from agno.agent import Agent
    from agno.models.openai import OpenAIChat

    from band.adapters import AgnoAdapter

    model = OpenAIChat(id="fake-model", api_key="fake", base_url=_loopback_url(fake), max_retries=0)
    return AgnoAdapter(agent=Agent(model=model), **features)


def crewai_flow_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    """A flow that answers with one model call (tests/adapters/crewai/flows.py)."""
    from crewai import LLM

    from adapters.crewai.flows import answer_flow
    from band.adapters import CrewAIFlowAdapter

    llm = LLM(
        model="openai/fake-model", base_url=_loopback_url(fake), api_key="fake", max_retries=0
    )
    return CrewAIFlowAdapter(flow_factory=lambda: answer_flow(llm), **features)


CREWAI_FLOW_SKIPS = {
    "tool_events": "a flow's visible writes are the adapter carrying out its decisions, not "
    "model tool calls; tests/adapters/crewai pins the delegation scenario",
    "thoughts": NO_THOUGHTS,
    "custom_tools": "a flow's turns are not judged (a turn that only advances a run owes no "
    "reply), so there is no turn effect to settle",
}
AGNO_SKIPS = {
    "thoughts": "Agno's THOUGHTS posts the run's reasoning_content (as band-sdk 6.0.1 does), not "
    "text beside a tool call; tests/adapters/agno pins it",
}
CREWAI_SKIPS = {
    "thoughts": NO_THOUGHTS,
}


def framework_cases() -> list[AdapterCase]:
    cases: list[AdapterCase] = []
    skips = {"thoughts": NO_THOUGHTS}
    if _installed("langgraph", "langchain_openai"):
        cases.append(AdapterCase("langgraph", langgraph_adapter, openai_call_ids, skips))
    if _installed("pydantic_ai"):
        cases.append(AdapterCase("pydantic-ai", pydantic_ai_adapter, openai_call_ids, skips))
    if _installed("crewai"):
        # CrewAI's telemetry would try to reach its collector: off, offline.
        os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
        os.environ.setdefault("OTEL_SDK_DISABLED", "true")
        cases.append(AdapterCase("crewai", crewai_adapter, None, CREWAI_SKIPS))
        cases.append(AdapterCase("crewai-flow", crewai_flow_adapter, None, CREWAI_FLOW_SKIPS))
    if _installed("strands"):
        cases.append(AdapterCase("strands", strands_adapter, openai_call_ids, skips))
    if _installed("agno"):
        cases.append(AdapterCase("agno", agno_adapter, openai_call_ids, AGNO_SKIPS))
    if _installed("parlant"):
        _parlant_home()
        cases.append(AdapterCase("parlant", parlant_adapter, None, PARLANT_SKIPS))
    return cases
