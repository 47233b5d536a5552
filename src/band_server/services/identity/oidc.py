"""Single sign-on with OpenID Connect. Authlib's OAuth 2 client runs the authorization code
flow with PKCE (S256), ``state`` and ``nonce``; joserfc checks the ID token: its signature
against the provider's JWKS, then issuer, audience (our client id), expiry and nonce (the email
from UserInfo when the ID token leaves it out, for the same subject). Then a person is linked
by verified email, or created when ``BAND_OIDC_CREATE_USERS`` allows. Allowed email domains:
``BAND_OIDC_ALLOWED_DOMAINS``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
import httpx2
from authlib.common.errors import AuthlibBaseError
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client
from joserfc import jwt
from joserfc.errors import InvalidClaimError, JoseError, MissingClaimError
from joserfc.jwk import KeySet
from joserfc.jwt import JWTClaimsRegistry
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.config import Settings
from band_server.errors import ApiError, Forbidden, Unauthorized
from band_server.services.identity.accounts import (
    create_user,
    free_handle,
    is_disabled,
    user_principal,
)
from band_server.services.identity.principals import Principal
from band_server.store.models import User

SCOPE = "openid email profile"
# The ID token's signature algorithms: the public-key ones (an HMAC one would need a shared
# secret, which a provider's public JWKS never carries).
ALGORITHMS = (
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
    "ES256", "ES256K", "ES384", "ES512", "EdDSA",
)  # fmt: skip
LEEWAY = 30  # seconds of clock difference allowed to exp, iat and nbf


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
    """Exchange the code (with the PKCE verifier) and return the checked ID token's claims;
    401 for what the provider or its token refuses, 503 when its discovery can't be read."""
    issuer = settings.oidc_issuer or ""
    try:
        meta = await _metadata(issuer)
    except (httpx.HTTPError, ValueError) as exc:  # down or misconfigured, as at the start
        raise ApiError(
            "The sign-on provider can't be reached.", code="unavailable", status_code=503
        ) from exc
    try:
        async with _client(settings, redirect_uri) as client:
            token = await client.fetch_token(
                meta["token_endpoint"], code=code, code_verifier=verifier
            )
            keys = (await client.get(meta["jwks_uri"])).json()
        found = id_token_claims(
            token["id_token"],
            keys,
            issuer=meta.get("issuer", issuer),
            client_id=settings.oidc_client_id,
            nonce=nonce,
        )
        if "email" not in found and meta.get("userinfo_endpoint"):
            info = await _userinfo(settings, redirect_uri, meta, token)
            if info.get("sub") != found.get("sub"):
                raise ValueError("the UserInfo answer is about another subject")
            found = {**info, **found}
    except (
        JoseError,  # the ID token
        AuthlibBaseError,  # the token endpoint's error answer
        KeyError,
        ValueError,
        httpx.HTTPError,
        httpx2.HTTPError,  # Authlib's client is on httpx2 when it is installed
    ) as exc:
        raise Unauthorized(f"Single sign-on failed: {exc}") from exc
    return found


def id_token_claims(
    id_token: object, keys: object, *, issuer: str, client_id: str, nonce: str
) -> dict[str, Any]:
    """The ID token's claims, once its signature is checked with the provider's key (by
    ``kid``) and its claims as the code flow asks (OpenID Connect Core 3.1.3.7): ``iss`` is the
    issuer; ``aud`` names our client id, and ``azp`` does when present or when other audiences
    are named; ``exp`` has not passed, ``iat`` and ``nbf`` are not in the future; ``sub``
    present; ``nonce`` the one this browser's flow sent; ``auth_time`` a number and ``amr`` a
    list when present (what Authlib's ``CodeIDToken`` checked, and ``aud``, which it left to
    ``azp``). Raises JoseError, or ValueError for an answer that is not a token or key set."""
    if not isinstance(id_token, str):
        raise ValueError("the token answer carries no ID token")
    published = keys.get("keys") if isinstance(keys, dict) else None
    if not isinstance(published, list):
        raise ValueError("the provider's JWKS is not a key set")
    key_set = KeySet.import_key_set({"keys": published})
    claims = jwt.decode(id_token, key_set, algorithms=ALGORITHMS).claims
    JWTClaimsRegistry(
        leeway=LEEWAY,
        iss={"essential": True, "value": issuer},
        aud={"essential": True, "value": client_id},
        sub={"essential": True},
        exp={"essential": True},
        iat={"essential": True},
        nonce={"essential": True, "value": nonce},
        azp={"value": client_id},  # checked when present
    ).validate(claims)
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if "azp" not in claims and audiences != [client_id]:
        raise MissingClaimError("azp")
    auth_time = claims.get("auth_time")
    if auth_time is not None and (
        isinstance(auth_time, bool) or not isinstance(auth_time, (int, float))
    ):
        raise InvalidClaimError("auth_time")
    if claims.get("amr") is not None and not isinstance(claims["amr"], list):
        raise InvalidClaimError("amr")
    return claims


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
