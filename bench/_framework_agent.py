"""The agent process of bench/adapters.py's framework rows; runs on EITHER SDK.

The same script builds the same framework objects under our SDK (``.venvs/<framework>``)
and under band-sdk 6.0.1 (``tests/compat/.venv-sdk-<framework>``): the adapters share
their class names, module paths and arguments, so a row pair differs only in the SDK.
It imports nothing of the project but ``band`` (whichever SDK the venv has).

Configuration from the environment, as bench/_adapter_agent.py: BENCH_AGENT_ID,
BENCH_API_KEY, BAND_WS_URL, BAND_REST_URL, OPENAI_BASE_URL (the fake model endpoint),
BENCH_LOGGING, and BENCH_ADAPTER (crewai, crewai-flow, agno, strands; an ``@band-sdk``
suffix is ignored). Prints ``BENCH_READY <epoch seconds>`` once ``Agent.start()`` returned.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from typing import Any

MODEL = "fake-model"
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")


def crewai() -> Any:
    """CrewAI builds its own LLM from the config's model name and ``OPENAI_BASE_URL``."""
    from band.adapters.crewai import CrewAIAdapter, CrewAIAdapterConfig

    return CrewAIAdapter(CrewAIAdapterConfig(model=f"openai/{MODEL}"))


def crewai_flow() -> Any:
    """A flow that answers each message with one model call (a direct response)."""
    from crewai import LLM
    from crewai.flow.flow import Flow, start

    from band.adapters.crewai_flow import CrewAIFlowAdapter

    llm = LLM(model=f"openai/{MODEL}", api_key="fake")

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


BUILDERS: dict[str, Callable[[], Any]] = {
    "crewai": crewai,
    "crewai-flow": crewai_flow,
    "agno": agno,
    "strands": strands,
}


async def main() -> None:
    from band import Agent, configure_logging

    if os.environ.get("BENCH_LOGGING", "sdk") == "sdk":
        configure_logging()
    else:
        logging.basicConfig(level=logging.WARNING)
    build = BUILDERS[os.environ["BENCH_ADAPTER"].removesuffix("@band-sdk")]
    agent = Agent.create(
        adapter=build(),
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
