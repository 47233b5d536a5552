"""Mail for accounts (invitations, password resets) through the standard library's SMTP
client, run off the event loop. ``BAND_SMTP_URL`` says where: ``smtp://[user:pass@]host[:port]``
(STARTTLS when the server offers it) or ``smtps://`` (TLS from the start); no URL, no mail."""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

from band_server.errors import ApiError


class MailUnavailable(ApiError):
    """The mail server could not take the message (the link is still shown to an admin)."""

    status_code = 503
    code = "mail_unavailable"


def _send(url: str, message: EmailMessage, timeout: float) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise MailUnavailable("BAND_SMTP_URL must look like smtp://host:port or smtps://host")
    secure = parts.scheme == "smtps"
    port = parts.port or (465 if secure else 25)
    client: smtplib.SMTP = (
        smtplib.SMTP_SSL(
            parts.hostname, port, timeout=timeout, context=ssl.create_default_context()
        )
        if secure
        else smtplib.SMTP(parts.hostname, port, timeout=timeout)
    )
    with client:
        if not secure and client.has_extn("starttls"):
            client.starttls(context=ssl.create_default_context())
        if parts.username:
            client.login(unquote(parts.username), unquote(parts.password or ""))
        client.send_message(message)


async def send_mail(
    url: str, sender: str, to: str, subject: str, body: str, *, wait: float = 10.0
) -> None:
    """Send a plain-text mail; :class:`MailUnavailable` when the server can't be reached."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message.set_content(body)
    try:
        await asyncio.to_thread(_send, url, message, wait)
    except (OSError, smtplib.SMTPException) as exc:
        raise MailUnavailable(f"The mail server did not take the message: {exc}") from exc


def invitation(link: str, inviter: str) -> tuple[str, str]:
    """(subject, body) of an invitation."""
    return (
        f"{inviter} invited you to Band",
        f"{inviter} invited you to join Band.\n\nOpen this link to choose your name and "
        f"password (it works once, for 7 days):\n\n{link}\n",
    )


def reset(link: str) -> tuple[str, str]:
    """(subject, body) of a password reset."""
    return (
        "Reset your Band password",
        "Someone asked to reset the password of your Band account. If it was you, open this "
        f"link (it works once, for an hour):\n\n{link}\n\nIf not, ignore this mail.\n",
    )
