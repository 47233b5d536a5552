"""Secrets kept out of log lines: the shapes the platform's keys and tokens take in text, masked.

Every key and token the platform issues carries a prefix (``band_u_``, ``band_a_``, ``band_d_``,
``band_s_``), so a line that quotes one is found whatever it says around it. The places where a
line may quote a secret without its prefix are masked by name: the ``X-API-Key``,
``Authorization``, ``Cookie`` and ``Set-Cookie`` headers a debug log of an HTTP or WebSocket
handshake prints, an ``api_key`` (or ``token``) query parameter in a logged URL, and the web
app's cookies. :class:`RedactSecrets` is the ``logging.Filter`` that applies it: ``band serve``
puts it on every handler, the SDK on the logger its socket library writes to.
"""

from __future__ import annotations

import logging
import re

__all__ = ["MASK", "RedactSecrets", "redact"]

MASK = "[redacted]"

_PREFIXED = re.compile(r"\b(band_[a-z]_)[A-Za-z0-9_-]{8,}")
_HEADER = re.compile(
    r"(?i)\b(x-api-key|authorization|proxy-authorization|cookie|set-cookie|x-csrf-token)"
    r"((?:['\"]\s*,\s*b?['\"])|(?:['\"]?\s*[:=]\s*(?:b?['\"])?))([^\r\n'\"]+)"
)
_QUERY = re.compile(r"(?i)([?&;](?:api_key|apikey|key|token|access_token|csrf)=)[^&\s'\"#]+")
_COOKIE = re.compile(r"\b(band_session|band_login_csrf)=[^;\s'\",]+")


def redact(text: str) -> str:
    """``text`` with every secret it quotes replaced by :data:`MASK` (prefixes kept)."""
    text = _HEADER.sub(lambda m: f"{m[1]}{m[2]}{MASK}", text)
    text = _PREFIXED.sub(lambda m: f"{m[1]}{MASK}", text)
    text = _QUERY.sub(lambda m: f"{m[1]}{MASK}", text)
    return _COOKIE.sub(lambda m: f"{m[1]}={MASK}", text)


class RedactSecrets(logging.Filter):
    """Masks the secrets a record's message (and its traceback) quotes; drops nothing.

    Plain arguments are masked one by one, so a formatter that reads ``record.args`` (uvicorn's
    access lines do) still finds them; any other record's message is formatted here, masked,
    and kept without its arguments.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a malformed record: the handler reports it as it would have
            return True
        if redact(text) != text:
            args = record.args
            if isinstance(args, tuple) and all(isinstance(a, _PLAIN) for a in args):
                record.msg = redact(str(record.msg))
                record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
            text = record.getMessage()
            masked = redact(text)
            if masked != text:
                record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


_PLAIN = (str, int, float, type(None))
