"""The Gemini and Google ADK rows of bench/adapters.py, each beside band-sdk 6.0.1.

Rows as bench/_official_frameworks.py builds them, run by bench/_google_agent.py instead:

- ``gemini`` (``.venvs/gemini``) and ``gemini@band-sdk`` (band-sdk[gemini] 6.0.1);
- ``google-adk`` on google-adk 1.19 (``.venvs/google-adk-1.19``) and ``google-adk@band-sdk``
  (band-sdk[google_adk] 6.0.1 with google-adk 1.19.0: its adapter breaks from 1.20 on);
- ``google-adk-latest``: ours on the current google-adk 1.x (``.venvs/google-adk``), no twin.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.compat.compat_harness import SDK_VERSION

from bench._official_frameworks import OFFICIAL_REQUIREMENTS, FrameworkSpec

GOOGLE_SCRIPT = Path(__file__).with_name("_google_agent.py")

OFFICIAL_REQUIREMENTS.update(
    {
        "gemini": (f"band-sdk[gemini]=={SDK_VERSION}",),
        "google-adk": (f"band-sdk[google_adk]=={SDK_VERSION}", "google-adk==1.19.0"),
    }
)


@dataclass(frozen=True)
class GoogleSpec(FrameworkSpec):
    """A framework row whose agent script is bench/_google_agent.py."""

    @property
    def script(self) -> Path:
        return GOOGLE_SCRIPT


GOOGLE_SPECS = {
    spec.label: spec
    for spec in (
        GoogleSpec("gemini", "gemini", ("google.genai",)),
        GoogleSpec("gemini", "gemini", ("google.genai",), official=True),
        GoogleSpec("google-adk", "google-adk-1.19", ("google.adk",)),
        GoogleSpec("google-adk", "google-adk-1.19", ("google.adk",), official=True),
        GoogleSpec("google-adk-latest", "google-adk", ("google.adk",)),
    )
}
