"""Configuration, the single-instance lock, logging lines and history shaping (no network)."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from band.core.exceptions import AgentAlreadyRunningError
from band.logging_config import configure_logging
from band.runtime.config import (
    DEFAULT_REST_URL,
    DEFAULT_WS_URL,
    SessionConfig,
    load_agent_config,
    resolve_urls,
)
from band.runtime.history import (
    build_participants_message,
    history_before,
    rewrite_mentions,
)
from band.runtime.lock import InstanceLock


def test_keyed_and_flat_config_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keyed = tmp_path / "agent_config.yaml"
    keyed.write_text("my_agent:\n  agent_id: a1\n  api_key: k1\nother:\n  agent_id: a2\n")
    monkeypatch.chdir(tmp_path)
    assert load_agent_config("my_agent") == ("a1", "k1")
    flat = tmp_path / "flat.yaml"
    flat.write_text("agent_id: a3\napi_key: k3\nrole: worker\n")
    assert load_agent_config("anything", config_path=flat) == ("a3", "k3")


def test_config_errors_use_the_documented_texts(tmp_path: Path) -> None:
    path = tmp_path / "agent_config.yaml"
    with pytest.raises(FileNotFoundError, match=r"Copy agent_config\.yaml\.example"):
        load_agent_config("x", config_path=path)
    path.write_text("other:\n  agent_id: a\n  api_key: k\n")
    with pytest.raises(ValueError) as missing:
        load_agent_config("x", config_path=path)
    assert str(missing.value) == (
        f"Agent 'x' not found in {path}. Please add the agent configuration."
    )
    path.write_text("x:\n  agent_id: a\n")
    with pytest.raises(ValueError, match=r"Missing required fields for agent 'x': api_key\. "):
        load_agent_config("x", config_path=path)
    path.write_text("- a list\n")
    with pytest.raises(RuntimeError, match=r"^Error loading agent config: "):
        load_agent_config("x", config_path=path)


def test_session_config_reads_env_and_explicit_values_win(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MAX_MESSAGE_RETRIES", "3")
    monkeypatch.setenv("idle_resync_seconds", "5")
    assert SessionConfig().max_message_retries == 3
    assert SessionConfig().idle_resync_seconds == 5.0
    assert SessionConfig(max_message_retries=2).max_message_retries == 2
    monkeypatch.delenv("MAX_MESSAGE_RETRIES")
    assert SessionConfig().max_message_retries == 1


def test_urls_come_from_arguments_then_env_then_production(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BAND_WS_URL", raising=False)
    monkeypatch.setenv("BAND_REST_URL", "")
    assert resolve_urls(None, None) == (DEFAULT_WS_URL, DEFAULT_REST_URL)
    monkeypatch.setenv("BAND_WS_URL", "ws://local/api/v1/socket/websocket")
    assert resolve_urls(None, "http://x")[0] == "ws://local/api/v1/socket/websocket"
    assert resolve_urls("ws://arg", None)[0] == "ws://arg"


def test_second_lock_for_one_agent_is_refused() -> None:
    first, second = InstanceLock("agent-lock-test"), InstanceLock("agent-lock-test")
    first.acquire()
    try:
        with pytest.raises(AgentAlreadyRunningError, match="already running on this host"):
            second.acquire()
    finally:
        first.release()
    second.acquire()
    second.release()


def test_configure_logging_prints_one_band_line_per_event() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (root.level, list(root.handlers), logging.getLogger("band").level)
    try:
        configure_logging()
        root.handlers[0].setStream(stream)  # type: ignore[attr-defined]
        logging.getLogger("band.agent").info("Agent started: Echo (band-sdk 6.0.1)")
        logging.getLogger("someapp").info("hidden: root stays at WARNING")
        with pytest.raises(ValueError):
            configure_logging(True)  # type: ignore[arg-type]
    finally:
        root.setLevel(saved[0])
        root.handlers[:] = saved[1]
        logging.getLogger("band").setLevel(saved[2])
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].endswith("[INFO] band.agent: Agent started: Echo (band-sdk 6.0.1)")


ROSTER = {
    "u1": {"id": "u1", "name": "Alice Smith", "type": "User", "handle": "alice"},
    "a1": {"id": "a1", "name": "Echo Bot", "type": "Agent", "handle": None},
}


def test_mention_tokens_become_handles_or_dashed_names() -> None:
    text = "@[[u1]] and @[[a1]] and @[[zz]]"
    assert rewrite_mentions(text, ROSTER) == "@alice and @Echo-Bot and @[[zz]]"


def test_history_is_strictly_before_the_trigger_with_six_keys() -> None:
    context = [
        {"id": "m1", "content": "@[[a1]] hi", "sender_type": "User", "sender_name": "Alice"},
        {
            "id": "m2",
            "content": "hello",
            "sender_type": "Agent",
            "sender_name": "Echo Bot",
            "message_type": "text",
            "metadata": {"x": 1},
        },
        {"id": "m3", "content": "trigger", "sender_type": "User"},
        {"id": "m4", "content": "later", "sender_type": "User"},
    ]
    items = history_before(context, "m3", ROSTER)
    assert items == [
        {
            "role": "user",
            "content": "@Echo-Bot hi",
            "sender_name": "Alice",
            "sender_type": "User",
            "message_type": "text",
            "metadata": {},
        },
        {
            "role": "assistant",
            "content": "hello",
            "sender_name": "Echo Bot",
            "sender_type": "Agent",
            "message_type": "text",
            "metadata": {"x": 1},
        },
    ]
    assert len(history_before(context, "absent", ROSTER)) == 4


def test_participants_message_lists_the_others() -> None:
    text = build_participants_message(ROSTER.values(), agent_id="a1")
    assert text.splitlines()[0] == "## Current Participants"
    assert "- @alice — Alice Smith (User)" in text
    assert "Echo Bot" not in text
    assert build_participants_message([], agent_id="a1").endswith(
        "No other participants in this room."
    )
