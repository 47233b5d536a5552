"""The web app's routes: server-rendered pages, plain forms, and two static files."""

from __future__ import annotations

from functools import cache
from importlib import resources
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from band.protocol.messages import MessageCreateFields

from ..context import Platform
from ..errors import ApiError, Unauthorized
from ..services import accounts, messages, posting, rooms
from ..services.unit import write
from ..services.web_sessions import COOKIE_NAME, SignedIn, end_session, signed_in, start_session
from . import pages
from .security import (
    LOGIN_CSRF_COOKIE,
    clear_session_cookie,
    new_login_csrf,
    secure_headers,
    set_login_csrf_cookie,
    set_session_cookie,
    tokens_match,
)

router = APIRouter(include_in_schema=False)

MAX_FORM_BYTES = 256 * 1024
TIMELINE_LIMIT = 100
STATIC_TYPES = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}


def _platform(request: Request) -> Platform:
    platform: Platform = request.app.state.platform
    return platform


def html(content: str, status: int = 200) -> Response:
    return secure_headers(HTMLResponse(content, status_code=status))


def redirect(to: str) -> Response:
    # 303: the browser follows a form POST with a GET.
    return secure_headers(RedirectResponse(to, status_code=303))


async def _session(request: Request) -> SignedIn | None:
    async with _platform(request).db.read() as session:
        return await signed_in(session, request.cookies.get(COOKIE_NAME))


async def _form(request: Request) -> dict[str, str]:
    """A urlencoded form body (first value of each field); oversized bodies count as empty."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return {}
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {name: values[0] for name, values in parsed.items()}


def _error(status: int, message: str, me: SignedIn | None) -> Response:
    person, csrf = (me.person, me.csrf_token) if me else (None, "")
    return html(pages.error_page(status, message, person, csrf), status)


def _login(request: Request, error: str | None = None, status: int = 200) -> Response:
    token = request.cookies.get(LOGIN_CSRF_COOKIE) or new_login_csrf()
    response = html(pages.login_page(token, error), status)
    set_login_csrf_cookie(response, request, token)
    return response


@router.get("/")
async def home(request: Request) -> Response:
    """The person's rooms, or the sign-in form."""
    me = await _session(request)
    if me is None:
        return _login(request)
    async with _platform(request).db.read() as session:
        found, _ = await rooms.list_rooms(session, me.person, page_size=200)
    return html(pages.rooms_page(me.person, me.csrf_token, found))


@router.get("/login")
async def login_form(request: Request) -> Response:
    if await _session(request) is not None:
        return redirect("/")
    return _login(request)


@router.post("/login")
async def login(request: Request) -> Response:
    """Exchange a person's API key for a session cookie."""
    form = await _form(request)
    if not tokens_match(request.cookies.get(LOGIN_CSRF_COOKIE), form.get("csrf")):
        return _error(403, "The form expired or came from another site. Try again.", None)
    try:
        async with write(_platform(request)) as uow:
            person = await accounts.authenticate(uow.session, form.get("api_key", "").strip())
            if person.is_agent:
                raise Unauthorized("That is an agent's key; sign in with a person's key")
            token, _ = await start_session(uow.session, person)
    except Unauthorized as exc:
        return _login(request, exc.message, 401)
    response = redirect("/")
    set_session_cookie(response, request, token)
    response.delete_cookie(LOGIN_CSRF_COOKIE, path="/")
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    me = await _session(request)
    if me is None:
        return redirect("/")
    form = await _form(request)
    if not tokens_match(me.csrf_token, form.get("csrf")):
        return _error(403, "The form expired or came from another site.", me)
    async with write(_platform(request)) as uow:
        await end_session(uow.session, request.cookies.get(COOKIE_NAME))
    response = redirect("/")
    clear_session_cookie(response)
    return response


@router.get("/rooms/{room_id}")
async def room(request: Request, room_id: str) -> Response:
    """The room's latest messages and events, its participants and the post form."""
    me = await _session(request)
    if me is None:
        return redirect("/")
    try:
        async with _platform(request).db.read() as session:
            found = await rooms.room_for(session, me.person, room_id)
            roster = await rooms.members(session, found.id)
            page = await messages.list_messages(
                session, found, sort_order="desc", limit=TIMELINE_LIMIT
            )
    except ApiError as exc:
        return _error(exc.status_code, exc.message, me)
    items = list(reversed(page.items))
    return html(pages.room_page(me.person, me.csrf_token, found, items, roster))


@router.post("/rooms/{room_id}/messages")
async def post(request: Request, room_id: str) -> Response:
    """Post the form's text as the signed-in person, then show the room again."""
    me = await _session(request)
    if me is None:
        return _error(403, "Sign in first.", None)
    form = await _form(request)
    if not tokens_match(me.csrf_token, form.get("csrf")):
        return _error(403, "The form expired or came from another site.", me)
    try:
        fields = MessageCreateFields(content=form.get("content", ""))
    except ValidationError:
        return _error(422, "The message is too long.", me)
    try:
        async with write(_platform(request)) as uow:
            found = await rooms.room_for(uow.session, me.person, room_id)
            await posting.post_as_person(uow, me.person, found, fields)
    except ApiError as exc:
        return _error(exc.status_code, exc.message, me)
    return redirect(f"/rooms/{found.id}")


@cache
def _static(name: str) -> bytes:
    return resources.files("band_server.web").joinpath("static", name).read_bytes()


@router.get("/static/{name}")
async def static(name: str) -> Response:
    if name not in STATIC_TYPES:
        return html("Not found", 404)
    response = Response(_static(name), media_type=STATIC_TYPES[name])
    response.headers["Cache-Control"] = "no-cache"
    return secure_headers(response)
