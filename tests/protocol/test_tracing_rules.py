"""When tracing is on, and how a request is named (``band_protocol.tracing``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from band_protocol import tracing


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    tracing.reset()
    yield
    tracing.reset()


@pytest.mark.parametrize(
    ("env", "on"),
    [
        ({}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_SDK_DISABLED": "true"}, False),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_TRACES_EXPORTER": "none"},
            False,
        ),
    ],
)
def test_tracing_is_on_only_when_the_environment_names_an_otlp_endpoint(
    env: dict[str, str], on: bool
) -> None:
    pytest.importorskip("opentelemetry.sdk")
    assert tracing.configure("band-test", env) is on
    assert tracing.TRACING.on is on
    assert tracing.configure("other", {}) is on  # the first call of a process decides


def test_the_service_name_is_otel_service_name_when_set() -> None:
    tracing.configure("band-test", {"OTEL_SERVICE_NAME": "my-agent"})
    assert tracing.TRACING.service == "my-agent"


def test_a_requests_span_name_stands_ids_as_placeholders() -> None:
    path = "/api/v1/agent/chats/4862efe8-be25-429e-8133-193d7e0c56e4/tasks/12/history"
    assert tracing.route_name("GET", path) == "GET /api/v1/agent/chats/{id}/tasks/{id}/history"
    assert tracing.route_name("POST", "/api/v1/me/chats") == "POST /api/v1/me/chats"
