"""Web and HTTP hardening (issue 26): the policy every page carries and no template breaks,
``nosniff`` on every answer, the session cookie's flags (TLS and trusted proxies), the limit on
failed sign-ins, how files are handed to a browser, and secrets never compared with ``==``."""

from __future__ import annotations

import ast
import asyncio
import base64
import re
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from web_testkit import CSRF, act, sign_in, token

from band_server.app import create_app
from band_server.config import Settings
from band_server.services.identity.web_sessions import COOKIE_NAME
from band_server.web.render import PHOENIX_VERSION
from band_server.web.security import tokens_match
from conftest import Seeded, free_port, make_user
from tls_kit import self_signed

SRC = Path(__file__).resolve().parents[2] / "src"
WEB = SRC / "band_server" / "web"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

# -- the policy on every page ----------------------------------------------------------------


def _policy(csp: str) -> dict[str, str]:
    return {d.split(" ", 1)[0]: d.partition(" ")[2] for d in (p.strip() for p in csp.split(";"))}


async def test_every_page_redirect_error_and_static_file_carries_the_policy(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    before = ["/", "/login", "/rooms", "/static/app.js", "/static/app.css"]
    before.append(f"/static/vendor/phoenix-{PHOENIX_VERSION}/phoenix.js")
    answers = [await client.get(path) for path in before]  # /rooms: a redirect to sign in
    await sign_in(client, seeded.user_key)
    made = await act(client, "/rooms", {"title": "Policy"}, csrf=await token(client))
    after = ["/rooms", "/agents", "/contacts", "/people", f"/rooms/{made.json()['id']}"]
    after.append("/rooms/no-such-room")  # an error page
    answers += [await client.get(path) for path in after]
    assert [a.status_code for a in answers] == [200, 200, 303, 200, 200, 200] + [200] * 5 + [404]
    for answer in answers:
        policy = _policy(answer.headers["content-security-policy"])
        where = answer.request.url.path
        assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'", where
        assert policy["default-src"] == "'self'" and policy["object-src"] == "'none'", where
        assert policy["frame-ancestors"] == "'none'" and policy["base-uri"] == "'none'", where
        assert "unsafe" not in answer.headers["content-security-policy"], where
        assert answer.headers["x-content-type-options"] == "nosniff", where
        assert answer.headers["referrer-policy"] == "same-origin", where
        assert answer.headers["x-frame-options"] == "DENY", where


INLINE = {
    "a <script> with a body": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),
    "a <style> element": re.compile(r"<style\b", re.I),
    "a style attribute": re.compile(r"\sstyle\s*=", re.I),
    "an on* handler attribute": re.compile(r"\son[a-z]+\s*=", re.I),
    "a javascript: URL": re.compile(r"javascript:", re.I),
}
SCRIPT_HAZARDS = {
    "eval": re.compile(r"\beval\s*\("),
    "new Function": re.compile(r"new\s+Function\s*\("),
    "a string timer": re.compile(r"set(?:Timeout|Interval)\s*\(\s*['\"]"),
    "a style attribute set": re.compile(
        r"setAttribute\(\s*['\"]style['\"]|\.style\.cssText|cssText\s*="
    ),
    "HTML parsed from a string": re.compile(r"\.(?:innerHTML|outerHTML)\s*=|insertAdjacentHTML"),
}


def test_no_template_or_script_needs_unsafe_inline() -> None:
    """What the policy would refuse, looked for where it would come from: the templates (no
    inline script, style or handler) and the app's own scripts (no eval, no style attribute,
    no HTML parsed from strings). The browser tests check the pages report no violation."""
    found = [
        f"{path.relative_to(WEB)}: {what}"
        for path in sorted((WEB / "templates").rglob("*.html"))
        for what, pattern in INLINE.items()
        if pattern.search(path.read_text())
    ]
    found += [
        f"{path.relative_to(WEB)}: {what}"
        for path in sorted((WEB / "static").rglob("*.js"))  # the vendored libraries too
        for what, pattern in SCRIPT_HAZARDS.items()
        if pattern.search(path.read_text())
        and not (what == "HTML parsed from a string" and path.parent.name in PARSES_HTML)
    ]
    assert found == []


PARSES_HTML = {"dompurify-3.5.0", "highlight.js-11.12.0"}
"""Vendored libraries that parse HTML from strings by design (which the policy allows): the
sanitiser (on an inert document, to clean it) and highlight.js's ``highlightElement``, which
the page never calls (room_markdown.js takes ``hljs.highlight``'s string through DOMPurify)."""


# -- nosniff on every answer -----------------------------------------------------------------


