"""The Letta integration's parts that need no server: the admin API's org-scope client and
the send tools' spellings (band-sdk 6.0.1's names and values)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from ..framework_support import require

require("letta_client", "BAND_REQUIRE_LETTA")

from band.integrations.letta import (  # noqa: E402
    SEND_EVENT_TOOL_NAMES,
    SEND_MESSAGE_TOOL_NAMES,
    render_tool_enforcement,
)
from band.integrations.letta.orgscope import LettaOrgScopeClient  # noqa: E402


class AdminApi:
    """A stand-in for Letta's /v1/admin/orgs/ and /v1/admin/users/ collections."""

    def __init__(self, orgs: list[dict[str, Any]] | None = None) -> None:
        self.rows: dict[str, list[dict[str, Any]]] = {"orgs": list(orgs or []), "users": []}
        self.posts: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        kind = request.url.path.rstrip("/").rsplit("/", 1)[-1]
        if request.method == "GET":
            return httpx.Response(200, json=self.rows[kind])
        body = json.loads(request.content)
        self.posts.append((kind, body))
        row = {"id": f"{kind}-{len(self.rows[kind]) + 1}", "created_at": "2026-12-05", **body}
        self.rows[kind].append(row)
        return httpx.Response(200, json=row)


async def test_the_org_scope_client_reuses_the_oldest_match_and_creates_only_on_a_miss() -> None:
    api = AdminApi(
        orgs=[
            {"id": "org-new", "name": "band-bot", "created_at": "2026-12-02"},
            {"id": "org-old", "name": "band-bot", "created_at": "2026-11-01"},
            {"id": "org-other", "name": "band-else", "created_at": "2026-10-01"},
        ]
    )
    client = LettaOrgScopeClient(
        base_url="http://letta.test/", bearer_token="t", transport=httpx.MockTransport(api)
    )
    try:
        org = await client.find_or_create_organization("band-bot")
        user = await client.find_or_create_user("band-bot", organization_id=org)
        again = await client.find_or_create_user("band-bot", organization_id=org)
    finally:
        await client.aclose()
    assert org == "org-old"
    assert user == again == "users-1"
    assert api.posts == [("users", {"name": "band-bot", "organization_id": "org-old"})]


def test_the_send_tools_are_named_as_both_mcp_surfaces_name_them() -> None:
    assert SEND_MESSAGE_TOOL_NAMES == ("band_send_message", "create_agent_chat_message")
    assert SEND_EVENT_TOOL_NAMES == ("band_send_event", "create_agent_chat_event")
    rules = render_tool_enforcement("create_agent_chat_message", event_tool="band_send_event")
    assert "`create_agent_chat_message`" in rules and "`band_send_event`" in rules
