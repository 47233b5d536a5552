"""Sealed idempotency replays: a stored answer can be read only by whoever holds the client's key.

How it works: docs/internals/server.md, "Sealed idempotency replays".

A record holds neither the client's ``Idempotency-Key`` nor a secret-bearing answer in the
clear.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from functools import cached_property

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

VERSION = "v1"
PLAIN = "p1"
_INFO = b"band idempotency replay v1"
_NONCE = 12


def key_id(principal_id: str, key: str) -> str:
    """What a record stores instead of the client's key: a hash, per caller."""
    seed = b"band idempotency key\x00" + principal_id.encode() + b"\x00" + key.encode()
    return hashlib.sha256(seed).hexdigest()


def plain(answer: str) -> str:
    """``p1.<answer>``: an answer that holds no secret, kept as it is."""
    return f"{PLAIN}.{answer}"


@dataclass(frozen=True, repr=False)
class Seal:
    """Encrypts and opens the answer of one keyed request (the key derived at first use)."""

    _salt: bytes
    _key: bytes
    _bound: bytes  # associated data: the request the answer belongs to

    @classmethod
    def for_request(
        cls, principal_id: str, key: str, method: str, path: str, body_hash: str
    ) -> Seal:
        bound = "\x00".join((principal_id, method, path, body_hash)).encode()
        return cls(principal_id.encode(), key.encode(), bound)

    @cached_property
    def _aead(self) -> AESGCM:
        hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=self._salt, info=_INFO)
        return AESGCM(hkdf.derive(self._key))

    def seal(self, answer: str) -> str:
        """``v1.<base64url(nonce + ciphertext + tag)>``."""
        nonce = os.urandom(_NONCE)
        sealed = nonce + self._aead.encrypt(nonce, answer.encode(), self._bound)
        return f"{VERSION}.{base64.urlsafe_b64encode(sealed).decode()}"

    def open(self, stored: str) -> str | None:
        """The answer, or None when ``stored`` was not sealed for this key and request (an
        answer kept :func:`plain` is returned as it is)."""
        version, _, text = stored.partition(".")
        if version == PLAIN:
            return text
        if version != VERSION:
            return None
        try:
            raw = base64.urlsafe_b64decode(text)
            return self._aead.decrypt(raw[:_NONCE], raw[_NONCE:], self._bound).decode()
        except (InvalidTag, ValueError):  # binascii and Unicode errors are ValueErrors
            return None
