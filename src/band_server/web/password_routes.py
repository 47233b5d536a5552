"""Signing in with email and password; joining through an invitation; resetting a password
(a mailed or admin-issued link). Forms before sign-in carry the double-submit CSRF cookie of
the sign-in form. Every failed sign-in gets the same words (services.identity.passwords.WRONG)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from ..errors import ApiError, Unauthorized
from ..services.identity import account_links, mailer, session_devices
from ..services.identity.accounts import user_principal
from ..services.identity.passwords import check_password
from ..services.identity.web_sessions import start_session
from ..services.unit import write
from ..store.models import User
from .render import page
from .respond import field, platform_of, read_form, redirect
from .security import (
    LOGIN_CSRF_COOKIE,
    new_login_csrf,
    set_login_csrf_cookie,
    set_session_cookie,
    tokens_match,
)
from .sign_in_guard import blocked, count, identifiers

router = APIRouter()
log = logging.getLogger(__name__)
EXPIRED_FORM = "The form expired or came from another site. Try again."
SENT = "If that email has an account here, a link to reset its password is on its way."


def bare(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    """A page for someone not signed in, with the sign-in form's CSRF cookie."""
    token = request.cookies.get(LOGIN_CSRF_COOKIE) or new_login_csrf()
    sso = bool(platform_of(request).settings.oidc_issuer)
    response = page(template, None, status=status, csrf=token, sso=sso, **context)
    set_login_csrf_cookie(response, request, token)
    return response


def link_base(request: Request) -> str:
    """Where links in mails and on pages start: ``BAND_WEB_URL``, else this request's site."""
    return platform_of(request).settings.web_url or str(request.base_url).rstrip("/")


def form_ok(request: Request, form: dict[str, list[str]]) -> bool:
    return tokens_match(request.cookies.get(LOGIN_CSRF_COOKIE), field(form, "csrf"))


async def signed_in_as(request: Request, token: str, to: str = "/rooms") -> Response:
    response = redirect(to)
    set_session_cookie(response, request, token)
    response.delete_cookie(LOGIN_CSRF_COOKIE, path="/")
    return response


@router.post("/login/password")
async def login_with_password(request: Request) -> Response:
    """Email and password for a session cookie; failures limited per address and email."""
    form = await read_form(request)
    email = field(form, "email")
    if not form_ok(request, form):
        return bare(request, "login.html", 403, error=EXPIRED_FORM, email=email)
    ids = identifiers(request, email)
    wait = await blocked(request, ids)
    if wait is not None:
        refused = bare(
            request, "login.html", 429, error=f"Too many tries. Try again in {wait} s.", email=email
        )
        refused.headers["Retry-After"] = str(wait)
        return refused
    try:
        async with write(platform_of(request)) as uow:
            person = await check_password(uow.session, email, field(form, "password"))
            token, _ = await start_session(uow.session, person)
            await session_devices.record(uow.session, token, request.headers.get("user-agent"))
    except Unauthorized as exc:
        await count(request, ids)
        return bare(request, "login.html", 401, error=exc.message, email=email)
    return await signed_in_as(request, token)


@router.get("/forgot")
async def forgot_form(request: Request) -> Response:
    mail = bool(platform_of(request).settings.smtp_url)
    return bare(request, "forgot.html", mail=mail, sent=False)


@router.post("/forgot")
async def forgot(request: Request) -> Response:
    """Mail a reset link when the email has an account; the answer is the same either way."""
    platform = platform_of(request)
    form = await read_form(request)
    if not form_ok(request, form) or not platform.settings.smtp_url:
        return bare(request, "forgot.html", 403, mail=bool(platform.settings.smtp_url), sent=False)
    email = field(form, "email")
    ids = identifiers(request, email)
    if await blocked(request, ids) is None:
        await count(request, ids)
        async with write(platform) as uow:
            user = await account_links.user_by_email(uow.session, email)
            token = await account_links.reset_for(uow.session, user, None) if user else None
        if user is not None and token is not None:
            subject, body = mailer.reset(f"{link_base(request)}/reset/{token}")
            settings = platform.settings
            try:
                await mailer.send_mail(
                    settings.smtp_url or "", settings.smtp_from, user.email, subject, body
                )
            except mailer.MailUnavailable as exc:  # the answer must not differ: only logged
                log.warning("password reset mail not sent: %s", exc.message)
    return bare(request, "forgot.html", mail=True, sent=True, notice=SENT)


async def _link_page(request: Request, kind: account_links.Kind, token: str) -> Response:
    template = "invite.html" if kind == "invite" else "reset.html"
    try:
        async with platform_of(request).db.read() as session:
            link = await account_links.open_link(session, kind, token)
    except ApiError as exc:
        return bare(request, "link_gone.html", exc.status_code, message=exc.message)
    return bare(request, template, token=token, email=link.email, error=None, values={})


@router.get("/invite/{token}")
async def invite_form(request: Request, token: str) -> Response:
    return await _link_page(request, "invite", token)


Redeem = Callable[[AsyncSession, dict[str, list[str]]], Awaitable[User]]


async def _through_link(
    request: Request, kind: account_links.Kind, token: str, values: dict[str, str], redeem: Redeem
) -> Response:
    """Use a link (``redeem`` in one write), then sign the person in with a new session; a
    used or expired link is the "link gone" page, a refused form comes back with its error."""
    template = "invite.html" if kind == "invite" else "reset.html"
    form = await read_form(request)
    if not form_ok(request, form):
        return bare(
            request, template, 403, token=token, email="", error=EXPIRED_FORM, values=values
        )
    try:
        async with write(platform_of(request)) as uow:
            user = await redeem(uow.session, form)
            session_token, _ = await start_session(uow.session, user_principal(user))
            await session_devices.record(
                uow.session, session_token, request.headers.get("user-agent")
            )
    except ApiError as exc:
        if exc.status_code == 404:
            return bare(request, "link_gone.html", 404, message=exc.message)
        async with platform_of(request).db.read() as session:
            link = await account_links.open_link(session, kind, token)
        return bare(
            request,
            template,
            exc.status_code,
            token=token,
            email=link.email,
            error=exc.message,
            values=values,
        )
    return await signed_in_as(request, session_token)


@router.post("/invite/{token}")
async def accept_invite(request: Request, token: str) -> Response:
    """Join: a name, a handle and a password for the invited email; then signed in."""
    form = await read_form(request)
    values = {k: field(form, k) for k in ("name", "handle")}

    async def redeem(session: AsyncSession, form: dict[str, list[str]]) -> User:
        return await account_links.accept_invite(
            session, token, password=field(form, "password"), **values
        )

    return await _through_link(request, "invite", token, values, redeem)


@router.get("/reset/{token}")
async def reset_form(request: Request, token: str) -> Response:
    return await _link_page(request, "reset", token)


@router.post("/reset/{token}")
async def reset(request: Request, token: str) -> Response:
    """A new password through a reset link: every session of the person ends; signed in anew."""

    async def redeem(session: AsyncSession, form: dict[str, list[str]]) -> User:
        user = await account_links.complete_reset(session, token, field(form, "password"))
        await session_devices.end_all(session, user.id)
        return user

    return await _through_link(request, "reset", token, {}, redeem)
