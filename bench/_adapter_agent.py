"""The agent process of bench/adapters.py: our SDK's Agent with one of our shipped adapters.

Runs with the project venv (OpenAI, Anthropic) or an adapter's own venv (``.venvs/<name>``).
Configuration from the environment, as bench/_sdk_agent.py (BENCH_AGENT_ID, BENCH_API_KEY,
BAND_WS_URL, BAND_REST_URL, BENCH_LOGGING, OPENAI_BASE_URL) plus BENCH_ADAPTER (a key of
``BUILDERS``) and ANTHROPIC_BASE_URL. Every model call goes to the zero-latency fake endpoint
(``band.testing``); Parlant answers from ``FakeNLPService`` in-process; Gemini and Google
ADK reach it through GOOGLE_GEMINI_BASE_URL (and GOOGLE_API_KEY).

The framework rows (crewai, crewai-flow, agno, strands, gemini, google-adk) run this same
script under band-sdk 6.0.1 too (``BENCH_ADAPTER=<name>@band-sdk``, its venv's ``band``):
their builders import only ``band.adapters.<module>`` names both SDKs share.

Prints ``BENCH_READY <epoch seconds>`` to stdout once ``Agent.start()`` has returned.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from band import Agent, configure_logging

MODEL = "fake-model"
# CrewAI routes a name it knows to its native OpenAI client (which reads OPENAI_BASE_URL);
# "fake-model" would need LiteLLM. The fake endpoint answers any name.
CREWAI_MODEL = "openai/gpt-5.4-mini"
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")


def openai(stream: bool) -> Callable[[], Any]:
    def build() -> Any:
        from openai import AsyncOpenAI

        from band.adapters import OpenAIChatAdapter

        client = AsyncOpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key="fake", max_retries=0)
        return OpenAIChatAdapter(MODEL, client=client, stream=stream)

    return build


def anthropic(stream: bool) -> Callable[[], Any]:
    def build() -> Any:
        from anthropic import AsyncAnthropic

        from band.adapters import AnthropicAdapter, AnthropicAdapterConfig

        client = AsyncAnthropic(
            base_url=os.environ["ANTHROPIC_BASE_URL"], api_key="fake", max_retries=0
        )
        return AnthropicAdapter(AnthropicAdapterConfig(model=MODEL), client=client, stream=stream)

    return build


def parlant() -> Any:
    """As tests/adapters/parlant/test_parlant_live.py: one guideline, the fake NLP service."""
    from band.adapters import ParlantAdapter, ParlantAdapterConfig
    from band.testing.parlant_nlp import FakeNLPService

    nlp = FakeNLPService("Happy to help.")
    adapter = ParlantAdapter(
        ParlantAdapterConfig(description="You are a support assistant. Give accurate answers."),
        nlp_service=nlp.factory,
    )
    adapter.add_guideline(
        condition="The user asks a question or needs help",
        action="Answer the question directly",
    )
    return adapter


def langgraph() -> Any:
    """As tests/conformance/framework_cases.py, over a loopback client (needs .venvs/langgraph)."""
    from langchain_openai import ChatOpenAI
    from openai import AsyncOpenAI

    from band.adapters import LangGraphAdapter

    base_url = os.environ["OPENAI_BASE_URL"]
    client = AsyncOpenAI(base_url=base_url, api_key="fake", max_retries=0)
    llm = ChatOpenAI(
        model=MODEL,
        api_key="fake",
        base_url=base_url,
        async_client=client.chat.completions,
        max_retries=0,
        stream_usage=True,
    )
    return LangGraphAdapter(llm=llm)


def pydantic_ai() -> Any:
    """As tests/conformance/framework_cases.py, over a loopback client (.venvs/pydantic-ai)."""
    from openai import AsyncOpenAI
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from band.adapters import PydanticAIAdapter

    client = AsyncOpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key="fake", max_retries=0)
    return PydanticAIAdapter(
        llm=OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=client))
    )


def crewai() -> Any:
    """CrewAI builds its own LLM from the config's model name and ``OPENAI_BASE_URL``."""
    from band.adapters.crewai import CrewAIAdapter, CrewAIAdapterConfig

    return CrewAIAdapter(CrewAIAdapterConfig(model=CREWAI_MODEL))


def crewai_flow() -> Any:
    """A flow that answers each message with one model call (a direct response)."""
    from crewai import LLM
    from crewai.flow.flow import Flow, start

    from band.adapters.crewai_flow import CrewAIFlowAdapter

    llm = LLM(model=CREWAI_MODEL, api_key="fake")

    class AnswerFlow(Flow):  # type: ignore[misc,type-arg]
        @start()
        async def answer(self) -> dict[str, Any]:
            message = self.state["message"]
            text = await llm.acall(
                [{"role": "user", "content": f"[{message['sender_name']}]: {message['content']}"}]
            )
            return {"decision": "direct_response", "content": str(text)}

    return CrewAIFlowAdapter(flow_factory=AnswerFlow)


def agno() -> Any:
    from agno.agent import Agent
    from agno.models.openai import OpenAIChat

    from band.adapters.agno import AgnoAdapter

    base_url = os.environ["OPENAI_BASE_URL"]
    model = OpenAIChat(id=MODEL, api_key="fake", base_url=base_url, max_retries=0)
    return AgnoAdapter(agent=Agent(model=model))


def strands() -> Any:
    from strands.models.openai import OpenAIModel

    from band.adapters.strands import StrandsAdapter

    client_args = {"base_url": os.environ["OPENAI_BASE_URL"], "api_key": "fake", "max_retries": 0}
    return StrandsAdapter(llm=OpenAIModel(client_args=client_args, model_id=MODEL))


def gemini() -> Any:
    """The adapter creates its google-genai client from the environment, as a user's would."""
    from band.adapters.gemini import GeminiAdapter, GeminiAdapterConfig

    return GeminiAdapter(GeminiAdapterConfig(model=MODEL))


def google_adk() -> Any:
    from band.adapters.google_adk import GoogleADKAdapter, GoogleADKAdapterConfig

    return GoogleADKAdapter(GoogleADKAdapterConfig(model=MODEL))


BUILDERS: dict[str, Callable[[], Any]] = {
    "openai": openai(False),
    "openai-stream": openai(True),
    "anthropic": anthropic(False),
    "anthropic-stream": anthropic(True),
    "parlant": parlant,
    "langgraph": langgraph,
    "pydantic-ai": pydantic_ai,
    # Also run by band-sdk 6.0.1 (rows "<name>@band-sdk"): same classes, paths, arguments.
    "crewai": crewai,
    "crewai-flow": crewai_flow,
    "agno": agno,
    "strands": strands,
    "gemini": gemini,
    "google-adk": google_adk,
    "google-adk-latest": google_adk,
}


async def main() -> None:
    if os.environ.get("BENCH_LOGGING", "sdk") == "sdk":
        configure_logging()
    else:
        logging.basicConfig(level=logging.WARNING)
    agent = Agent.create(
        adapter=BUILDERS[os.environ["BENCH_ADAPTER"].removesuffix("@band-sdk")](),
        agent_id=os.environ["BENCH_AGENT_ID"],
        api_key=os.environ["BENCH_API_KEY"],
        ws_url=os.environ["BAND_WS_URL"],
        rest_url=os.environ["BAND_REST_URL"],
    )
    await agent.start()
    print(f"BENCH_READY {time.time():.6f}", flush=True)
    await agent.run_forever()


if __name__ == "__main__":
    asyncio.run(main())
