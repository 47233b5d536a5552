"""``band.integrations.omp``: OMP's launch flags (unsafe ones refused, model and mode last,
``--cwd`` after ``acp``), provider keys, the Approve/Deny form, and its MCP tool names read
back as Band's (also through the OMP adapter's room client)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from band.integrations.omp import (
    DEFAULT_OMP_ACP_COMMAND,
    approve_deny_form_field,
    finalize_omp_command,
    is_omp_approve_deny_form,
    normalize_omp_mcp_device_call,
    normalize_omp_mcp_tool_name,
    omp_command_in_workspace,
    omp_elicitation_call_id,
    omp_model_provider,
    omp_provider_api_key_env,
    omp_provider_env,
    validate_omp_command,
)

OWN = {"band_send_message", "band_no_reply"}


def test_launch_flags() -> None:
    validate_omp_command(DEFAULT_OMP_ACP_COMMAND)  # always-ask is safe
    for unsafe in (
        ["omp", "acp", "--yolo"],
        ["omp", "acp", "--auto-approve"],
        ["omp", "acp", "--approval-mode", "write"],
        ["omp", "acp", "--approval-mode=YOLO"],
    ):
        with pytest.raises(ValueError, match="Unsafe OMP"):
            validate_omp_command(unsafe)
    assert finalize_omp_command(["omp", "acp"], model="openai/m", approval_mode="yolo") == [
        "omp",
        "acp",
        "--model=openai/m",
        "--approval-mode",
        "yolo",
    ]
    with pytest.raises(ValueError, match="Unsupported OMP approval mode 'write'"):
        finalize_omp_command(["omp", "acp"], approval_mode="write")
    assert omp_command_in_workspace(["omp", "acp", "-v"], "/w") == ["omp", "acp", "--cwd=/w", "-v"]
    with pytest.raises(ValueError, match="must include the 'acp' subcommand"):
        omp_command_in_workspace(["omp"], "/w")


def test_provider_keys() -> None:
    assert omp_model_provider(" OpenAI/gpt ") == "openai"
    for bad in ("", "gpt", "openai/"):
        with pytest.raises(ValueError, match="OMP model"):
            omp_model_provider(bad)
    assert omp_provider_api_key_env("Google") == "GEMINI_API_KEY"
    with pytest.raises(ValueError, match="Unsupported OMP model provider 'acme'"):
        omp_provider_api_key_env("acme")
    assert omp_provider_env(model="anthropic/claude", api_key="k") == {"ANTHROPIC_API_KEY": "k"}


def test_the_approve_deny_form() -> None:
    form = {"properties": {"decision": {"type": "string", "enum": ["Approve", "Deny"]}}}
    assert approve_deny_form_field(form) == "decision" and is_omp_approve_deny_form(form)
    assert approve_deny_form_field(SimpleNamespace(model_dump=lambda: form)) == "decision"
    two = {"properties": {"a": {"enum": ["Approve", "Deny"]}, "b": {}}}
    for other in (two, {"properties": {"a": {"enum": ["Deny", "Approve"]}}}, None, {"x": 1}):
        assert not is_omp_approve_deny_form(other)
    first, second = omp_elicitation_call_id("s"), omp_elicitation_call_id("s")
    assert first.startswith("omp-elicitation:s:") and first != second


def test_omps_mcp_names_and_device_calls_read_as_band_tools() -> None:
    assert normalize_omp_mcp_tool_name("mcp__band_send_message", OWN) == "band_send_message"
    assert normalize_omp_mcp_tool_name("xd://mcp__band__band_no_reply", OWN) == "band_no_reply"
    assert normalize_omp_mcp_tool_name("mcp__band_band_no_reply", OWN) == "band_no_reply"
    assert normalize_omp_mcp_tool_name("mcp__other_tool", OWN) is None
    assert normalize_omp_mcp_tool_name("bash", OWN) is None
    write = {"path": "xd://mcp__band_send_message", "content": '{"content": "hi"}'}
    assert normalize_omp_mcp_device_call("write", write, OWN, kind="execute") == (
        "band_send_message",
        {"content": "hi"},
    )
    assert normalize_omp_mcp_device_call("read", write, OWN, kind="read") == ("read", write)
    help_write = {**write, "content": " help "}
    assert normalize_omp_mcp_device_call("write", help_write, OWN, kind="execute")[0] == "write"
    broken = {**write, "content": "not json"}
    assert normalize_omp_mcp_device_call("write", broken, OWN) == ("band_send_message", broken)
    no_content = {"path": write["path"]}
    assert (
        normalize_omp_mcp_device_call("w", no_content, OWN, kind="execute")[0]
        == "band_send_message"
    )
    assert normalize_omp_mcp_device_call("w", no_content, OWN, kind="edit")[0] == "w"
    assert normalize_omp_mcp_device_call("mcp__band_no_reply", {}, OWN) == ("band_no_reply", {})


def test_the_omp_adapters_client_reads_device_writes_as_band_tools() -> None:
    pytest.importorskip("acp")
    from band.adapters.omp_acp import OmpACPAdapter

    client = OmpACPAdapter().room_client("r")
    update = SimpleNamespace(
        session_update="tool_call",
        tool_call_id="t1",
        title="write",
        kind="execute",
        status="in_progress",
        raw_input={"path": "xd://mcp__band_send_message", "content": '{"content": "hi"}'},
    )
    chunk = client._chunk_from_update(update)
    assert chunk is not None and chunk.content == "band_send_message"
    assert chunk.tool is not None and chunk.tool.arguments == {"content": "hi"}  # type: ignore[union-attr]
