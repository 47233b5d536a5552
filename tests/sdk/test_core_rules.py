"""The core rules band-sdk documents: credential redaction, tool filters and schema scrubbing,
the model catalog's checks, memory and task vocabulary, context handoff."""

from __future__ import annotations

import logging

import pytest

from band.core.handoff import context_delivery, context_handoff
from band.core.memory_types import (
    MemoryStoreScope,
    is_organization_scope_rejection,
    memory_type_field_description,
    validate_subject_scope,
)
from band.core.model_catalog import (
    ModelCatalog,
    ModelChoice,
    ModelSelection,
    ModelSelectionError,
    ModelSetting,
    check_model_selection,
)
from band.core.redaction import redact_credentials, redact_credentials_deep
from band.core.task_types import task_ref, validate_include
from band.core.tool_filter import filter_tool_schemas, sanitize_tool_schema
from band.core.types import AdapterFeatures
from band.core.validation import at_least_one_of, listing
from band.runtime.tools import get_band_tool_category, iter_tool_definitions


def test_credentials_are_redacted_in_text_to_the_end_of_their_line() -> None:
    text = "call failed: Authorization: Bearer sk-abc123\nstatus 401\napi_key=sk-live-9 trailing"
    assert redact_credentials(text) == (
        "call failed: Authorization=[REDACTED]\nstatus 401\napi_key=[REDACTED]"
    )
    assert redact_credentials("Bearer abc.def token") == "Bearer [REDACTED] token"
    assert redact_credentials("Invalid credentials: check config") == (
        "Invalid credentials: check config"  # prose about credentials is left alone
    )


def test_credential_fields_are_hidden_in_nested_data_and_counts_survive() -> None:
    data = {
        "apiKey": "sk-1",
        "headers": {"X-Api-Key": "k", "Cookie": "s=1"},
        "token_count": 42,
        "messages": ["password: hunter2", "fine"],
        "auth": {"user": "a"},
        "session_token": 7,
    }
    assert redact_credentials_deep(data) == {
        "apiKey": "[REDACTED]",
        "headers": {"X-Api-Key": "[REDACTED]", "Cookie": "[REDACTED]"},
        "token_count": 42,
        "messages": ["password=[REDACTED]", "fine"],
        "auth": "[REDACTED]",
        "session_token": 7,
    }


def test_tool_filters_apply_categories_then_includes_then_excludes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    names = [d.name for d in iter_tool_definitions(capabilities=None)]
    features = AdapterFeatures(
        include_categories=["chat", "contacts"],
        include_tools=["band_send_message", "band_list_contacts", "band_nope"],
        exclude_tools=["band_list_contacts"],
    )
    with caplog.at_level(logging.WARNING):
        kept = filter_tool_schemas(
            names, features, get_name=lambda n: n, get_category=get_band_tool_category
        )
    assert kept == ["band_send_message"]
    assert "include_tools contains unknown names: band_nope" in caplog.text


def test_schema_scrubbing_keeps_properties_named_like_keywords() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "maximum": {"type": "integer", "minimum": 1, "maximum": 9},
            "mode": {"const": "fast"},
        },
    }
    assert sanitize_tool_schema(
        schema, drop_numeric_bounds=True, drop_additional_properties=True
    ) == {
        "type": "object",
        "properties": {"maximum": {"type": "integer"}, "mode": {"enum": ["fast"]}},
    }
    assert schema["properties"]["maximum"]["minimum"] == 1  # the input is untouched


def test_the_model_catalog_refuses_what_the_harness_does_not_advertise() -> None:
    catalog = ModelCatalog(
        models=(
            ModelChoice(id="gpt-a", efforts=("low", "high")),
            ModelChoice(id="gpt-b", efforts=()),
            ModelChoice(id="gpt-c"),
        ),
        current_model="gpt-a",
    )
    check_model_selection(ModelSelection(reasoning_effort="high"), catalog)  # current model
    check_model_selection(ModelSelection(model="gpt-c", reasoning_effort="any"), catalog)
    check_model_selection(ModelSelection(model="nope"), None)  # nothing advertised
    with pytest.raises(ModelSelectionError, match='model "nope" is not advertised') as info:
        check_model_selection(ModelSelection(model="nope"), catalog)
    assert info.value.setting is ModelSetting.MODEL
    assert info.value.advertised == ("gpt-a", "gpt-b", "gpt-c")
    with pytest.raises(ModelSelectionError, match="available: low, high"):
        check_model_selection(ModelSelection(model="gpt-a", reasoning_effort="max"), catalog)
    with pytest.raises(ModelSelectionError, match='"gpt-b" offers no reasoning effort'):
        check_model_selection(ModelSelection(model="gpt-b", reasoning_effort="low"), catalog)
    assert ModelSelection().is_empty
    assert ModelSelection(model="m").value_of(ModelSetting.MODEL) == "m"


def test_memory_and_task_vocabulary_rules() -> None:
    with pytest.raises(ValueError, match="needs subject_id"):
        validate_subject_scope(MemoryStoreScope.SUBJECT, None)
    validate_subject_scope(MemoryStoreScope.AGENT, None)
    assert memory_type_field_description() == (
        "Memory type - must match the chosen system: sensory=iconic/echoic/haptic, "
        "working|long_term=episodic/semantic/procedural"
    )
    body = {"error": {"code": "org_scope_requires_organization"}}
    assert is_organization_scope_rejection(body)
    assert not is_organization_scope_rejection({"error": "x"})
    assert task_ref("#12") == "12"
    validate_include("history")
    with pytest.raises(ValueError, match="include must be 'history' or omitted"):
        validate_include("everything")
    assert listing([]) == "(none)"
    with pytest.raises(ValueError, match="At least one of a, b, or c must be set"):
        at_least_one_of(a=None, b=None, c=None)


def test_a_failed_setup_retains_the_context_and_a_consumed_one_commits() -> None:
    with context_delivery() as delivery:
        with pytest.raises(RuntimeError), context_handoff():
            raise RuntimeError("history conversion failed")
        assert not delivery.should_commit
    with context_delivery() as delivery:
        with pytest.raises(RuntimeError), context_handoff() as handoff:
            handoff.consume()
            raise RuntimeError("the framework failed after seeing the context")
        assert delivery.should_commit
