"""Accounts in the web app: email and password (argon2id, the same words for every failure,
failures limited), invitations and password resets (single use, expiring; mailed through a
real SMTP server, aiosmtpd, on loopback), sessions listed and ended, sign out everywhere, and
the command line's ``--password-prompt`` and ``band users invite``."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select, update
from web_testkit import csrf_of

from band.protocol import utcnow
from band_server.cli import main
from band_server.config import Settings
from band_server.context import Platform
from band_server.services import passwords
from band_server.services.identity import accounts
from band_server.services.identity.web_sessions import COOKIE_NAME
from band_server.store.models import AccountLink, User
from conftest import Seeded, free_port, make_user

PASSWORD = "correct horse battery"
CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36"
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; rv:133.0) Gecko/20100101 Firefox/133.0"
LINK = re.compile(r"https?://\S+/(invite|reset)/[A-Za-z0-9_-]+")


class Inbox:
    """What the SMTP server received: (recipients, parsed message)."""

    def __init__(self) -> None:
        self.mails: list[tuple[list[str], Any]] = []
        self.port = free_port()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mails.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
        return "250 OK"

    def link(self, index: int = -1) -> str:
        body = self.mails[index][1].get_payload(decode=True).decode()
        found = LINK.search(body)
        assert found, body
        return found[0]


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    box = Inbox()
    controller = Controller(box, hostname="127.0.0.1", port=box.port)
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


@pytest.fixture
def settings(tmp_path: Path, inbox: Inbox) -> Settings:
    """The platform mails through the test's SMTP server; links start with BAND_WEB_URL."""
    return Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        redis_url=None,
        smtp_url=f"smtp://127.0.0.1:{inbox.port}",
        smtp_from="band@example.org",
        web_url="https://band.example.org",
    )


def browser(app_client: httpx.AsyncClient, agent: str = CHROME) -> httpx.AsyncClient:
    """Another browser on the same platform (its own cookies, its own User-Agent)."""
    return httpx.AsyncClient(
        transport=app_client._transport,
        base_url=str(app_client.base_url),
        headers={"User-Agent": agent},
    )


async def with_password(platform: Platform, handle: str, email: str) -> str:
    """A person who signs in with ``email`` and PASSWORD; returns their id."""
    async with platform.db.write() as session:
        user, _ = await accounts.create_user(
            session, name=handle.title(), handle=handle, email=email
        )
        await passwords.set_password(session, user, PASSWORD)
        return user.id


async def password_sign_in(web: httpx.AsyncClient, email: str, password: str) -> httpx.Response:
    form = await web.get("/login")
    return await web.post(
        "/login/password", data={"email": email, "password": password, "csrf": csrf_of(form)}
    )


async def signed_in(web: httpx.AsyncClient) -> bool:
    return (await web.get("/rooms")).status_code == 200


async def act(
    web: httpx.AsyncClient, path: str, data: dict[str, str] | None = None
) -> httpx.Response:
    """A signed-in form post (CSRF from the Account page)."""
    token = csrf_of(await web.get("/account"))
    return await web.post(path, data={**(data or {}), "csrf": token})


