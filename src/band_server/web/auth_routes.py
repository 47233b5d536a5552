"""Signing in with a person's API key (for automation, behind a link on the sign-in page),
and signing out. Email and password: ``password_routes``."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import Unauthorized
from ..services.identity import accounts, session_devices
from ..services.identity.web_sessions import COOKIE_NAME, end_session, start_session
from ..services.unit import write
from .password_routes import form_ok, signed_in_as
from .render import page
from .respond import csrf_ok, field, forbidden_form, platform_of, read_form, redirect, session_of
from .security import (
    LOGIN_CSRF_COOKIE,
    clear_session_cookie,
    new_login_csrf,
    set_login_csrf_cookie,
)

router = APIRouter()


def _login(
    request: Request, error: str | None = None, status: int = 200, mode: str = "key"
) -> Response:
    """The sign-in page: email and password, or (``mode="key"``, ``?with=key``) an API key."""
    token = request.cookies.get(LOGIN_CSRF_COOKIE) or new_login_csrf()
    sso = bool(platform_of(request).settings.oidc_issuer)
    response = page("login.html", None, status=status, csrf=token, error=error, mode=mode, sso=sso)
    set_login_csrf_cookie(response, request, token)
    return response


@router.get("/")
async def home(request: Request) -> Response:
    """The person's rooms, or the sign-in form."""
    if await session_of(request) is None:
        return _login(request, mode="password")
    return redirect("/rooms")


@router.get("/login")
async def login_form(request: Request) -> Response:
    if await session_of(request) is not None:
        return redirect("/rooms")
    return _login(request, mode="key" if request.query_params.get("with") == "key" else "password")


@router.post("/login")
async def login(request: Request) -> Response:
    """Exchange a person's API key for a session cookie.

    A client address with too many failed attempts in the window (``sign_in_failures``) is
    answered 429 with ``Retry-After`` before its key is even looked at."""
    platform = platform_of(request)
    client = request.client.host if request.client else "unknown"
    wait = await platform.sign_in_limit.blocked(client)
    if wait is not None:
        refused = _login(request, f"Too many failed sign-ins. Try again in {wait} s.", 429)
        refused.headers["Retry-After"] = str(wait)
        return refused
    form = await read_form(request)
    if not form_ok(request, form):
        return _login(request, "The form expired or came from another site. Try again.", 403)
    try:
        async with write(platform) as uow:
            person = await accounts.authenticate(uow.session, field(form, "api_key").strip())
            if person.is_agent:
                raise Unauthorized("That is an agent's key; sign in with a person's key")
            token, _ = await start_session(uow.session, person)
            await session_devices.record(uow.session, token, request.headers.get("user-agent"))
    except Unauthorized as exc:
        await platform.sign_in_limit.count(client)
        return _login(request, exc.message, 401)
    return await signed_in_as(request, token)


@router.post("/logout")
async def logout(request: Request) -> Response:
    me = await session_of(request)
    if me is None:
        return redirect("/")
    if not csrf_ok(request, me, await read_form(request)):
        return forbidden_form(request, me)
    async with write(platform_of(request)) as uow:
        await end_session(uow.session, request.cookies.get(COOKIE_NAME))
    response = redirect("/")
    clear_session_cookie(response)
    return response
