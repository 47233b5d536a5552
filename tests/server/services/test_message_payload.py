"""A broadcast's message payload, built straight, is exactly the wire model's JSON dump."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from band_server.services.views import Posted, message_payload, message_view

FILE = {"id": "f-1", "name": "a.txt", "content_type": "text/plain", "bytes": 3, "sha256": "x"}
NOW = datetime(2026, 12, 1, 21, 0, 0, 123456, tzinfo=UTC)
NAIVE = datetime(2026, 12, 1, 21, 0, 1, 5)  # as SQLite hands timestamps back


def posted(**changes: Any) -> Posted:
    fields: dict[str, Any] = {
        "id": "m-1",
        "room_id": "r-1",
        "seq": 7,
        "sender_id": "a-1",
        "sender_type": "Agent",
        "sender_name": "Target",
        "message_type": "text",
        "content": "@[[u-1]] pong",
        "meta": {"mentions": [{"id": "u-1", "handle": "bench", "name": "Bench"}], "status": "sent"},
        "created_at": NOW,
        "updated_at": NAIVE,
    }
    fields.update(changes)
    return Posted(**fields)


@pytest.mark.parametrize(
    "msg",
    [
        posted(),
        posted(message_type="tool_call", meta={}, sender_name=None),
        posted(meta=None),  # type: ignore[arg-type]  # a row written before metadata existed
        posted(sender_type="User", meta={"nested": {"list": [1, 2.5, None, True]}}),
        posted(
            attachments=[
                {
                    "id": "f-1",
                    "name": "a.txt",
                    "content_type": "text/plain",
                    "bytes": 3,
                    "sha256": "x",
                }
            ]
        ),
    ],
)
def test_the_payload_is_the_models_dump(msg: Posted) -> None:
    assert message_payload(msg) == message_view(msg).model_dump(mode="json")
    status = {"delivery_status": {"a-2": {"status": "processing", "attempts": []}}}
    view = message_view(msg)
    view.metadata = status
    assert message_payload(msg, status) == view.model_dump(mode="json")
