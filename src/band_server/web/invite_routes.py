"""Inviting people by email (admins, people an admin allowed, or everyone when
``BAND_MEMBERS_MAY_INVITE`` is on) and
an admin's password-reset link for a person: each link is shown once, and mailed when
``BAND_SMTP_URL`` is set."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import Forbidden
from ..services import account_links, mailer
from ..services.identity import accounts
from ..services.identity.web_sessions import SignedIn
from ..services.unit import write
from .password_routes import link_base
from .render import page
from .respond import Form, action, field, platform_of, view

router = APIRouter()


async def _mail(request: Request, to: str, subject: str, body: str) -> str:
    """Send when mail is configured; what the page says about it."""
    settings = platform_of(request).settings
    if not settings.smtp_url:
        return "Mail is not set up here (BAND_SMTP_URL): send the link yourself."
    try:
        await mailer.send_mail(settings.smtp_url, settings.smtp_from, to, subject, body)
    except mailer.MailUnavailable as exc:
        return f"{exc.message}. Send the link yourself."
    return f"The link was mailed to {to}."


def _section(me: SignedIn) -> str:
    """The sidebar's current entry: People for an admin, Invite people for anyone else."""
    return "people" if me.is_admin else "invite"


@router.get("/invite")
async def invite_form(request: Request) -> Response:
    async def run(me: SignedIn) -> Response:
        platform = platform_of(request)
        async with platform.db.read() as session:
            allowed = await account_links.may_invite(
                session, me.person, platform.settings.members_may_invite
            )
        if not allowed:
            raise Forbidden(account_links.NOT_ALLOWED, code="invite_not_allowed")
        return page("invite_new.html", me, section=_section(me), shown=None, error=None)

    return await view(request, run)


@router.post("/invite")
async def invite(request: Request) -> Response:
    """An invitation link for an email, shown this once."""

    async def run(me: SignedIn, form: Form) -> Response:
        platform = platform_of(request)
        async with write(platform) as uow:
            token, email = await account_links.invite(
                uow.session,
                me.person,
                field(form, "email"),
                members_may_invite=platform.settings.members_may_invite,
            )
        link = f"{link_base(request)}/invite/{token}"
        mailed = await _mail(request, email, *mailer.invitation(link, me.person.name or "Someone"))
        shown = {"title": f"Invitation for {email}", "link": link, "mailed": mailed}
        return page("invite_new.html", me, section=_section(me), shown=shown, error=None)

    return await action(request, run)


@router.post("/people/{person_id}/reset-link")
async def reset_link(request: Request, person_id: str) -> Response:
    """An admin's password-reset link for a person, shown this once."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            token = await account_links.reset_by_admin(uow.session, me.person, person_id)
            user = await accounts.get_user(uow.session, person_id)
        link = f"{link_base(request)}/reset/{token}"
        mailed = await _mail(request, user.email, *mailer.reset(link))
        shown = {"title": f"Password reset for {user.name}", "link": link, "mailed": mailed}
        return page("invite_new.html", me, section="people", shown=shown, error=None)

    return await action(request, run)
