"""Administrative operations on a platform's database, without a running server.

``band users create``, ``band agents create``, ``band rooms create`` and ``band send`` call
these. Each opens the database (migrating it to the newest schema first), does one unit of
work and closes it again. Broadcasts go to the configured bus: with Redis they reach running
nodes; with the in-process default, connected agents catch up through ``/next``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from band_protocol import MessageSentResponse
from band_protocol.messages import MessageCreateFields

from .config import Settings
from .context import Platform
from .errors import ApiError, Conflict, NotFound, ValidationFailed
from .realtime.hub import Hub
from .services.identity import accounts
from .services.identity.parties import Party, party_by_handle
from .services.identity.principals import Principal
from .services.messages import person_posts as posting
from .services.rooms import membership as rooms
from .services.rooms.invites import new_room_title
from .services.unit import write
from .store.db import Database
from .store.migrate import upgrade
from .store.models import User


class AdminError(Exception):
    """A refused admin command; the message is fit to print as is."""


@dataclass(frozen=True)
class Created:
    """A new person or agent and its API key (the only time the key exists in plain)."""

    id: str
    handle: str
    api_key: str
    role: str = "user"  # people: "admin" or "user"; agents: "agent"


@asynccontextmanager
async def open_platform(settings: Settings) -> AsyncIterator[Platform]:
    """The database (migrated) and the configured bus, for the length of one command."""
    from .app import make_bus  # the app module pulls in every router; import it only here

    if settings.database_url is None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.resolved_database_url)
    hub = Hub()
    bus = make_bus(settings)
    try:
        await upgrade(db.engine)
        await bus.start(hub.deliver)
        yield Platform(settings=settings, db=db, bus=bus, hub=hub, started=True)
    except ApiError as exc:
        raise AdminError(exc.message) from exc
    finally:
        await bus.stop()
        await db.dispose()


def _principal(party: Party) -> Principal:
    if party.type == "Agent":
        return Principal("agent", party.id, party.name, party.handle, owner_id=party.owner_id)
    return Principal("user", party.id, party.name, party.handle)


async def _party(platform: Platform, handle: str, *, person: bool = False) -> Party:
    async with platform.db.read() as session:
        party = await party_by_handle(session, handle)
    if party is None or (person and party.type != "User"):
        raise AdminError(f"no {'person' if person else 'person or agent'} with handle '{handle}'")
    return party


async def bootstrap_admin(settings: Settings, email: str | None = None) -> Created | None:
    """On a platform with no people yet, create the ``admin`` person (with ``email``, or the
    local mailbox ``admin@localhost``); otherwise do nothing."""
    async with open_platform(settings) as platform:
        return await ensure_admin(platform, email)


async def ensure_admin(platform: Platform, email: str | None = None) -> Created | None:
    """``bootstrap_admin`` on a platform already open (``band serve``, once it is started).
    Of nodes starting on one empty database at once, one makes the admin; the others find it
    there: their unit is refused by the unique handle, or (the admin committed between their
    count and their handle check) ``create_user`` finds the handle taken."""
    try:
        async with write(platform) as uow:
            if await uow.session.scalar(select(func.count()).select_from(User)):
                return None
            user, key = await accounts.create_user(
                uow.session, name="Admin", handle="admin", email=email, is_admin=True
            )
            return Created(user.id, user.handle, key, user.role)
    except IntegrityError:
        return None
    except Conflict as taken:
        if taken.code in {"handle_taken", "email_taken"}:
            return None
        raise


async def create_user(settings: Settings, name: str, handle: str, email: str) -> Created:
    """A person with an email; the first person on a platform becomes its admin."""
    async with open_platform(settings) as platform, write(platform) as uow:
        user, key = await accounts.create_user(uow.session, name=name, handle=handle, email=email)
        return Created(user.id, user.handle, key, user.role)


async def create_agent(settings: Settings, name: str, owner: str, description: str) -> Created:
    async with open_platform(settings) as platform:
        party = await _party(platform, owner, person=True)
        async with write(platform) as uow:
            user = await accounts.get_user(uow.session, party.id)
            agent, key = await accounts.create_agent(
                uow.session, user, name=name, description=description
            )
            return Created(agent.id, agent.handle, key, "agent")


async def create_room(
    settings: Settings, owner: str, title: str | None, add: Sequence[str] = ()
) -> str:
    """A room owned by ``owner`` with ``add`` (handles) in it; returns the room id."""
    async with open_platform(settings) as platform:
        actor = _principal(await _party(platform, owner))
        found = [await _party(platform, h) for h in add]
        guests = list({g.id: g for g in found if g.id != actor.id}.values())
        try:
            title = new_room_title(title, actor.name, [g.name for g in guests])
        except ValidationFailed as exc:
            raise AdminError(f"--title {exc.message}") from exc
        async with write(platform) as uow:
            room, broadcasts = await rooms.create_room(
                uow.session, actor, title=title, task_id=None
            )
            uow.emit(*broadcasts)
            for guest in guests:
                _, added = await rooms.add_participant(uow.session, actor, room, guest.id)
                uow.emit(*added)
            return room.id


async def send(settings: Settings, room_id: str, sender: str, text: str) -> MessageSentResponse:
    """Post ``text`` into a room as a person; ``@handle`` in the text mentions participants."""
    async with open_platform(settings) as platform:
        person = _principal(await _party(platform, sender, person=True))
        async with write(platform) as uow:
            try:
                room = await rooms.room_for(uow.session, person, room_id)
            except NotFound as exc:
                raise AdminError(f"'{person.handle}' is not in a room with id {room_id}") from exc
            return await posting.post_as_person(
                uow, person, room, MessageCreateFields(content=text)
            )


def write_agent_config(path: Path, key: str, agent_id: str, api_key: str) -> None:
    """Add or replace ``key: {agent_id, api_key}`` in an ``agent_config.yaml``, keeping the
    other entries. The file is replaced atomically and readable by its owner only."""
    data: dict[str, Any] = {}
    if path.exists():
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise AdminError(f"{path} is not valid YAML: {exc}") from exc
        if loaded is not None and not isinstance(loaded, dict):
            raise AdminError(f"{path} does not hold a mapping of agents")
        data = dict(loaded or {})
    data[key] = {"agent_id": agent_id, "api_key": api_key}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yaml.safe_dump(data, fh, sort_keys=False)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def send_http(url: str, key: str, room_id: str, text: str) -> MessageSentResponse:
    """Post as the key's person through a running server (mentions come from ``@handles``)."""
    response = httpx.post(
        f"{url.rstrip('/')}/api/v1/me/chats/{room_id}/messages",
        headers={"X-API-Key": key},
        json={"message": {"content": text}},
        timeout=30,
    )
    if response.status_code >= 300:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = response.text
        raise AdminError(f"server answered {response.status_code}: {message}")
    return MessageSentResponse.model_validate(response.json()["data"])
