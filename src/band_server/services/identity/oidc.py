"""Single sign-on with OpenID Connect, on Authlib: the authorization code flow with PKCE
(S256), ``state`` and ``nonce``; the ID token's signature (the provider's JWKS), issuer,
audience, expiry and nonce checked (the email from UserInfo when the ID token leaves it out,
for the same subject); then a person linked by verified email, or created when
``BAND_OIDC_CREATE_USERS`` allows. Allowed email domains: ``BAND_OIDC_ALLOWED_DOMAINS``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.jose import JsonWebKey, jwt
from authlib.jose.errors import JoseError
from authlib.oidc.core import CodeIDToken
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.config import Settings
from band_server.errors import Forbidden, Unauthorized
from band_server.services.identity.accounts import (
    create_user,
    free_handle,
    is_disabled,
    user_principal,
)
from band_server.services.identity.principals import Principal
from band_server.store.models import User

SCOPE = "openid email profile"


@dataclass(frozen=True)
class Started:
    """Where to send the browser, and what the callback must find again."""

    url: str
    state: str
    nonce: str
    verifier: str


async def _metadata(issuer: str) -> dict[str, Any]:
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    async with httpx.AsyncClient(timeout=10) as http:
        answer = await http.get(url)
        answer.raise_for_status()
        found: dict[str, Any] = answer.json()
    return found


def _client(settings: Settings, redirect_uri: str) -> AsyncOAuth2Client:
    return AsyncOAuth2Client(
        client_id=settings.oidc_client_id,
        client_secret=settings.oidc_client_secret,
        scope=SCOPE,
        redirect_uri=redirect_uri,
        code_challenge_method="S256",
        timeout=10,
    )


async def start(settings: Settings, redirect_uri: str) -> Started:
    """The provider's authorization URL with fresh state, nonce and PKCE verifier."""
    meta = await _metadata(settings.oidc_issuer or "")
    state, nonce, verifier = generate_token(32), generate_token(32), generate_token(64)
    async with _client(settings, redirect_uri) as client:
        url, _ = client.create_authorization_url(
            meta["authorization_endpoint"], state=state, nonce=nonce, code_verifier=verifier
        )
    return Started(url, state, nonce, verifier)


async def finish(
    settings: Settings, redirect_uri: str, code: str, verifier: str, nonce: str
) -> dict[str, Any]:
    """Exchange the code (with the PKCE verifier) and return the checked ID token's claims."""
    issuer = settings.oidc_issuer or ""
    meta = await _metadata(issuer)
    try:
        async with _client(settings, redirect_uri) as client:
            token = await client.fetch_token(
                meta["token_endpoint"], code=code, code_verifier=verifier
            )
            keys = (await client.get(meta["jwks_uri"])).json()
        claims = jwt.decode(
            token["id_token"],
            JsonWebKey.import_key_set(keys),
            claims_cls=CodeIDToken,
            claims_options={"iss": {"essential": True, "value": meta.get("issuer", issuer)}},
            claims_params={"nonce": nonce, "client_id": settings.oidc_client_id},
        )
        claims.validate(leeway=30)
        found = dict(claims)
        if "email" not in found and meta.get("userinfo_endpoint"):
            info = await _userinfo(settings, redirect_uri, meta, token)
            if info.get("sub") != found.get("sub"):
                raise ValueError("the UserInfo answer is about another subject")
            found = {**info, **found}
    except (JoseError, KeyError, ValueError, httpx.HTTPError) as exc:
        raise Unauthorized(f"Single sign-on failed: {exc}") from exc
    return found


async def _userinfo(
    settings: Settings, redirect_uri: str, meta: dict[str, Any], token: dict[str, Any]
) -> dict[str, Any]:
    """The UserInfo claims (a provider may keep email out of the ID token), for the same
    subject the ID token names, which the caller's claims take precedence over."""
    async with _client(settings, redirect_uri) as client:
        client.token = token
        answer = await client.get(meta["userinfo_endpoint"])
        answer.raise_for_status()
        info: dict[str, Any] = answer.json()
    return info


def _domain_allowed(settings: Settings, email: str) -> bool:
    allowed = {d.strip().lower() for d in settings.oidc_allowed_domains.split(",") if d.strip()}
    return not allowed or email.rsplit("@", 1)[-1] in allowed


async def _free_handle(session: AsyncSession, email: str) -> str:
    base = re.sub(r"[^a-z0-9_.-]", "", email.split("@", 1)[0].lower())[:30] or "person"
    return await free_handle(session, User, base if len(base) >= 2 else f"{base}0")


async def person_for(
    session: AsyncSession, settings: Settings, claims: dict[str, Any]
) -> Principal:
    """The person the provider vouched for: by verified email, or new when allowed."""
    email = str(claims.get("email") or "").strip().lower()
    if not email or claims.get("email_verified") is not True:
        raise Forbidden("Your provider did not confirm a verified email address")
    if not _domain_allowed(settings, email):
        raise Forbidden("Accounts of that email domain can't sign in here")
    user = await session.scalar(select(User).where(User.email == email))
    if user is None:
        if not settings.oidc_create_users:
            raise Forbidden("There is no account for that email here; ask an admin to invite you")
        name = str(claims.get("name") or email.split("@", 1)[0])[:80]
        user, _ = await create_user(
            session, name=name, handle=await _free_handle(session, email), email=email
        )
    if is_disabled(user):
        raise Forbidden("This account is disabled")
    return user_principal(user)
