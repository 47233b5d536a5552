"""The agent process of bench/adapters.py's Gemini and Google ADK rows; runs on EITHER SDK.

The same script builds ``GeminiAdapter`` / ``GoogleADKAdapter`` under our SDK
(``.venvs/gemini``, ``.venvs/google-adk-1.19``, ``.venvs/google-adk``) and under band-sdk
6.0.1 (``tests/compat/.venv-sdk-<framework>``): class names, module paths and config fields
are the same, so a row pair differs only in the SDK. Both reach the fake Gemini API through
``GOOGLE_GEMINI_BASE_URL`` (the client is created by the adapter, as a user's would be).

Configuration from the environment, as bench/_adapter_agent.py (BENCH_AGENT_ID,
BENCH_API_KEY, BAND_WS_URL, BAND_REST_URL, BENCH_LOGGING), plus GOOGLE_GEMINI_BASE_URL,
GOOGLE_API_KEY and BENCH_ADAPTER (gemini, google-adk, google-adk-latest; an ``@band-sdk``
suffix is ignored). Prints ``BENCH_READY <epoch seconds>`` once ``Agent.start()`` returned.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import warnings
from collections.abc import Callable
from typing import Any

MODEL = "fake-model"


def gemini() -> Any:
    from band.adapters.gemini import GeminiAdapter, GeminiAdapterConfig

    return GeminiAdapter(GeminiAdapterConfig(model=MODEL))


def google_adk() -> Any:
    with warnings.catch_warnings():  # google-adk's imports warn about their dependencies
        warnings.simplefilter("ignore")
        from band.adapters.google_adk import GoogleADKAdapter, GoogleADKAdapterConfig

    return GoogleADKAdapter(GoogleADKAdapterConfig(model=MODEL))


BUILDERS: dict[str, Callable[[], Any]] = {
    "gemini": gemini,
    "google-adk": google_adk,
    "google-adk-latest": google_adk,
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
