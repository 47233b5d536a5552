"""API keys: generated with 256 bits of randomness, stored as SHA-256, shown once."""

from __future__ import annotations

import hashlib
import importlib
import secrets
from collections.abc import Callable
from typing import Protocol


class _Digest(Protocol):
    def hexdigest(self) -> str: ...


def _builtin_sha256() -> Callable[[bytes], _Digest]:
    """CPython's own SHA-256 (``_sha2`` from 3.12, ``_sha256`` before): the same digest as
    ``hashlib.sha256``, which goes through OpenSSL's EVP layer, at less per call (every
    request hashes its key). ``hashlib``'s where a build has neither."""
    for name in ("_sha2", "_sha256"):
        try:
            found: Callable[[bytes], _Digest] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return found
    return hashlib.sha256


_sha256 = _builtin_sha256()


def new_key(kind: str) -> str:
    prefix = "band_a_" if kind == "agent" else "band_u_"
    return prefix + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    # A fast hash is right here: keys are random 256-bit tokens, not guessable passwords.
    return _sha256(key.encode()).hexdigest()


def key_prefix(key: str) -> str:
    return key[:12]
