"""Headers, cookies and CSRF checks shared by every web response."""

from __future__ import annotations

import hmac
import secrets

from starlette.requests import Request
from starlette.responses import Response

from ..services.identity.web_sessions import COOKIE_NAME, LIFETIME

# Before sign-in there is no session, so the sign-in form uses a double-submit cookie.
LOGIN_CSRF_COOKIE = "band_login_csrf"

# Scripts and styles only from the app's own files: no inline script, style or handler, no
# eval (tests/browser fails on any violation the pages report).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def secure_headers(response: Response) -> Response:
    """Add the security headers every web response carries."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def tokens_match(expected: str | None, given: str | None) -> bool:
    """Constant-time comparison; a missing token never matches."""
    if not expected or not given:
        return False
    return hmac.compare_digest(expected.encode(), given.encode())


def new_login_csrf() -> str:
    return secrets.token_urlsafe(24)


def _is_https(request: Request) -> bool:
    return request.url.scheme == "https"


def set_session_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        COOKIE_NAME,
        token,
        max_age=int(LIFETIME.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=_is_https(request),
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE_NAME, path="/", httponly=True, samesite="lax")


def set_login_csrf_cookie(response: Response, request: Request, value: str) -> None:
    response.set_cookie(
        LOGIN_CSRF_COOKIE,
        value,
        max_age=3600,
        httponly=True,
        samesite="strict",
        secure=_is_https(request),
        path="/",
    )
