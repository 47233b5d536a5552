"""Agents: the person's agents, Connect remote agent, Regenerate API key, Delete."""

from __future__ import annotations

from json import dumps
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from band_protocol import AgentRegistered

from ..services.identity import agents as registry
from ..services.identity.web_sessions import SignedIn
from ..services.unit import write
from .render import page
from .respond import Form, action, done, field, platform_of, view, wants_json

router = APIRouter()

CONFIG_KEY = "my_agent"
"""The ``agent_config.yaml`` key the documentation's code loads."""


def tags_of(text: str) -> list[str]:
    return [t for t in text.split(",") if t.strip()]


def credentials(created: AgentRegistered, title: str) -> dict[str, Any]:
    """What the key dialog shows, once: the ID, the API key and the ready config entry."""
    agent_id, key = created.agent.id, created.credentials.api_key
    return {
        "title": title,
        "name": created.agent.name,
        "agent_id": agent_id,
        "api_key": key,
        # JSON strings are YAML strings: the entry is quoted exactly like the documentation's.
        "config": f"{CONFIG_KEY}:\n  agent_id: {dumps(agent_id)}\n  api_key: {dumps(key)}\n",
    }


@router.get("/agents")
async def agents_page(request: Request) -> Response:
    """The person's agents with handle, description, tags and online status."""

    async def run(me: SignedIn) -> Response:
        platform = platform_of(request)
        async with platform.db.read() as session:
            agents = await registry.owned_agents(session, me.person)
        return page(
            "agents.html", me, section="agents", agents=agents, online=platform.presence.is_online
        )

    return await view(request, run)


@router.post("/agents")
async def connect_agent(request: Request) -> Response:
    """Connect Agent: create the agent; the answer shows its key this once."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            created = await registry.register_agent(
                uow.session,
                me.person,
                name=field(form, "name"),
                description=field(form, "description"),
                handle=field(form, "handle") or None,
                tags=tags_of(field(form, "tags")),
            )
        shown = credentials(created, "Agent Created Successfully!")
        return done(request, "/agents", shown, 201) if wants_json(request) else _shown(me, shown)

    return await action(request, run)


@router.post("/agents/{agent_id}/regenerate-key")
async def regenerate_key(request: Request, agent_id: str) -> Response:
    """Replace the agent's key: the old one stops working at once; the new one is shown once."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            created = await registry.regenerate_key(uow, me.person, agent_id)
        shown = credentials(created, "New API key")
        return done(request, "/agents", shown) if wants_json(request) else _shown(me, shown)

    return await action(request, run)


@router.post("/agents/{agent_id}/delete")
async def delete_agent(request: Request, agent_id: str) -> Response:
    """Delete the agent: it leaves every room and its key stops working."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            await registry.delete_agent(uow, me.person, agent_id)
        return done(request, "/agents")

    return await action(request, run)


def _shown(me: SignedIn, shown: dict[str, Any]) -> Response:
    """Without the script, the key is shown on a page of its own (the key is never stored)."""
    return page("agent_key.html", me, section="agents", shown=shown)
