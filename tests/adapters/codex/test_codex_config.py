"""CodexAdapterConfig and the CodexAdapter constructor: documented defaults, refusals and
the ``CODEX_*`` environment layer (no Codex process needed)."""

from __future__ import annotations

import pytest

from band.adapters import CodexAdapter, CodexAdapterConfig


def test_the_documented_defaults() -> None:
    config = CodexAdapterConfig()
    assert (config.approval_policy, config.personality, config.approval_mode) == (
        "never",
        "pragmatic",
        "manual",
    )
    assert config.approval_text_notifications is True
    assert (config.approval_wait_timeout_s, config.approval_timeout_decision) == (300, "decline")
    assert (config.turn_timeout_s, config.max_history_messages) == (180, 50)
    assert config.inject_history_on_resume_failure is True
    assert config.enable_self_config_tools is False
    assert config.additional_dynamic_tools == [] and config.skill_roots == []
    assert config.sandbox_policy is None and config.retention.idle_timeout_s is None
    flags = [
        "stream_reasoning_events",
        "stream_commentary_events",
        "stream_plan_events",
        "emit_diff_events",
        "emit_token_usage_events",
        "emit_turn_lifecycle_events",
        "emit_turn_task_markers",
    ]
    assert [getattr(config, f) for f in flags] == [False] * len(flags)


def test_retention_must_stay_disabled() -> None:
    with pytest.raises(ValueError, match=r"Leave retention\.idle_timeout_s unset\."):
        CodexAdapterConfig(retention={"idle_timeout_s": 30})
    assert (
        CodexAdapterConfig(retention={"transition_timeout_s": 5}).retention.transition_timeout_s
        == 5
    )


def test_skill_roots_must_be_absolute() -> None:
    with pytest.raises(ValueError, match=r"skill_roots must be absolute paths: \['skills'\]"):
        CodexAdapterConfig(skill_roots=["/opt/skills", "skills"])


def test_a_sandbox_policy_is_normalised_and_fixes_the_thread_mode() -> None:
    config = CodexAdapterConfig(
        sandbox_policy={"type": "workspace-write", "network_access": True, "writable_roots": []}
    )
    assert config.sandbox_policy == {
        "type": "workspaceWrite",
        "networkAccess": True,
        "writableRoots": [],
    }
    assert config.thread_sandbox == "workspace-write"
    assert CodexAdapterConfig(sandbox_policy={"type": "externalSandbox"}).thread_sandbox is None
    with pytest.raises(ValueError, match="sandbox_policy type must be one of"):
        CodexAdapterConfig(sandbox_policy={"type": "chroot"})


def test_additional_dynamic_tools_need_a_name() -> None:
    with pytest.raises(ValueError, match="each additional dynamic tool needs a name"):
        CodexAdapterConfig(additional_dynamic_tools=[{"description": "nameless"}])
    spec = CodexAdapterConfig(additional_dynamic_tools=[{"name": "ping"}]).additional_dynamic_tools
    assert spec == [
        {"type": "function", "name": "ping", "description": "", "inputSchema": {"type": "object"}}
    ]


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValueError, match=r"sandbox_polcy\s+Extra inputs are not permitted"):
        CodexAdapterConfig(sandbox_polcy={})  # type: ignore[call-arg]


def test_fields_come_from_codex_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_MODEL", "env-model")
    monkeypatch.setenv("CODEX_COMMAND", "my-codex app-server --listen stdio://")
    monkeypatch.setenv("CODEX_STREAM_REASONING_EVENTS", "true")
    monkeypatch.setenv("CODEX_TURN_TASK_MARKERS", "1")
    monkeypatch.setenv("CODEX_SKILL_ROOTS", '["/srv/skills"]')
    monkeypatch.setenv("CODEX_SANDBOX_POLICY", '{"type": "readOnly"}')
    monkeypatch.setenv("CODEX_APPROVAL_TEXT_NOTIFICATIONS", "false")
    monkeypatch.setenv("CODEX_CWD", "/never/read")
    config = CodexAdapterConfig(model="explicit")
    assert config.model == "explicit"  # an explicit value wins
    assert config.codex_command == ["my-codex", "app-server", "--listen", "stdio://"]
    assert config.stream_reasoning_events and config.emit_turn_task_markers
    assert config.skill_roots == ["/srv/skills"]
    assert config.sandbox_policy == {"type": "readOnly"}
    assert config.approval_text_notifications is False
    assert config.cwd is None


def test_a_malformed_json_variable_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_SKILL_ROOTS", "/srv/skills")
    with pytest.raises(ValueError, match="CODEX_SKILL_ROOTS must be JSON"):
        CodexAdapterConfig()


def test_the_constructor_keeps_one_process_per_room() -> None:
    with pytest.raises(ValueError, match=r"^cwd is not supported; use workspace_for_room"):
        CodexAdapter(CodexAdapterConfig(cwd="/tmp"))
    with pytest.raises(ValueError, match=r"^only stdio Codex transport guarantees room process"):
        CodexAdapter(CodexAdapterConfig(transport="ws"))
    with pytest.raises(ValueError, match=r"^custom Codex clients cannot guarantee room process"):
        CodexAdapter(CodexAdapterConfig(), client_factory=lambda: None)
