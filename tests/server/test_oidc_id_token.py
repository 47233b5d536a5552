"""The ID token at the end of single sign-on (``oidc.finish``), from a small provider on
loopback that signs with an RSA key of its JWKS: a good token gives its claims (the email from
UserInfo when the token leaves it out, for the same subject); a token signed by another key,
with no signature, of another issuer or audience, expired, issued in the future, of another
nonce or azp, or missing sub or nonce is refused as a failed sign-on, and so is a code the
token endpoint turns down. Importing the module warns of nothing (authlib.jose did)."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

import band_server
from band_server.config import Settings
from band_server.errors import ApiError, Unauthorized
from band_server.services.identity import oidc

CLIENT_ID, NONCE, REDIRECT = "band-web", "the-flow-nonce", "http://band.test/login/oidc/callback"
KEY = RSAKey.generate_key(2048, parameters={"kid": "k1"})
OTHER_KEY = RSAKey.generate_key(2048, parameters={"kid": "k1"})  # same kid, not published


@dataclasses.dataclass
class Provider:
    """What the provider answers; tests set ``id_token``, ``userinfo`` or ``token_error``."""

    issuer: str = ""
    id_token: str = ""
    userinfo: dict[str, Any] = dataclasses.field(default_factory=dict)
    token_error: str | None = None
    token_forms: list[dict[str, list[str]]] = dataclasses.field(default_factory=list)

    def claims(self, **changes: Any) -> dict[str, Any]:
        """A good ID token's claims, with ``changes`` (a value of None leaves a claim out)."""
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": "ada",
            "aud": CLIENT_ID,
            "exp": now + 300,
            "iat": now,
            "nonce": NONCE,
            "email": "ada@example.org",
            "email_verified": True,
        }
        claims.update(changes)
        return {k: v for k, v in claims.items() if v is not None}


def sign(claims: dict[str, Any], key: RSAKey = KEY, kid: str = "k1") -> str:
    return jwt.encode({"alg": "RS256", "kid": kid}, claims, key)


def unsigned(claims: dict[str, Any]) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'kid': 'k1'})}.{part(claims)}."


