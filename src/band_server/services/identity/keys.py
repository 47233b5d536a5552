"""API keys: generated with 256 bits of randomness, stored as SHA-256, shown once."""

from __future__ import annotations

import hashlib
import secrets


def new_key(kind: str) -> str:
    prefix = "band_a_" if kind == "agent" else "band_u_"
    return prefix + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    # A fast hash is right here: keys are random 256-bit tokens, not guessable passwords.
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_prefix(key: str) -> str:
    return key[:12]