async def test_every_api_answer_says_nosniff(client: httpx.AsyncClient, seeded: Seeded) -> None:
    agent = {"X-API-Key": seeded.agent_key}
    answers = [
        await client.get("/api/v1/agent/me", headers=agent),  # the fast lane
        await client.get("/api/v1/agent/chats", headers=agent),
        await client.get("/api/v1/agent/me"),  # 401
        await client.post("/api/v1/agent/chats/x/messages", headers=agent, content=b"{"),
        await client.get("/api/v1/nowhere"),  # 404 unmatched
        await client.get("/metrics"),
        await client.get("/healthz"),
        await client.get("/openapi.json"),
    ]
    assert [a.status_code // 100 for a in answers] == [2, 2, 4, 4, 4, 2, 2, 2]
    for answer in answers:
        assert answer.headers.get_list("x-content-type-options") == ["nosniff"], answer.url


# -- the session cookie ----------------------------------------------------------------------


def _cookie(response: httpx.Response) -> str:
    [cookie] = [c for c in response.headers.get_list("set-cookie") if c.startswith(COOKIE_NAME)]
    return cookie.lower()


async def test_the_session_cookie_is_httponly_samesite_and_secure_only_over_https(
    app: object, seeded: Seeded
) -> None:
    for scheme in ("http", "https"):
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url=f"{scheme}://band.test") as c:
            cookie = _cookie(await sign_in(c, seeded.user_key))
        flags = {part.strip() for part in cookie.split(";")}
        assert {"httponly", "samesite=lax", "path=/"} <= flags
        assert ("secure" in flags) == (scheme == "https"), cookie


@asynccontextmanager
async def serving(settings: Settings, **options: object) -> AsyncIterator[str]:
    """The platform on a loopback port (uvicorn, as ``band serve`` runs it): its base URL."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", **options
    )  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "the server did not start"
        await asyncio.sleep(0.02)
    try:
        scheme = "https" if options.get("ssl_certfile") else "http"
        yield f"{scheme}://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def _web_sign_in(web: httpx.AsyncClient, key: str) -> httpx.Response:
    """The sign-in form, sent back with its CSRF cookie as a browser on https would (httpx
    keeps a ``Secure`` cookie from a plain-http hop to the proxy)."""
    form = await web.get("/login")
    found = CSRF.search(form.text)
    assert found, form.text
    cookie = form.headers["set-cookie"].split(";", 1)[0]
    web.cookies.clear()
    return await web.post(
        "/login", data={"api_key": key, "csrf": found[1]}, headers={"Cookie": cookie}
    )


async def test_over_tls_the_session_cookie_is_secure(settings: Settings, tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    seeded_key = await _person_key(settings)
    async with serving(settings, ssl_certfile=str(cert), ssl_keyfile=str(key)) as url:
        trust = ssl.create_default_context(cafile=str(cert))
        async with httpx.AsyncClient(base_url=url, verify=trust) as web:
            signed = await _web_sign_in(web, seeded_key)
    assert signed.status_code == 303
    assert "secure" in {part.strip() for part in _cookie(signed).split(";")}


async def _person_key(settings: Settings) -> str:
    """A person written straight to the data folder before a server starts on it."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        _, key = await make_user(app.state.platform, "alice", "Alice")
    return key


@pytest.mark.parametrize("trusted", [True, False])
async def test_behind_a_proxy_that_says_https_the_cookie_is_secure_if_the_proxy_is_trusted(
    settings: Settings, trusted: bool
) -> None:
    key = await _person_key(settings)
    allowed = "127.0.0.1" if trusted else "10.9.8.7"
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    async with (
        serving(settings, proxy_headers=True, forwarded_allow_ips=allowed) as url,
        httpx.AsyncClient(base_url=url, headers=forwarded) as web,
    ):
        signed = await _web_sign_in(web, key)
    assert signed.status_code == 303
    assert ("secure" in _cookie(signed)) is trusted


# -- failed sign-ins, limited per client address ---------------------------------------------


