"""The Gemini and Google ADK rows of bench/adapters.py, each beside band-sdk 6.0.1 (rows as
bench/_official_frameworks.py builds them; bench/_adapter_agent.py's builders):

- ``gemini`` (``.venvs/gemini``) and ``gemini@band-sdk`` (band-sdk[gemini] 6.0.1);
- ``google-adk`` on google-adk 1.19 (``.venvs/google-adk-1.19``) and ``google-adk@band-sdk``
  (band-sdk[google_adk] 6.0.1 with google-adk 1.19.0: its adapter breaks from 1.20 on);
- ``google-adk-latest``: ours on the current google-adk 1.x (``.venvs/google-adk``), no twin.
"""

from __future__ import annotations

from tests.compat.compat_harness import SDK_VERSION

from bench._official_frameworks import OFFICIAL_REQUIREMENTS, FrameworkSpec

OFFICIAL_REQUIREMENTS.update(
    {
        "gemini": (f"band-sdk[gemini]=={SDK_VERSION}",),
        "google-adk": (f"band-sdk[google_adk]=={SDK_VERSION}", "google-adk==1.19.0"),
    }
)

GOOGLE_SPECS = {
    spec.label: spec
    for spec in (
        FrameworkSpec("gemini", "gemini", ("google.genai",)),
        FrameworkSpec("gemini", "gemini", ("google.genai",), official=True),
        FrameworkSpec("google-adk", "google-adk-1.19", ("google.adk",)),
        FrameworkSpec("google-adk", "google-adk-1.19", ("google.adk",), official=True),
        FrameworkSpec("google-adk-latest", "google-adk", ("google.adk",)),
    )
}
