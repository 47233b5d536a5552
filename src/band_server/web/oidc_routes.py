"""Single sign-on: ``/login/oidc`` sends the browser to the provider with state, nonce and a
PKCE challenge (kept in a short-lived HttpOnly cookie for this path); ``/login/oidc/callback``
checks the state, exchanges the code and signs the person in (services.identity.oidc)."""

from __future__ import annotations

import json as jsonlib

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from ..errors import ApiError
from ..services.identity import oidc, session_devices
from ..services.identity.web_sessions import start_session
from ..services.unit import write
from .password_routes import bare, link_base, signed_in_as
from .respond import platform_of
from .security import secure_headers, tokens_match

router = APIRouter()
FLOW_COOKIE = "band_oidc"
CALLBACK = "/login/oidc/callback"


def _redirect_uri(request: Request) -> str:
    return link_base(request) + CALLBACK


@router.get("/login/oidc")
async def sign_in_with_provider(request: Request) -> Response:
    settings = platform_of(request).settings
    if not settings.oidc_issuer:
        return bare(request, "login.html", 404, error="Single sign-on is not set up here.")
    try:
        started = await oidc.start(settings, _redirect_uri(request))
    except Exception:  # the provider is down or misconfigured: say so, in words
        return bare(request, "login.html", 503, error="The sign-on provider can't be reached.")
    response = secure_headers(RedirectResponse(started.url, status_code=303))
    flow = {"state": started.state, "nonce": started.nonce, "verifier": started.verifier}
    response.set_cookie(
        FLOW_COOKIE,
        jsonlib.dumps(flow),
        max_age=600,
        httponly=True,
        samesite="lax",  # sent on the provider's redirect back (a top-level GET)
        secure=request.url.scheme == "https",
        path=CALLBACK,
    )
    return response


@router.get(CALLBACK)
async def provider_callback(request: Request) -> Response:
    """The provider's answer: the state must match this browser's flow; then the code."""
    platform = platform_of(request)
    try:
        flow = jsonlib.loads(request.cookies.get(FLOW_COOKIE) or "{}")
    except ValueError:
        flow = {}
    params = request.query_params
    if not isinstance(flow, dict) or not tokens_match(flow.get("state"), params.get("state")):
        return bare(
            request,
            "login.html",
            403,
            error="The sign-on expired or came from another site. Try again.",
        )
    if params.get("error") or not params.get("code"):
        message = params.get("error_description") or params.get("error") or "no code"
        return bare(request, "login.html", 401, error=f"Single sign-on failed: {message}")
    try:
        claims = await oidc.finish(
            platform.settings,
            _redirect_uri(request),
            params["code"],
            flow["verifier"],
            flow["nonce"],
        )
        async with write(platform) as uow:
            person = await oidc.person_for(uow.session, platform.settings, claims)
            token, _ = await start_session(uow.session, person)
            await session_devices.record(uow.session, token, request.headers.get("user-agent"))
    except ApiError as exc:
        return bare(request, "login.html", exc.status_code, error=exc.message)
    response = await signed_in_as(request, token)
    response.delete_cookie(FLOW_COOKIE, path=CALLBACK)
    return response
