"""A Letta organization and user of one adapter's own, on a self-hosted server.

Letta keys MCP tool rows by (name, organization): two adapters on one server's default
organization would repoint each other's ``band_send_message`` at their own MCP server.
Each adapter therefore works as a user of an organization named after its Band agent,
created through Letta's admin API (``/v1/admin/orgs/``, ``/v1/admin/users/``), and sends
that user's id in every request (the ``user_id`` header).
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

__all__ = ["resolve_org_scoped_headers"]

logger = logging.getLogger("band.integrations.letta")
ADMIN = "/v1/admin"
LIST_LIMIT = 1000


async def resolve_org_scoped_headers(
    *, base_url: str, agent_name: str, bearer_token: str | None
) -> dict[str, str]:
    """``{"user_id": ...}`` for this agent's Letta user (created with its organization)."""
    headers = {"Authorization": f"Bearer {bearer_token}"} if bearer_token else {}
    name = f"band-{agent_name}"
    async with httpx.AsyncClient(
        base_url=base_url.rstrip("/"), headers=headers, timeout=30
    ) as http:
        org = await _find_or_create(http, f"{ADMIN}/orgs/", {"name": name}, ("name",))
        user = await _find_or_create(
            http,
            f"{ADMIN}/users/",
            {"name": name, "organization_id": org["id"]},
            ("name", "organization_id"),
        )
    return {"user_id": str(user["id"])}


async def _find_or_create(
    http: httpx.AsyncClient, path: str, fields: dict[str, Any], keys: tuple[str, ...]
) -> dict[str, Any]:
    listed = await http.get(path, params={"limit": LIST_LIMIT})
    listed.raise_for_status()
    matches = [i for i in listed.json() if all(i.get(k) == fields[k] for k in keys)]
    if matches:  # the oldest, so every start picks the same one
        return min(matches, key=lambda i: (str(i.get("created_at") or ""), str(i["id"])))
    created = await http.post(path, json=fields)
    created.raise_for_status()
    item: dict[str, Any] = created.json()
    logger.info(
        "Letta %s %s created (%s)", path.rstrip("/").rsplit("/", 1)[-1], fields["name"], item["id"]
    )
    return item