@pytest.fixture
def provider() -> Iterator[Provider]:
    state = Provider()

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/.well-known/openid-configuration":
                self.answer(
                    200,
                    {
                        "issuer": state.issuer,
                        "authorization_endpoint": f"{state.issuer}/auth",
                        "token_endpoint": f"{state.issuer}/token",
                        "jwks_uri": f"{state.issuer}/jwks",
                        "userinfo_endpoint": f"{state.issuer}/userinfo",
                    },
                )
            elif self.path == "/jwks":
                self.answer(200, dict(KeySet([KEY]).as_dict(private=False)))
            elif self.path == "/userinfo":
                self.answer(200, state.userinfo)
            else:
                self.answer(404, {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            state.token_forms.append(parse_qs(self.rfile.read(length).decode()))
            if state.token_error:
                self.answer(400, {"error": state.token_error})
            else:
                self.answer(
                    200,
                    {"access_token": "at", "token_type": "Bearer", "id_token": state.id_token},
                )

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.issuer = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


async def finish(settings: Settings, provider: Provider) -> dict[str, Any]:
    configured = dataclasses.replace(
        settings, oidc_issuer=provider.issuer, oidc_client_id=CLIENT_ID, oidc_client_secret="s"
    )
    return await oidc.finish(configured, REDIRECT, "the-code", "v" * 43, NONCE)


async def test_a_good_id_token_gives_its_claims(settings: Settings, provider: Provider) -> None:
    now = int(time.time())
    for changes in (
        {},
        {"exp": now - 10, "iat": now + 10},  # within the leeway for clocks apart
        {"aud": [CLIENT_ID, "another-client"], "azp": CLIENT_ID},
    ):
        provider.id_token = sign(provider.claims(**changes))
        claims = await finish(settings, provider)
        assert claims["sub"] == "ada" and claims["email"] == "ada@example.org"
    assert provider.token_forms[0]["code"] == ["the-code"]
    assert provider.token_forms[0]["code_verifier"] == ["v" * 43]

    # No email in the ID token: UserInfo's, for the same subject only.
    provider.id_token = sign(provider.claims(email=None, email_verified=None))
    provider.userinfo = {"sub": "ada", "email": "ada@example.org", "email_verified": True}
    claims = await finish(settings, provider)
    assert claims["email"] == "ada@example.org" and claims["email_verified"] is True
    provider.userinfo = {"sub": "eve", "email": "eve@example.org", "email_verified": True}
    with pytest.raises(Unauthorized, match="another subject"):
        await finish(settings, provider)


@pytest.mark.parametrize(
    ("forge", "words"),
    [
        (lambda p: sign(p.claims(), key=OTHER_KEY), "bad_signature"),
        (lambda p: sign(p.claims(), kid="k2"), "kid"),
        (lambda p: unsigned(p.claims()), "none. is not allowed"),
        (lambda p: sign(p.claims(iss="http://elsewhere.example")), "invalid_claim.*iss"),
        (lambda p: sign(p.claims(aud="another-client")), "invalid_claim.*aud"),
        (lambda p: sign(p.claims(aud="another-client", azp=CLIENT_ID)), "invalid_claim.*aud"),
        (lambda p: sign(p.claims(aud=[CLIENT_ID, "another-client"])), "missing_claim.*azp"),
        (lambda p: sign(p.claims(azp="another-client")), "invalid_claim.*azp"),
        (lambda p: sign(p.claims(exp=int(time.time()) - 60)), "expired"),
        (lambda p: sign(p.claims(iat=int(time.time()) + 120)), "future|not valid yet"),
        (lambda p: sign(p.claims(nonce="another-nonce")), "invalid_claim.*nonce"),
        (lambda p: sign(p.claims(nonce=None)), "missing_claim.*nonce"),
        (lambda p: sign(p.claims(sub=None)), "missing_claim.*sub"),
        (lambda p: "not.a.token", "decode_error"),
    ],
    ids=[
        "another-key",
        "unknown-kid",
        "alg-none",
        "issuer",
        "audience",
        "audience-only-in-azp",
        "audiences-without-azp",
        "azp",
        "expired",
        "future-iat",
        "nonce",
        "no-nonce",
        "no-sub",
        "garbage",
    ],
)
async def test_a_bad_id_token_is_refused(
    settings: Settings, provider: Provider, forge: Any, words: str
) -> None:
    provider.id_token = forge(provider)
    with pytest.raises(Unauthorized, match="Single sign-on failed") as refused:
        await finish(settings, provider)
    assert re.search(words, refused.value.message), refused.value.message


async def test_a_code_the_provider_turns_down_is_refused(
    settings: Settings, provider: Provider
) -> None:
    provider.token_error = "invalid_grant"
    with pytest.raises(Unauthorized, match="invalid_grant"):
        await finish(settings, provider)


async def test_a_provider_down_at_the_callback_answers_503(settings: Settings) -> None:
    """Discovery fails when the browser comes back: the sign-on page says the provider can't
    be reached (503), as at the start, not a server error."""
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        issuer = f"http://127.0.0.1:{probe.getsockname()[1]}"
    configured = dataclasses.replace(
        settings, oidc_issuer=issuer, oidc_client_id=CLIENT_ID, oidc_client_secret="s"
    )
    with pytest.raises(ApiError, match="can't be reached") as refused:
        await oidc.finish(configured, REDIRECT, "the-code", "v" * 43, NONCE)
    assert refused.value.status_code == 503


def test_importing_the_module_warns_of_nothing() -> None:
    """In a fresh interpreter, so that no import cache hides a module-level warning."""
    source = Path(band_server.__file__).resolve().parents[1]
    script = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('error')\n"
        "    import band_server.services.identity.oidc\n"
        "assert not caught, [str(w.message) for w in caught]\n"
    )
    path = os.pathsep.join(p for p in (str(source), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
