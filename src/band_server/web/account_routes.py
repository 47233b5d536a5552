"""The person's account: their sessions (browser, last use; end one, or sign out everywhere)
and their password (change it: the other sessions end)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..services.identity import session_devices
from ..services.identity.passwords import MIN_CHARS, change_password
from ..services.identity.web_sessions import COOKIE_NAME, SignedIn
from ..services.unit import write
from .render import page
from .respond import Form, action, field, platform_of, redirect, view
from .security import clear_session_cookie

router = APIRouter()
NOTICES = {
    "changed": "Your password is changed. Your other sessions were signed out.",
    "ended": "That session is signed out.",
}


@router.get("/account")
async def account_page(request: Request) -> Response:
    """Sessions and password."""

    async def run(me: SignedIn) -> Response:
        async with platform_of(request).db.read() as session:
            devices = await session_devices.list_devices(
                session, me.person, request.cookies.get(COOKIE_NAME)
            )
        notice = NOTICES.get(request.query_params.get("notice", ""))
        return page(
            "account.html",
            me,
            section="account",
            devices=devices,
            notice=notice,
            error=None,
            min_chars=MIN_CHARS,
        )

    return await view(request, run)


@router.post("/account/password")
async def new_password(request: Request) -> Response:
    """Change the password (the current one first); every other session ends."""

    async def run(me: SignedIn, form: Form) -> Response:
        token = request.cookies.get(COOKIE_NAME)
        async with write(platform_of(request)) as uow:
            await change_password(
                uow.session, me.person, field(form, "current_password"), field(form, "new_password")
            )
            await session_devices.end_all(uow.session, me.person.id, keep=token)
        return redirect("/account?notice=changed")

    return await action(request, run)


@router.post("/account/sessions/{device_id}/end")
async def end_session(request: Request, device_id: str) -> Response:
    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            await session_devices.end_device(uow.session, me.person, device_id)
        return redirect("/account?notice=ended")

    return await action(request, run)


@router.post("/account/sessions/end-all")
async def sign_out_everywhere(request: Request) -> Response:
    """End every session of the person, this one too."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            await session_devices.end_all(uow.session, me.person.id)
        response = redirect("/login")
        clear_session_cookie(response)
        return response

    return await action(request, run)
