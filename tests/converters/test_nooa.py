"""band.converters.nooa and band.testing.nooa: the converter works on every Python; the
scripted-turn helpers, which stand on NOOA, fail to import here as band-sdk's do."""

from __future__ import annotations

import importlib
import sys

import pytest

from band.converters.nooa import NooaHistoryConverter


def test_history_becomes_sender_lines_of_text_messages_only() -> None:
    converter = NooaHistoryConverter()
    converter.set_agent_name("Scout")
    lines = converter.convert(
        [
            {"message_type": "text", "content": "find the report", "sender_name": "Alice"},
            {"message_type": "tool_call", "content": '{"name": "search"}', "sender_name": "Scout"},
            {"content": "on it", "sender_type": "Agent"},
            {"message_type": "text", "content": "   ", "sender_name": "Bob"},
            {"message_type": "text", "content": "thanks"},
        ]
    )
    assert lines == ["[Alice]: find the report", "[Agent]: on it", "[Unknown]: thanks"]
    assert converter.agent_name == "Scout"
    assert NooaHistoryConverter("Scout").convert([]) == []


@pytest.mark.skipif(sys.version_info[:2] in {(3, 12), (3, 13)}, reason="NOOA's own Pythons")
def test_the_scripted_turn_helpers_need_nooa_and_say_how_to_get_it() -> None:
    sys.modules.pop("band.testing.nooa", None)
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module("band.testing.nooa")
    assert info.value.name == "nooa"
    assert "pip install 'openband[nooa]'" in str(info.value)
    assert "Python 3.12 and 3.13 only" in str(info.value)
