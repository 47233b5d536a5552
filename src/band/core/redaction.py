"""Credential redaction for failure text and data that leave the process.

``redact_credentials`` hides ``Bearer``/``Basic`` values and ``name: value`` pairs whose name
is credential-like (token, authorization, api key, secret, password, private or session key),
up to the end of the line. ``redact_credentials_deep`` walks dicts and lists: a string is
redacted as text, and the value of a credential-named key (``apiKey``, ``X-Api-Key``,
``cookie``, ``auth``...) is replaced whole when it is text or a container.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REDACTED", "redact_credentials", "redact_credentials_deep"]

REDACTED = "[REDACTED]"
_SPACE = r"[^\S\r\n]"  # whitespace within a line
_GAP = rf"{_SPACE}*(?:(?:\r\n|\r|\n){_SPACE}*)*"  # a value may start on a later line
_SEP = rf"(?:{_SPACE}|[_-])"
_NAMES = (
    rf"token|authorization|api{_SEP}?key|access{_SEP}?key|secret(?:{_SEP}?key)?"
    rf"|password|passwd|private{_SEP}?key|session{_SEP}?key"
)
_SCHEME = re.compile(rf"\b(Bearer|Basic)(?=\s){_GAP}[^\s,;]+", re.IGNORECASE)
_PAIR = re.compile(rf"({_NAMES})(?:\\?[\"'])?{_SPACE}*[:=]{_GAP}\S[^\r\n]*", re.IGNORECASE)
# Keys compared with separators removed and the end anchored: "token_count" stays.
_FIELD = re.compile(rf"(?:{_NAMES}|auth|credential|cookie)s?(?:value)?$", re.IGNORECASE)


def redact_credentials(text: str) -> str:
    """``text`` with every credential-shaped value replaced by ``[REDACTED]``."""
    text = _SCHEME.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return _PAIR.sub(lambda m: f"{m.group(1)}={REDACTED}", text)


def _credential_key(key: object) -> bool:
    return isinstance(key, str) and _FIELD.search(re.sub(_SEP, "", key)) is not None


def redact_credentials_deep(value: Any) -> Any:
    """A copy of ``value`` with credentials hidden in every string, key and credential field.

    Two keys that redact to the same text are both kept (``key#2``); a credential field
    holding a number or a flag keeps it, since it reveals nothing.
    """
    if isinstance(value, str):
        return redact_credentials(value)
    if isinstance(value, list):
        return [redact_credentials_deep(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[Any, Any] = {}
    for key, item in value.items():
        hidden = _credential_key(key) and isinstance(item, str | dict | list)
        clean = REDACTED if hidden else redact_credentials_deep(item)
        new_key = redact_credentials(key) if isinstance(key, str) else key
        if new_key in out:
            n = 2
            while f"{new_key}#{n}" in out:
                n += 1
            new_key = f"{new_key}#{n}"
        out[new_key] = clean
    return out
