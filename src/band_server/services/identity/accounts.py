"""People, agents and their API keys."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import AgentMe, iso, utcnow
from band_server.errors import Conflict, NotFound, Unauthorized, ValidationFailed
from band_server.services.identity.keys import hash_key, key_prefix, new_key
from band_server.services.identity.principals import Principal
from band_server.store.db import Database
from band_server.store.models import Agent, ApiKey, Base, User

AGENT_NAME = re.compile(r"^[A-Za-z0-9 ]{3,24}$")
USER_HANDLE = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,39}$")
EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,190}$")


def local_mailbox(handle: str) -> str:
    """The address a person gets when none is given (the demo, tests, the bootstrap admin)."""
    return f"{handle.lower()}@localhost"


def normalise_email(email: str) -> str:
    """A trimmed, lower-cased address, or 422 ``/user/email``."""
    address = email.strip().lower()
    if len(address) > 200 or not EMAIL.match(address):
        raise ValidationFailed("email is not an address", {"/user/email": ["is invalid"]})
    return address


AGENT_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$")
AGENT_TAG = re.compile(r"^[\w][\w .+#-]{0,23}$")
MAX_TAGS = 5


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "agent"


async def issue_key(session: AsyncSession, kind: str, principal_id: str) -> str:
    """Create a key for a principal and return the plain key (the only time it exists)."""
    key = new_key(kind)
    session.add(
        ApiKey(
            key_hash=hash_key(key),
            prefix=key_prefix(key),
            principal_type=kind,
            principal_id=principal_id,
        )
    )
    return key


async def revoke_keys(session: AsyncSession, principal_id: str) -> None:
    await session.execute(
        update(ApiKey)
        .where(ApiKey.principal_id == principal_id, ApiKey.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )


async def create_user(
    session: AsyncSession,
    *,
    name: str,
    handle: str,
    email: str | None = None,
    is_admin: bool = False,
) -> tuple[User, str]:
    """A person and their first API key. The first person on a platform is its admin."""
    handle = handle.lower()
    if not USER_HANDLE.match(handle):
        raise ValidationFailed(
            "handle must be 2-40 lowercase letters, digits, '.', '_' or '-'",
            {"/user/handle": ["is invalid"]},
        )
    if not name.strip():
        raise ValidationFailed("name can't be blank", {"/user/name": ["can't be blank"]})
    if await session.scalar(select(User.id).where(User.handle == handle)):
        raise Conflict(f"handle '{handle}' is taken", code="handle_taken")
    address = normalise_email(email) if email is not None else local_mailbox(handle)
    if await session.scalar(select(User.id).where(User.email == address)):
        raise Conflict(f"email '{address}' is taken", code="email_taken")
    first = await session.scalar(select(User.id).limit(1)) is None
    role = "admin" if is_admin or first else "user"
    user = User(name=name.strip(), handle=handle, email=address, role=role)
    session.add(user)
    await session.flush()
    return user, await issue_key(session, "user", user.id)


def agent_tags(tags: Sequence[str]) -> list[str]:
    """Trimmed, de-duplicated (case-insensitively) tags, or 422 ``/agent/tags``."""
    out: dict[str, str] = {}
    for tag in tags:
        tag = " ".join(tag.split())
        if tag:
            out.setdefault(tag.lower(), tag)
    if len(out) > MAX_TAGS or not all(AGENT_TAG.match(t) for t in out.values()):
        raise ValidationFailed(
            "tags are invalid",
            {"/agent/tags": [f"up to {MAX_TAGS} tags of 1 to 24 letters, digits or spaces"]},
        )
    return list(out.values())


async def _agent_handle(session: AsyncSession, owner: User, name: str, wanted: str | None) -> str:
    """``owner/slug``: the slug asked for (409 when taken), else one made from the name."""
    if wanted is not None and wanted.strip():
        want = wanted.strip().lower().removeprefix(f"{owner.handle}/")
        if not AGENT_SLUG.match(want):
            raise ValidationFailed(
                "handle is invalid",
                {"/agent/handle": ["must be 1 to 40 lowercase letters, digits or '-'"]},
            )
        handle = f"{owner.handle}/{want}"
        if await session.scalar(select(Agent.id).where(Agent.handle == handle)):
            raise Conflict(f"handle '{handle}' is taken", code="handle_taken")
        return handle
    return await free_handle(session, Agent, f"{owner.handle}/{slug(name)}", "-")


async def free_handle(
    session: AsyncSession, model: type[Agent] | type[User], base: str, sep: str = ""
) -> str:
    """``base`` if no row of ``model`` holds it as its handle, else the first free one of
    ``base<sep>2``, ``base<sep>3``, ..."""
    handle, n = base, 1
    while await session.scalar(select(model.id).where(model.handle == handle)):
        n += 1
        handle = f"{base}{sep}{n}"
    return handle


async def create_agent(
    session: AsyncSession,
    owner: User,
    *,
    name: str,
    description: str,
    handle: str | None = None,
    tags: Sequence[str] = (),
) -> tuple[Agent, str]:
    """A new agent of ``owner`` and its first key. ``handle`` is the part after ``owner/``."""
    name = name.strip()
    description = description.strip()
    errors: dict[str, list[str]] = {}
    if not AGENT_NAME.match(name):
        errors["/agent/name"] = ["must be 3 to 24 letters, digits or spaces"]
    if len(description) < 10:
        errors["/agent/description"] = ["must be at least 10 characters"]
    if errors:
        raise ValidationFailed("agent is invalid", errors)
    clean_tags = agent_tags(tags)
    agent = Agent(
        owner_id=owner.id,
        name=name,
        handle=await _agent_handle(session, owner, name, handle),
        description=description,
        tags=clean_tags,
    )
    session.add(agent)
    await session.flush()
    return agent, await issue_key(session, "agent", agent.id)


async def regenerate_agent_key(session: AsyncSession, agent: Agent) -> str:
    await revoke_keys(session, agent.id)
    return await issue_key(session, "agent", agent.id)


MISSING_KEY = "Missing API key (send it in the X-API-Key header)"
BAD_KEY = "Invalid or revoked API key"
_KEYS = Base.metadata.tables[ApiKey.__tablename__]
_AGENTS = Base.metadata.tables[Agent.__tablename__]
_USERS = Base.metadata.tables[User.__tablename__]
# Built once (bound per call: SQLAlchemy's compiled cache, no cache key built per request):
# the live key and the principal it belongs to, in one statement.
_PRINCIPAL_OF_KEY = (
    select(
        _KEYS.c.principal_type,
        _KEYS.c.principal_id,
        _AGENTS.c.name,
        _AGENTS.c.handle,
        _AGENTS.c.owner_id,
        _AGENTS.c.deleted_at,
        _USERS.c.name,
        _USERS.c.handle,
        _USERS.c.disabled_at,
    )
    .select_from(_KEYS)
    .outerjoin(
        _AGENTS, and_(_KEYS.c.principal_type == "agent", _AGENTS.c.id == _KEYS.c.principal_id)
    )
    .outerjoin(_USERS, and_(_KEYS.c.principal_type == "user", _USERS.c.id == _KEYS.c.principal_id))
    .where(_KEYS.c.key_hash == bindparam("key_hash"), _KEYS.c.revoked_at.is_(None))
)


async def authenticate(session: AsyncSession, key: str | None) -> Principal:
    """Resolve a plain API key to a principal, or raise 401 (see :func:`principal_of_row`)."""
    if not key:
        raise Unauthorized(MISSING_KEY)
    row = (await session.execute(_PRINCIPAL_OF_KEY, {"key_hash": hash_key(key)})).first()
    return principal_of_row(None if row is None else tuple(row))


async def authenticate_key(db: Database, key: str | None) -> Principal:
    """:func:`authenticate` on the hot paths (every socket upgrade, a request's cache miss):
    one read of the latest committed rows, without a session (``Database.peek``)."""
    if not key:
        raise Unauthorized(MISSING_KEY)
    return principal_of_row(await db.peek(_PRINCIPAL_OF_KEY, {"key_hash": hash_key(key)}))


_AGENT_ME = select(
    _AGENTS.c.name,
    _AGENTS.c.handle,
    _AGENTS.c.description,
    _AGENTS.c.owner_id,
    _AGENTS.c.deleted_at,
    _AGENTS.c.created_at,
    _AGENTS.c.updated_at,
).where(_AGENTS.c.id == bindparam("agent_id"))


async def agent_me(db: Database, agent: Principal, feature_flags: dict[str, bool]) -> AgentMe:
    """The calling agent as ``GET /agent/me`` shows it (one read, without a session); 401 for
    an agent deleted since its key was checked."""
    row = await db.peek(_AGENT_ME, {"agent_id": agent.id})
    if row is None or row[4] is not None:
        raise Unauthorized(BAD_KEY)
    name, handle, description, owner_id, _deleted, created_at, updated_at = row
    return AgentMe(
        id=agent.id,
        name=name,
        handle=handle,
        description=description,
        owner_uuid=owner_id,
        feature_flags=dict(feature_flags),
        inserted_at=iso(created_at),
        updated_at=iso(updated_at),
    )


def principal_of_row(row: tuple[Any, ...] | None) -> Principal:
    """The principal of a live key's row; 401 for an unknown or revoked key, a deleted
    agent's, a disabled person's."""
    if row is None:
        raise Unauthorized(BAD_KEY)
    kind, principal_id, a_name, a_handle, owner_id, deleted_at, u_name, u_handle, disabled = row
    if kind == "agent":
        if a_name is None or deleted_at is not None:
            raise Unauthorized(BAD_KEY)
        return Principal("agent", principal_id, a_name, a_handle, owner_id=owner_id)
    if kind != "user" or u_name is None or disabled is not None:
        raise Unauthorized(BAD_KEY)
    return Principal("user", principal_id, u_name, u_handle)


def is_disabled(user: User) -> bool:
    """A disabled person's keys and sessions are refused."""
    return user.disabled_at is not None


def agent_principal(agent: Agent) -> Principal:
    return Principal("agent", agent.id, agent.name, agent.handle, owner_id=agent.owner_id)


def user_principal(user: User) -> Principal:
    return Principal("user", user.id, user.name, user.handle)


async def get_user(session: AsyncSession, user_id: str) -> User:
    user = await session.get(User, user_id)
    if user is None:
        raise NotFound("User not found")
    return user


async def owned_agent(session: AsyncSession, owner_id: str, agent_id: str) -> Agent:
    """An agent the person owns, or 404 (never reveal another owner's agent)."""
    agent = await session.get(Agent, agent_id)
    if agent is None or agent.owner_id != owner_id or agent.deleted_at is not None:
        raise NotFound("Agent not found")
    return agent
