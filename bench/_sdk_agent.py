"""The agent process of bench/sdk_overhead.py; runs on EITHER SDK (our venv or the compat venv).

It runs the documented seed adapter (tests/e2e/seed/chat_adapter.py, unchanged) against an
OpenAI-compatible fake endpoint, the same way on both SDKs. Configuration from the
environment: BENCH_AGENT_ID, BENCH_API_KEY, BENCH_SEED_DIR, BAND_WS_URL, BAND_REST_URL,
OPENAI_BASE_URL, BENCH_LOGGING ("sdk": the SDK's own ``configure_logging()`` as the seed's
run_agent.py does; "warning": plain logging at WARNING).

Prints ``BENCH_READY <epoch seconds>`` to stdout once ``Agent.start()`` has returned.
Imports nothing from the project, so the official SDK's venv can run it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time

sys.path.insert(0, os.environ["BENCH_SEED_DIR"])

from chat_adapter import ChatCompletionsAdapter  # type: ignore[import-not-found]
from openai import AsyncOpenAI

from band import Agent, configure_logging


async def main() -> None:
    if os.environ.get("BENCH_LOGGING", "sdk") == "sdk":
        configure_logging()
    else:
        logging.basicConfig(level=logging.WARNING)
    client = AsyncOpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key="fake", max_retries=0)
    agent = Agent.create(
        adapter=ChatCompletionsAdapter(client=client),
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
