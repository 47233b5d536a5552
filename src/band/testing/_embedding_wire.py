"""OpenAI's ``/v1/embeddings`` for the fake endpoint: deterministic hashed vectors.

Each word adds +-1 at a position its hash picks (signed bag of words), L2-normalised, so
texts sharing words are near. ``encoding_format: "base64"`` (what the ``openai`` client asks
for by default) answers little-endian float32 bytes, as OpenAI does.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import struct
from typing import Any

__all__ = ["DEFAULT_DIMENSIONS", "embeddings", "hash_vector"]

DEFAULT_DIMENSIONS = 1536


def hash_vector(text: str, dimensions: int) -> list[float]:
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        index = int.from_bytes(digest[:4], "big") % dimensions
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def embeddings(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """``(status, JSON body)`` of an embeddings request."""
    raw = body.get("input")
    texts = [raw] if isinstance(raw, str) else raw
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        error = {
            "message": "input must be a string or a list of strings",
            "type": "invalid_request_error",
        }
        return 400, {"error": error}
    dimensions = int(body.get("dimensions") or DEFAULT_DIMENSIONS)
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(texts):
        vector = hash_vector(text, dimensions)
        encoded: Any = (
            base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode()
            if as_base64
            else vector
        )
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    tokens = sum(len(t.split()) for t in texts)
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return 200, {"object": "list", "data": data, "model": body.get("model", ""), "usage": usage}
