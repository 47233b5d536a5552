"""People's passwords: argon2id through ``argon2-cffi`` (its RFC 9106 low-memory profile),
stored in ``users.password_hash``; checks that never tell which emails exist.

Signing in with an unknown email still verifies a password against a dummy hash, so a wrong
email and a wrong password take the same time and get the same words.
"""

from __future__ import annotations

import asyncio

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.errors import Unauthorized, ValidationFailed
from band_server.services.identity.accounts import is_disabled, user_principal
from band_server.services.identity.principals import Principal
from band_server.store.models import User

MIN_CHARS = 10
MAX_CHARS = 1000
WRONG = "Wrong email or password."
"""The one answer to every failed sign-in (unknown email, wrong password, no password set,
disabled person)."""

_hasher = PasswordHasher()  # argon2id, t=3, m=64 MiB, p=4 (argon2-cffi's default profile)
_DUMMY = _hasher.hash("an unused password, verified when the email is unknown")


def check_policy(password: str, pointer: str = "/password") -> None:
    """A 422 naming what is wrong with a new password (its length), else nothing."""
    if len(password) < MIN_CHARS:
        raise ValidationFailed(
            f"The password must be at least {MIN_CHARS} characters", {pointer: ["is too short"]}
        )
    if len(password) > MAX_CHARS:
        raise ValidationFailed(
            f"The password must be at most {MAX_CHARS} characters", {pointer: ["is too long"]}
        )


async def hash_password(password: str) -> str:
    """The argon2id hash of a password that passed the policy (hashed off the event loop)."""
    check_policy(password)
    return await asyncio.to_thread(_hasher.hash, password)


async def _verify(stored: str, password: str) -> bool:
    def run() -> bool:
        try:
            return _hasher.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(run)


async def set_password(session: AsyncSession, user: User, password: str) -> None:
    user.password_hash = await hash_password(password)
    await session.flush()


async def check_password(session: AsyncSession, email: str, password: str) -> Principal:
    """The person with this email and password, or 401 with :data:`WRONG`."""
    address = email.strip().lower()
    user = await session.scalar(select(User).where(User.email == address)) if address else None
    stored = user.password_hash if user is not None else None
    matches = await _verify(stored or _DUMMY, password[:MAX_CHARS])
    if user is None or stored is None or not matches or is_disabled(user):
        raise Unauthorized(WRONG)
    if _hasher.check_needs_rehash(stored):
        user.password_hash = await asyncio.to_thread(_hasher.hash, password)
    return user_principal(user)


async def change_password(session: AsyncSession, person: Principal, current: str, new: str) -> None:
    """Replace the person's password after checking the current one (422 when it is wrong)."""
    user = await session.get(User, person.id)
    if user is None or not user.password_hash or not await _verify(user.password_hash, current):
        raise ValidationFailed(
            "The current password is not right", {"/current_password": ["is wrong"]}
        )
    check_policy(new, "/new_password")
    await set_password(session, user, new)
