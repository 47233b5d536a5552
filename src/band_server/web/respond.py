"""Who is signed in, the form body, CSRF checks, and the answers every web route shares.

Every state-changing request carries the session's CSRF token, in the ``csrf`` form field
(plain forms and the script's ``fetch`` both send the form) or the ``X-CSRF-Token`` header.
A request that asks for JSON (``Accept: application/json``) gets JSON answers and error
envelopes; a plain form gets a redirect or an error page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from fastapi import Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from ..context import Platform
from ..errors import ApiError
from ..services.identity import session_devices
from ..services.identity.web_sessions import COOKIE_NAME, SignedIn, signed_in
from ..services.unit import write
from .render import page
from .security import secure_headers, tokens_match

MAX_FORM_BYTES = 256 * 1024


def platform_of(request: Request) -> Platform:
    platform: Platform = request.app.state.platform
    return platform


async def session_of(request: Request) -> SignedIn | None:
    """The person signed in with this request's cookie, or None; the session's last use is
    written at most every few minutes (``session_devices.due``)."""
    token = request.cookies.get(COOKIE_NAME)
    async with platform_of(request).db.read() as session:
        me = await signed_in(session, token)
    if me is not None and token and session_devices.due(token):
        async with write(platform_of(request)) as uow:
            await session_devices.touch(uow.session, token)
    return me


async def read_form(request: Request) -> dict[str, list[str]]:
    """A urlencoded form body (every value of each field); oversized bodies count as empty."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return {}
    return parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)


def field(form: dict[str, list[str]], name: str, default: str = "") -> str:
    values = form.get(name)
    return values[0] if values else default


def csrf_ok(request: Request, me: SignedIn, form: dict[str, list[str]]) -> bool:
    given = request.headers.get("x-csrf-token") or field(form, "csrf")
    return tokens_match(me.csrf_token, given)


def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def redirect(to: str) -> Response:
    # 303: the browser follows a form POST with a GET.
    return secure_headers(RedirectResponse(to, status_code=303))


def json(content: Any, status: int = 200) -> Response:
    return secure_headers(JSONResponse(content, status_code=status))


def failure(
    request: Request,
    me: SignedIn | None,
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
) -> Response:
    """An error as JSON for the script, or as an error page for a browser."""
    if wants_json(request):
        body: dict[str, Any] = {"code": code, "message": message}
        if details:
            body["details"] = details
        return json({"error": body}, status)
    return page("error.html", me, status=status, status_code=status, message=message)


def api_failure(request: Request, me: SignedIn | None, exc: ApiError) -> Response:
    return failure(request, me, exc.status_code, exc.code, exc.message, exc.details)


def forbidden_form(request: Request, me: SignedIn | None) -> Response:
    return failure(
        request, me, 403, "csrf_failed", "The form expired or came from another site. Try again."
    )


def signed_out(request: Request) -> Response:
    """Pages send a signed-out browser to the sign-in form; the script gets a 401."""
    if wants_json(request) or request.method != "GET":
        return failure(request, None, 401, "signed_out", "Sign in first.")
    return redirect("/login")


Form = dict[str, list[str]]
Action = Callable[[SignedIn, Form], Awaitable[Response]]
View = Callable[[SignedIn], Awaitable[Response]]


async def action(request: Request, run: Action) -> Response:
    """A state-changing request: signed in, CSRF checked, service errors answered."""
    me = await session_of(request)
    if me is None:
        return signed_out(request)
    form = await read_form(request)
    if not csrf_ok(request, me, form):
        return forbidden_form(request, me)
    try:
        return await run(me, form)
    except ApiError as exc:
        return api_failure(request, me, exc)


async def view(request: Request, run: View) -> Response:
    """A page or a read for the script: signed in, service errors answered."""
    me = await session_of(request)
    if me is None:
        return signed_out(request)
    try:
        return await run(me)
    except ApiError as exc:
        return api_failure(request, me, exc)


def done(request: Request, to: str, content: Any = None, status: int = 200) -> Response:
    """After an action: JSON for the script, else a redirect to ``to``."""
    if wants_json(request):
        return json(content if content is not None else {"ok": True, "url": to}, status)
    return redirect(to)
