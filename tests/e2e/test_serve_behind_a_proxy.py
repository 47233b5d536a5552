"""`band serve --forwarded-allow-ips` as a reverse proxy's operator uses it: a proxy it names is
believed (https makes the session cookie ``Secure``; failed sign-ins are counted per client
address the proxy gives), a proxy it does not name is not (plain cookie; every client behind it
shares the proxy's own address, so one client's wrong keys lock out the next).

The in-process tests (tests/server/test_web_hardening.py) pass uvicorn's options themselves;
this one pins that the command-line flag reaches them.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from faults.cluster import NodeProcess, seed_world

pytestmark = [pytest.mark.timeout(180)]

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
FAILURES = 3  # BAND_SIGN_IN_FAILURES, a minute


async def _sign_in(web: httpx.AsyncClient, key: str, client: str) -> httpx.Response:
    """The sign-in form, as the proxy forwards it from ``client`` on https. The CSRF cookie
    is sent back by hand: httpx keeps no ``Secure`` cookie from the plain-http hop."""
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": client}
    web.cookies.clear()  # signed out: a session would be sent on to /rooms
    form = await web.get("/login", headers=forwarded)
    found = CSRF.search(form.text)
    assert found, form.text
    cookie = form.headers["set-cookie"].split(";", 1)[0]
    web.cookies.clear()
    data = {"api_key": key, "csrf": found[1]}
    return await web.post("/login", data=data, headers={**forwarded, "Cookie": cookie})


def _session_cookie_flags(answer: httpx.Response) -> set[str]:
    [cookie] = [c for c in answer.headers.get_list("set-cookie") if c.startswith("band_session=")]
    return {part.strip().lower() for part in cookie.split(";")[1:]}


@pytest.mark.parametrize("trusted", [True, False], ids=["named-proxy", "other-proxy"])
async def test_band_serve_believes_only_the_proxies_it_is_told_to(
    tmp_path: Path, trusted: bool
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    world = await seed_world(f"sqlite+aiosqlite:///{data / 'band.db'}", [])
    key = world.people[0].key
    proxy = "127.0.0.1" if trusted else "10.9.8.7"  # the test connects from 127.0.0.1
    node = NodeProcess(
        data,
        tmp_path / "logs",
        options=["--forwarded-allow-ips", proxy],
        env={"BAND_SIGN_IN_FAILURES": f"{FAILURES}/minute"},
    )
    await node.start(within=90)
    try:
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as web:
            signed = await _sign_in(web, key, "203.0.113.1")
            wrong = [await _sign_in(web, f"band_u_wrong{n}", "203.0.113.1") for n in range(3)]
            same_client = await _sign_in(web, key, "203.0.113.1")
            next_client = await _sign_in(web, key, "203.0.113.2")
    finally:
        node.stop()
    assert signed.status_code == 303, signed.text
    assert {"httponly", "samesite=lax"} <= _session_cookie_flags(signed)
    assert ("secure" in _session_cookie_flags(signed)) is trusted
    assert [r.status_code for r in wrong] == [401] * FAILURES
    assert same_client.status_code == 429 and int(same_client.headers["retry-after"]) >= 1
    # Behind a named proxy the next client is someone else; behind another, the same address.
    assert next_client.status_code == (303 if trusted else 429), next_client.text