async def test_email_and_password_sign_in_with_one_answer_for_every_failure(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    pat = await with_password(platform, "pat", "pat@example.org")
    async with platform.db.read() as session:
        user = await session.get(User, pat)
    assert user is not None and (user.password_hash or "").startswith("$argon2id$")

    answers = []
    for email, password in (
        ("pat@example.org", "not the password"),
        ("nobody@example.org", PASSWORD),
        ("alice@localhost", PASSWORD),  # a person without a password
    ):
        async with browser(client) as web:
            refused = await password_sign_in(web, email, password)
            assert refused.status_code == 401 and COOKIE_NAME not in web.cookies
            answers.append(re.findall(r'role="alert">([^<]*)<', refused.text))
    assert answers == [["Wrong email or password."]] * 3
    async with browser(client) as web:
        ok = await password_sign_in(web, "  PAT@example.org ", PASSWORD)
        assert ok.status_code == 303 and ok.headers["location"] == "/rooms"
        assert await signed_in(web)
    # The sign-in page leads with email and password; the API key is behind a link.
    page = await client.get("/login")
    assert 'action="/login/password"' in page.text and 'href="/login?with=key"' in page.text
    assert 'name="api_key"' not in page.text
    assert 'name="api_key"' in (await client.get("/login?with=key")).text


async def test_failed_sign_ins_are_limited_per_email(
    client: httpx.AsyncClient, platform: Platform
) -> None:
    await with_password(platform, "lim", "lim@example.org")
    async with browser(client) as web:
        for _ in range(10):
            assert (
                await password_sign_in(web, "lim@example.org", "wrong guess")
            ).status_code == 401
        blocked = await password_sign_in(web, "lim@example.org", PASSWORD)
        assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0
        assert "Too many tries" in blocked.text and COOKIE_NAME not in web.cookies


async def test_an_invitation_is_mailed_shown_once_and_works_once(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, inbox: Inbox
) -> None:
    async with browser(client) as admin:
        await admin.post(
            "/login", data={"api_key": seeded.user_key, "csrf": csrf_of(await admin.get("/login"))}
        )
        made = await act(admin, "/invite", {"email": "New.Person@Example.org"})
        assert made.status_code == 200, made.text
        shown = LINK.search(made.text)
        assert shown and shown[0].startswith("https://band.example.org/invite/")
        assert "mailed to new.person@example.org" in made.text
    assert inbox.mails[-1][0] == ["new.person@example.org"]
    assert inbox.mails[-1][1]["From"] == "band@example.org"
    assert inbox.link() == shown[0]
    path = shown[0].removeprefix("https://band.example.org")

    async with browser(client, FIREFOX) as guest:
        form = await guest.get(path)
        assert form.status_code == 200 and "new.person@example.org" in form.text
        short = await guest.post(
            path, data={"name": "Nia", "handle": "nia", "password": "short", "csrf": csrf_of(form)}
        )
        assert short.status_code == 422 and "at least 10 characters" in short.text
        joined = await guest.post(
            path, data={"name": "Nia", "handle": "nia", "password": PASSWORD, "csrf": csrf_of(form)}
        )
        assert joined.status_code == 303 and await signed_in(guest)
    async with browser(client) as late:  # the link works once
        assert (await late.get(path)).status_code == 404
        fresh = csrf_of(await late.get("/login"))
        again = await late.post(
            path, data={"name": "Nia", "handle": "nia2", "password": PASSWORD, "csrf": fresh}
        )
        assert again.status_code == 404 and "expired or was already used" in again.text
    async with browser(client) as web:
        assert (await password_sign_in(web, "new.person@example.org", PASSWORD)).status_code == 303


async def test_only_admins_invite_by_default(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    await with_password(platform, "member", "member@example.org")
    async with browser(client) as web:
        await password_sign_in(web, "member@example.org", PASSWORD)
        refused = await act(web, "/invite", {"email": "x@example.org"})
        assert refused.status_code == 403 and "Ask an admin to allow you" in refused.text
        taken = await act(web, "/invite", {"email": "member@example.org"})
        assert taken.status_code == 403


async def test_an_admin_allows_and_withdraws_inviting_per_person(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    """The grant is per person, enforced by the server (403 ``invite_not_allowed`` in the
    error envelope), and only an admin may give or take it."""
    admin = await with_password(platform, "boss", "boss@example.org")
    async with platform.db.write() as session:
        await session.execute(update(User).where(User.id == admin).values(role="admin"))
    member = await with_password(platform, "member", "member@example.org")
    other = await with_password(platform, "other", "other@example.org")
    json = {"Accept": "application/json"}

    async def invite(web: httpx.AsyncClient, email: str) -> httpx.Response:
        token = csrf_of(await web.get("/account"))
        return await web.post("/invite", data={"email": email, "csrf": token}, headers=json)

    async def grant(web: httpx.AsyncClient, person: str, allowed: str) -> httpx.Response:
        token = csrf_of(await web.get("/account"))
        return await web.post(
            f"/people/{person}/may-invite", data={"allowed": allowed, "csrf": token}, headers=json
        )

    async with browser(client) as boss, browser(client) as web, browser(client) as third:
        await password_sign_in(boss, "boss@example.org", PASSWORD)
        await password_sign_in(web, "member@example.org", PASSWORD)
        await password_sign_in(third, "other@example.org", PASSWORD)
        refused = await invite(web, "first@example.org")
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "invite_not_allowed"
        assert "Ask an admin to allow you" in refused.json()["error"]["message"]
        assert "Invite people" not in (await web.get("/account")).text

        # A non-admin can't grant it, to themself or anyone; a forged form changes nothing.
        for person in (member, other):
            mine = await grant(web, person, "1")
            assert mine.status_code == 403 and mine.json()["error"]["code"] == "admin_required"
        forged = await boss.post(
            f"/people/{member}/may-invite", data={"allowed": "1"}, headers=json
        )
        assert forged.status_code == 403 and forged.json()["error"]["code"] == "csrf_failed"
        assert (await invite(web, "first@example.org")).status_code == 403

        granted = await grant(boss, member, "1")
        assert granted.status_code == 200 and granted.json() == {"id": member, "may_invite": True}
        assert "Invite people" in (await web.get("/account")).text  # the sidebar's link
        sent = await invite(web, "first@example.org")
        assert sent.status_code == 200, sent.text
        assert "/invite/" in sent.text
        # Only that person: the other member is still refused.
        assert (await invite(third, "second@example.org")).status_code == 403

        withdrawn = await grant(boss, member, "0")
        assert withdrawn.json() == {"id": member, "may_invite": False}
        again = await invite(web, "third@example.org")
        assert again.status_code == 403 and again.json()["error"]["code"] == "invite_not_allowed"
    async with platform.db.read() as session:
        links = (await session.scalars(select(AccountLink.email))).all()
    assert sorted(links) == ["first@example.org"]


async def test_reset_links_are_single_use_expire_and_end_every_session(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, inbox: Inbox
) -> None:
    person = await with_password(platform, "rita", "rita@example.org")
    async with browser(client) as old, browser(client) as admin:
        assert (await password_sign_in(old, "rita@example.org", PASSWORD)).status_code == 303
        await admin.post(
            "/login", data={"api_key": seeded.user_key, "csrf": csrf_of(await admin.get("/login"))}
        )
        issued = await act(admin, f"/people/{person}/reset-link")
        assert issued.status_code == 200 and "mailed to rita@example.org" in issued.text
        path = LINK.search(issued.text)[0].removeprefix("https://band.example.org")  # type: ignore[index]
        async with browser(client) as web:
            form = await web.get(path)
            done = await web.post(
                path, data={"password": "a brand new secret", "csrf": csrf_of(form)}
            )
            assert done.status_code == 303 and await signed_in(web)
        async with browser(client) as late:  # the link works once
            fresh = csrf_of(await late.get("/login"))
            reused = await late.post(path, data={"password": "another new one!", "csrf": fresh})
            assert reused.status_code == 404
        assert not await signed_in(old)  # the reset ended the old session
    async with browser(client) as web:
        assert (await password_sign_in(web, "rita@example.org", PASSWORD)).status_code == 401
        assert (
            await password_sign_in(web, "rita@example.org", "a brand new secret")
        ).status_code == 303

    # "Forgot your password?": a link for an address with an account, the same words for one
    # without (and no mail); an expired link is refused.
    async with browser(client) as web:
        for email in ("rita@example.org", "ghost@example.org"):
            form = await web.get("/forgot")
            sent = await web.post("/forgot", data={"email": email, "csrf": csrf_of(form)})
            assert sent.status_code == 200 and "If that email has an account here" in sent.text
    assert [m[0] for m in inbox.mails[-2:]] == [["rita@example.org"], ["rita@example.org"]]
    async with platform.db.write() as session:
        await session.execute(
            update(AccountLink).values(expires_at=utcnow() - timedelta(minutes=1))
        )
    async with browser(client) as web:
        gone = await web.get(inbox.link().removeprefix("https://band.example.org"))
        assert gone.status_code == 404 and "expired" in gone.text


async def test_sessions_are_listed_and_ended_one_by_one_or_everywhere(
    client: httpx.AsyncClient, platform: Platform
) -> None:
    await with_password(platform, "sam", "sam@example.org")
    async with browser(client, CHROME) as laptop, browser(client, FIREFOX) as desk:
        for web in (laptop, desk):
            assert (await password_sign_in(web, "sam@example.org", PASSWORD)).status_code == 303
        listed = (await laptop.get("/account")).text
        assert "Chrome on Linux" in listed and "Firefox on Windows" in listed
        assert listed.count("This browser") == 1
        other = re.search(r'action="/account/sessions/([0-9a-f]{64})/end"', listed)
        assert other
        assert (await act(laptop, f"/account/sessions/{other[1]}/end")).status_code == 303
        assert not await signed_in(desk) and await signed_in(laptop)
        assert (await act(laptop, "/account/sessions/" + "0" * 64 + "/end")).status_code == 404

        assert (await password_sign_in(desk, "sam@example.org", PASSWORD)).status_code == 303
        wrong = await act(
            laptop, "/account/password", {"current_password": "nope", "new_password": "x" * 12}
        )
        assert wrong.status_code == 422 and "current password is not right" in wrong.text
        changed = await act(
            laptop,
            "/account/password",
            {"current_password": PASSWORD, "new_password": "changed secret 1"},
        )
        assert changed.status_code == 303 and await signed_in(laptop) and not await signed_in(desk)

        assert (
            await password_sign_in(desk, "sam@example.org", "changed secret 1")
        ).status_code == 303
        assert (await act(laptop, "/account/sessions/end-all")).status_code == 303
        assert not await signed_in(laptop) and not await signed_in(desk)


def test_the_command_line_sets_a_password_and_prints_an_invite_link(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(settings.data_dir)
    monkeypatch.setattr("sys.stdin", io.StringIO("too short\n"))
    assert main(["users", "create", "Cli", "--handle", "cli", "--email", "cli@example.org",
                 "--password-prompt", "--data", data]) == 1  # fmt: skip
    assert "at least 10 characters" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert main(["users", "create", "Cli", "--handle", "cli", "--email", "cli@example.org",
                 "--password-prompt", "--data", data]) == 0  # fmt: skip
    assert "password: set" in capsys.readouterr().out
    monkeypatch.setenv("BAND_WEB_URL", "https://band.example.org")
    assert main(["users", "invite", "--email", "later@example.org", "--data", data]) == 0
    out = capsys.readouterr().out
    assert re.search(r"invite_link: https://band\.example\.org/invite/[A-Za-z0-9_-]{40,}", out)


async def test_the_admin_api_grants_inviting_and_refuses_everyone_else(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    """``PUT /api/v1/admin/people/{id}/may-invite``: an admin's key grants and withdraws; a
    person's key gets 403 ``admin_required``; an unknown person 404; a wrong body 422."""
    async with platform.db.write() as session:
        _, admin_key = await accounts.create_user(
            session, name="Root", handle="root", is_admin=True
        )
    member = await with_password(platform, "member", "member@example.org")
    url = f"/api/v1/admin/people/{member}/may-invite"
    as_admin = {"X-API-Key": admin_key}
    granted = await client.put(url, json={"may_invite": True}, headers=as_admin)
    assert granted.status_code == 200, granted.text
    assert granted.json() == {"data": {"id": member, "may_invite": True}}
    async with browser(client) as web:
        await password_sign_in(web, "member@example.org", PASSWORD)
        assert (await act(web, "/invite", {"email": "pal@example.org"})).status_code == 200
        withdrawn = await client.put(url, json={"may_invite": False}, headers=as_admin)
        assert withdrawn.json()["data"]["may_invite"] is False
        refused = await act(web, "/invite", {"email": "pal2@example.org"})
        assert refused.status_code == 403

    _, plain_key = await make_user(platform, "plain")
    person = await client.put(url, json={"may_invite": True}, headers={"X-API-Key": plain_key})
    assert person.status_code == 403 and person.json()["error"]["code"] == "admin_required"
    assert "request_id" in person.json()["error"]
    unknown = await client.put(
        "/api/v1/admin/people/nobody/may-invite", json={"may_invite": True}, headers=as_admin
    )
    assert unknown.status_code == 404
    for wrong in ("yes please", 0, 1, None):
        bad = await client.put(url, json={"may_invite": wrong}, headers=as_admin)
        assert bad.status_code == 422, wrong
    doc = (await client.get("/openapi.json")).json()
    op = doc["paths"]["/api/v1/admin/people/{person_id}/may-invite"]["put"]
    assert {"200", "403", "404", "422"} <= set(op["responses"])
