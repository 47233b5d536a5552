"""The agent process of bench/adapters.py: our SDK's Agent with one of our shipped adapters.

Runs with the project venv (OpenAI, Anthropic) or an adapter's own venv (``.venvs/<name>``).
Configuration from the environment, as bench/_sdk_agent.py (BENCH_AGENT_ID, BENCH_API_KEY,
BAND_WS_URL, BAND_REST_URL, BENCH_LOGGING, OPENAI_BASE_URL) plus BENCH_ADAPTER (a key of
``BUILDERS``) and ANTHROPIC_BASE_URL. Every model call goes to the zero-latency fake endpoint
(``band.testing``); Parlant answers from ``FakeNLPService`` in-process.

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


BUILDERS: dict[str, Callable[[], Any]] = {
    "openai": openai(False),
    "openai-stream": openai(True),
    "anthropic": anthropic(False),
    "anthropic-stream": anthropic(True),
    "parlant": parlant,
    "langgraph": langgraph,
    "pydantic-ai": pydantic_ai,
}


async def main() -> None:
    if os.environ.get("BENCH_LOGGING", "sdk") == "sdk":
        configure_logging()
    else:
        logging.basicConfig(level=logging.WARNING)
    agent = Agent.create(
        adapter=BUILDERS[os.environ["BENCH_ADAPTER"]](),
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
