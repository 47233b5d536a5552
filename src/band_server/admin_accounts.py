"""Accounts from the command line (``band users create --password-prompt``, ``band users
invite``): the operator's side of services.identity.passwords and
services.identity.account_links."""

from __future__ import annotations

from .admin import AdminError, open_platform
from .config import Settings
from .errors import ApiError
from .services.identity import account_links, accounts, passwords
from .services.unit import write


def check_policy(password: str) -> None:
    """An AdminError naming what the password policy refuses, else nothing."""
    try:
        passwords.check_policy(password)
    except ApiError as exc:
        raise AdminError(exc.message) from exc


async def set_password(settings: Settings, user_id: str, password: str) -> None:
    """Give a person a password (argon2id); a password the policy refuses is an AdminError."""
    try:
        passwords.check_policy(password)
        async with open_platform(settings) as platform, write(platform) as uow:
            await passwords.set_password(
                uow.session, await accounts.get_user(uow.session, user_id), password
            )
    except ApiError as exc:
        raise AdminError(exc.message) from exc


async def invite(settings: Settings, email: str) -> str:
    """An invitation link for ``email`` (from the operator); the full URL."""
    base = (settings.web_url or settings.public_url).rstrip("/")
    try:
        async with open_platform(settings) as platform, write(platform) as uow:
            token = await account_links.invite_by_operator(uow.session, email)
    except ApiError as exc:
        raise AdminError(exc.message) from exc
    return f"{base}/invite/{token}"
