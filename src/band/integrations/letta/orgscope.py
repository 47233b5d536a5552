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

__all__ = ["LettaOrgScopeClient", "resolve_org_scoped_headers"]

logger = logging.getLogger("band.integrations.letta")
ADMIN = "/v1/admin"
LIST_LIMIT = 1000


class LettaOrgScopeClient:
    """Finds or creates organizations and users through a self-hosted Letta's admin API.

    Lookups list the collection and pick the oldest exact match, so every start of the
    same agent lands on the same organization and user; only a miss creates one.
    """

    def __init__(
        self,
        *,
        base_url: str,
        bearer_token: str | None,
        timeout_s: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {bearer_token}"} if bearer_token else {}
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout_s, transport=transport
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def find_or_create_organization(self, name: str) -> str:
        """The id of the organization called ``name`` (created when there is none)."""
        org = await self._find_or_create(f"{ADMIN}/orgs/", {"name": name}, ("name",))
        return str(org["id"])

    async def find_or_create_user(self, name: str, *, organization_id: str) -> str:
        """The id of the user called ``name`` in that organization (created when absent)."""
        fields = {"name": name, "organization_id": organization_id}
        user = await self._find_or_create(f"{ADMIN}/users/", fields, ("name", "organization_id"))
        return str(user["id"])

    async def _find_or_create(
        self, path: str, fields: dict[str, Any], keys: tuple[str, ...]
    ) -> dict[str, Any]:
        listed = await self._http.get(path, params={"limit": LIST_LIMIT})
        listed.raise_for_status()
        matches = [i for i in listed.json() if all(i.get(k) == fields[k] for k in keys)]
        if matches:  # the oldest, so every start picks the same one
            return min(matches, key=lambda i: (str(i.get("created_at") or ""), str(i["id"])))
        created = await self._http.post(path, json=fields)
        created.raise_for_status()
        item: dict[str, Any] = created.json()
        kind = path.rstrip("/").rsplit("/", 1)[-1]
        logger.info("Letta %s %s created (%s)", kind, fields["name"], item["id"])
        return item


async def resolve_org_scoped_headers(
    *, base_url: str, agent_name: str, bearer_token: str | None
) -> dict[str, str]:
    """``{"user_id": ...}`` for this agent's Letta user (created with its organization)."""
    if not agent_name.strip():
        raise ValueError("agent_name must not be blank: it names the agent's Letta organization")
    name = f"band-{agent_name}"
    client = LettaOrgScopeClient(base_url=base_url, bearer_token=bearer_token)
    try:
        org_id = await client.find_or_create_organization(name)
        user_id = await client.find_or_create_user(name, organization_id=org_id)
    finally:
        await client.aclose()
    return {"user_id": user_id}
