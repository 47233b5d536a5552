"""Conformance cases of the Gemini and Google ADK adapters, present only where google-genai
(and google-adk) are installed (scripts/test-adapter gemini|google-adk-1.19).

Gemini talks to its fake in-process (``gemini_client``); ADK builds its own client each
turn, so it reaches the fake the way a user points it elsewhere: ``GOOGLE_GEMINI_BASE_URL``,
here a loopback server with one path prefix per fake (the coding cases' router).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from band.core import SimpleAdapter
from band.testing import FakeModel, ModelRequest, gemini_client

from .adapter_cases import AdapterCase
from .coding_cases import ROUTER

PROVIDER = "google_adk"
NO_THOUGHTS = "THOUGHTS is not a supported emit kind (as in band-sdk)"


def gemini_call_ids(request: ModelRequest) -> set[str]:
    return {
        str(part["functionCall"].get("id"))
        for content in request.body.get("contents", [])
        for part in content.get("parts") or []
        if "functionCall" in part
    }


def gemini_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from band.adapters import GeminiAdapter, GeminiAdapterConfig

    adapter = GeminiAdapter(GeminiAdapterConfig(model="fake-model", max_retries=0), **features)
    adapter.client = gemini_client(fake)
    return adapter


def google_adk_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from band.adapters import GoogleADKAdapter, GoogleADKAdapterConfig

    os.environ["GOOGLE_GEMINI_BASE_URL"] = ROUTER.base_url(fake).removesuffix("/v1")
    os.environ["GOOGLE_API_KEY"] = "fake"
    config = GoogleADKAdapterConfig(model="fake-model", max_retries=0)
    return GoogleADKAdapter(config, **features)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # no ``google`` package at all
        return False


def google_cases() -> list[AdapterCase]:
    cases: list[AdapterCase] = []
    skips = {"thoughts": NO_THOUGHTS}
    if not _installed("google.genai"):
        return cases
    cases.append(
        AdapterCase(
            "gemini",
            gemini_adapter,
            gemini_call_ids,
            skips,
            failure_provider="gemini",
            failure_text="500 INTERNAL",
        )
    )
    if _installed("google.adk"):
        cases.append(
            AdapterCase(
                "google_adk", google_adk_adapter, None, skips, failure_provider="google_adk"
            )
        )
    return cases
