"""Tool-event parsers and the system prompt."""

from __future__ import annotations

import json

from band import Capability
from band.converters.parsing import parse_tool_call, parse_tool_result
from band.core.types import AdapterFeatures
from band.runtime.prompts import render_system_prompt, with_system_updates


def test_parse_tool_call() -> None:
    parsed = parse_tool_call(json.dumps({"name": "x", "args": [1], "tool_call_id": "c1"}))
    assert parsed is not None and (parsed.name, parsed.args, parsed.tool_call_id) == ("x", {}, "c1")
    assert parse_tool_call("not json") is None
    assert parse_tool_call(json.dumps({"name": "x"})) is None
    assert parse_tool_call("[]") is None


def test_parse_tool_result() -> None:
    content = json.dumps({"name": "x", "output": 42, "tool_call_id": "c1", "is_error": True})
    parsed = parse_tool_result(content)
    assert parsed is not None and (parsed.output, parsed.is_error) == ("42", True)
    assert parse_tool_result(json.dumps({"name": "x"})) is None
    loose = parse_tool_result(json.dumps({"name": "x"}), require_call_id=False)
    assert loose is not None and (loose.tool_call_id, loose.output) == ("", "")


def headings(prompt: str) -> list[str]:
    return [line for line in prompt.splitlines() if line.startswith("## ")]


def test_prompt_sections_in_order() -> None:
    prompt = render_system_prompt("Echo", "a helpful agent", "Be brief.")
    assert prompt.startswith("You are Echo, a helpful agent.\n\n## Environment")
    assert headings(prompt) == [
        "## Environment",
        "## Security",
        "## Activation",
        "## Delegation",
        "## Relaying",
        "## Developer Instructions",
    ]
    assert prompt.endswith("## Developer Instructions\n\nBe brief.")
    assert "band_send_message" in prompt and "band_no_reply" in prompt


def test_capability_sections_follow_features() -> None:
    features = AdapterFeatures(capabilities=frozenset(Capability))
    prompt = render_system_prompt("Echo", "x", features=features, extra_sections=[" Extra "])
    assert headings(prompt)[5:] == [
        "## Memory Tools",
        "## Contact Management Tools",
        "## Room File Tools",
    ]
    assert prompt.endswith("Extra")
    bare = render_system_prompt("Echo", "x", "raw", include_base_instructions=False)
    assert bare == "You are Echo, x.\n\nraw"


def test_system_updates_prefix() -> None:
    assert with_system_updates("[Alice]: hi", "roster", None) == "[System]: roster\n[Alice]: hi"
