"""Failed password sign-ins count against the platform's sign-in limit
(``platform.sign_in_limit``, ``BAND_SIGN_IN_FAILURES``) twice: per client address (shared with
the API-key form) and per email; past either, the form answers 429 with ``Retry-After``
before the password is even checked."""

from __future__ import annotations

from fastapi import Request

from .respond import platform_of


def identifiers(request: Request, email: str) -> tuple[str, str]:
    client = request.client.host if request.client else "unknown"
    return client, f"email:{email.strip().lower()[:200]}"


async def blocked(request: Request, identifiers: tuple[str, ...]) -> int | None:
    """Seconds to wait when the address or the email used up its window, else None."""
    limit = platform_of(request).sign_in_limit
    for identifier in identifiers:
        wait = await limit.blocked(identifier)
        if wait is not None:
            return wait
    return None


async def count(request: Request, identifiers: tuple[str, ...]) -> None:
    """Count one failure for the address and the email."""
    for identifier in identifiers:
        await platform_of(request).sign_in_limit.count(identifier)