def _client_at(app: object, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://band.test")


async def test_a_run_of_wrong_keys_from_one_address_gets_429_with_retry_after(
    app: object, seeded: Seeded
) -> None:
    """Ten failures a minute per address (the default): the eleventh attempt is refused
    before its key is looked at, the right key included; another address signs in."""
    async with _client_at(app, "198.51.100.7") as web:
        wrong = [await sign_in(web, f"band_u_wrong-{n}") for n in range(10)]
        assert [r.status_code for r in wrong] == [401] * 10
        refused = await sign_in(web, seeded.user_key)
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert "Too many failed sign-ins" in refused.text and COOKIE_NAME not in web.cookies
    async with _client_at(app, "198.51.100.8") as other:
        assert (await sign_in(other, seeded.user_key)).status_code == 303


async def test_signing_in_does_not_count_against_the_limit(app: object, seeded: Seeded) -> None:
    async with _client_at(app, "198.51.100.9") as web:
        for _ in range(12):
            assert (await sign_in(web, seeded.user_key)).status_code == 303
            web.cookies.clear()


# -- files: inline only for safe images, never sniffed -----------------------------------------

FILES = {  # name, declared type, bytes -> the type served, inline
    "pixel.png": ("image/png", PNG, "image/png", True),
    "page.html": ("text/html", b"<html><script>alert(1)</script></html>", "text/html", False),
    "logo.svg": (
        "image/svg+xml",
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        "text/plain",
        False,
    ),
    "fake.png": ("image/png", b"<html><body>not an image</body></html>", "text/plain", False),
}


async def test_files_are_attachments_except_safe_images_and_are_never_sniffed(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    """The API and the web app hand a file over the same way: the type judged from its bytes,
    ``nosniff``, a sandboxing policy, and ``inline`` only for PNG, JPEG, GIF and WebP."""
    person = {"X-API-Key": seeded.user_key}
    made = await client.post("/api/v1/me/chats", json={"chat": {"title": "Files"}}, headers=person)
    room = made.json()["data"]["id"]
    await sign_in(client, seeded.user_key)
    for name, (declared, body, served, inline) in FILES.items():
        up = await client.put(
            f"/api/v1/me/chats/{room}/files",
            content=body,
            headers={**person, "x-file-name": name, "content-type": declared},
        )
        assert up.status_code == 201, up.text
        file_id = up.json()["data"]["id"]
        api = await client.get(f"/api/v1/me/chats/{room}/files/{file_id}", headers=person)
        web = await client.get(f"/rooms/{room}/files/{file_id}")
        for answer in (api, web):
            assert answer.status_code == 200 and answer.content == body, name
            assert answer.headers["content-type"].split(";")[0] == served, name
            disposition = answer.headers["content-disposition"]
            assert disposition.startswith("inline;" if inline else "attachment;"), name
            assert f'filename="{name}"' in disposition, name
            assert answer.headers["x-content-type-options"] == "nosniff", name
            policy = _policy(answer.headers["content-security-policy"])
            assert "sandbox" in policy and policy["default-src"] == "'none'", name


# -- secrets are never compared with == ------------------------------------------------------

SECRET_NAME = re.compile(r"(?i)(^|_)(api_?key|secret|token|csrf|signature|password)s?($|_)")
NOT_SECRET = re.compile(r"(?i)_(hash|type|id|prefix|count|kind|usage|limit)$")
DIGESTS = {"hash_key", "key_id"}  # a secret's SHA-256: what a row is found by


def _secret_names(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Call):
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if called in DIGESTS:
            return []
        return [n for arg in node.args for n in _secret_names(arg)]
    if isinstance(node, ast.Subscript):
        return _secret_names(node.value)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):  # ``x in (a, b)`` compares with ==
        return [n for element in node.elts for n in _secret_names(element)]
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    if name is None or not SECRET_NAME.search(name) or NOT_SECRET.search(name):
        return []
    return [name]


def secret_comparisons(source: str) -> list[str]:
    """Every ``==`` / ``!=`` between values whose names say they hold a key, token, CSRF
    token, signature or password, and every ``in`` / ``not in`` a literal collection of them
    (a constant on either side is no secret's timing)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        literal = (ast.Tuple, ast.List, ast.Set)
        if not any(
            isinstance(op, ast.Eq | ast.NotEq)
            or (isinstance(op, ast.In | ast.NotIn) and isinstance(right, literal))
            for op, right in zip(node.ops, node.comparators, strict=True)
        ):
            continue  # ``in`` a set or a mapping is a hashed lookup
        if any(isinstance(o, ast.Constant) for o in operands):
            continue
        if [n for o in operands for n in _secret_names(o)]:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_the_scan_finds_a_secret_compared_with_eq() -> None:
    source = "def ok(row, given):\n    return row.csrf_token == given or given != api_key\n"
    assert len(secret_comparisons(source)) == 2
    assert len(secret_comparisons("ok = token not in (self.bot_token, self.app_token)\n")) == 1
    assert secret_comparisons("x = hash_key(token) == row.key_hash\ny = token == ''\n") == []


def test_no_key_or_token_is_compared_with_eq() -> None:
    """Keys, session tokens, delegated tokens and system keys are found by their SHA-256
    (``hash_key``: the lookup's timing says nothing of the secret); CSRF tokens are compared
    with ``hmac.compare_digest`` (``tokens_match``). No code compares one with ``==``."""
    found = {
        str(path.relative_to(SRC)): hits
        for path in sorted(SRC.rglob("*.py"))
        if (hits := secret_comparisons(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_tokens_match_is_constant_time_and_refuses_missing_tokens() -> None:
    assert tokens_match("abc", "abc") and not tokens_match("abc", "abd")
    assert not tokens_match(None, None) and not tokens_match("", "") and not tokens_match("a", None)
    assert not tokens_match("é", "e")  # any text, compared as bytes
