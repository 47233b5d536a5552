"""Success answers as the OpenAPI document declares them, without touching the hot path.

Routes return plain dicts or pre-serialised responses (the fast lane and ``JSONResponse``
skip FastAPI's response validation on purpose); ``answers(...)`` declares the answer's model
for the document only (FastAPI's ``responses=``), so a generated client and schemathesis'
``response_schema_conformance`` know it, and nothing re-validates it per request.
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel

from band_protocol import Envelope, ListEnvelope

Responses = dict[int | str, dict[str, Any]]

NO_STORE = {"Cache-Control": "no-store"}
_NO_STORE_DOC = {
    "Cache-Control": {
        "description": "`no-store`: the answer holds a secret shown once",
        "schema": {"type": "string", "enum": ["no-store"]},
    }
}


def answers(model: type[BaseModel] | None, status: int = 200, description: str = "") -> Responses:
    """``responses=`` for a route whose ``status`` answer is ``model`` (None: no body)."""
    entry: dict[str, Any] = {"description": description or "Success"}
    if model is not None:
        entry["model"] = model
    return {status: entry}


def one(model: type[BaseModel], status: int = 200) -> Responses:
    """The answer is ``{"data": <model>}``."""
    return answers(Envelope[model], status)  # type: ignore[valid-type]


def many(model: type[BaseModel], status: int = 200) -> Responses:
    """The answer is ``{"data": [<model>], "metadata": {...}}``."""
    return answers(ListEnvelope[model], status)  # type: ignore[valid-type]


def secret(model: type[BaseModel], status: int = 200, *, enveloped: bool = True) -> Responses:
    """Like :func:`one` (or :func:`answers` when not ``enveloped``), for an answer that holds
    a secret shown once: it is sent by :func:`secret_answer` and says ``no-store``."""
    declared = one(model, status) if enveloped else answers(model, status)
    declared[status]["headers"] = _NO_STORE_DOC
    return declared


def secret_answer(body: dict[str, Any], status: int = 200) -> JSONResponse:
    """An answer holding a secret (an API key, a token): never kept by a cache. An
    ``Idempotency-Key`` replay of it is sealed like every replay
    (``services.idempotency.replay_seal``)."""
    return JSONResponse(body, status_code=status, headers=NO_STORE)


def not_found(what: str) -> Responses:
    """``responses=`` entry for a route without path parameters that still names something
    (in its body or query) that may not exist or not be visible to the caller: 404."""
    return {404: {"description": f"No such {what}, or one the caller may not see"}}
