"""What every namespace of ``AsyncRestClient`` shares: options, answers, errors, one call path.

A call goes through the SDK's one HTTP seam (``band.platform._http.HttpCore``), so retries,
``Idempotency-Key`` and the transport swap for tests are the same as for the agent runtime.
Answers keep band-client-rest's shape: an object with ``.data`` (a model, or a list of
models, read by attribute) and, for lists, ``.metadata``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any, Generic, NotRequired, TypedDict, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from band._signatures import same_parameters_as
from band.platform._http import HttpCore

from ._errors import ApiError, ParsingError, raise_for

__all__ = [
    "DEFAULT_REQUEST_OPTIONS",
    "NO_RETRY_REQUEST_OPTIONS",
    "ApiError",
    "ApiResponse",
    "Caller",
    "Record",
    "RequestOptions",
    "download",
]

log = logging.getLogger("band.client.rest")

M = TypeVar("M", bound=BaseModel)
D = TypeVar("D")


class RequestOptions(TypedDict, total=False):
    """Per-call options: ``max_retries`` (0 sends once) and ``timeout_in_seconds``."""

    timeout_in_seconds: NotRequired[int]
    max_retries: NotRequired[int]
    additional_headers: NotRequired[dict[str, Any]]
    additional_query_parameters: NotRequired[dict[str, Any]]
    additional_body_parameters: NotRequired[dict[str, Any]]
    chunk_size: NotRequired[int]


DEFAULT_REQUEST_OPTIONS: RequestOptions = {"max_retries": 3}
NO_RETRY_REQUEST_OPTIONS: RequestOptions = {"max_retries": 0}


class Record(BaseModel):
    """A JSON object read by attribute (unknown keys kept): list metadata, untyped answers."""

    model_config = ConfigDict(extra="allow", frozen=True)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


class ApiResponse(BaseModel, Generic[D]):
    """One answer: ``data`` and, for pages, ``metadata`` (``total_pages``, ``next_cursor``...)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    data: D
    metadata: Record | None = None


def _parse(model: type[M], value: Any) -> M | Record:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        # The platform answered more loosely than the model: still readable by attribute.
        log.debug("answer does not fit %s: %s", model.__name__, exc.errors()[:1])
        return Record.model_validate(value if isinstance(value, dict) else {"value": value})


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class Caller:
    """Sends one logical request and shapes the answer; shared by every namespace."""

    def __init__(self, http: HttpCore) -> None:
        self.http = http

    async def raw(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        options: RequestOptions | None = None,
        content: bytes | None = None,
    ) -> httpx.Response:
        """The successful response itself (file downloads); non-2xx raises ``ApiError``."""
        opts = options or {}
        query = _drop_none({**(params or {}), **opts.get("additional_query_parameters", {})})
        if isinstance(json, dict) and opts.get("additional_body_parameters"):
            json = {**json, **opts["additional_body_parameters"]}
        timeout = opts.get("timeout_in_seconds")
        response = await self.http.send(
            method,
            path,
            params=query or None,
            json=json,
            retry=opts.get("max_retries", 1) != 0,
            request_timeout=float(timeout) if timeout is not None else None,
            content=content,
            extra_headers={k: str(v) for k, v in opts.get("additional_headers", {}).items()},
        )
        if not response.is_success:
            from band.platform._http import error_from_response

            try:
                body: Any = response.json()
            except ValueError:
                body = response.text
            raise_for(error_from_response(response), body, dict(response.headers))
        return response

    @same_parameters_as(raw)
    async def send(self, method: str, path: str, **kwargs: Any) -> dict[str, Any] | None:
        """The whole success body, None for 204 (``raw``'s parameters); non-2xx raises
        ``ApiError``."""
        response = await self.raw(method, path, **kwargs)
        if response.status_code == 204 or not response.content:
            return None
        try:
            body = response.json()
        except ValueError as exc:
            raise ParsingError(
                headers=dict(response.headers),
                status_code=response.status_code,
                body=response.text,
                cause=exc,
            ) from exc
        return body if isinstance(body, dict) else {"data": body}

    async def one(
        self,
        model: type[M],
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        options: RequestOptions | None = None,
    ) -> ApiResponse[Any]:
        """An answer whose ``data`` is one ``model``."""
        body = await self.send(method, path, params=params, json=json, options=options) or {}
        return _answer(model, body)

    async def maybe(
        self,
        model: type[M],
        method: str,
        path: str,
        *,
        json: Any = None,
        options: RequestOptions | None = None,
    ) -> ApiResponse[Any] | None:
        """Like ``one``, but None when the platform answered 204 (nothing there / stopped)."""
        body = await self.send(method, path, json=json, options=options)
        return None if body is None else _answer(model, body)

    async def many(
        self,
        model: type[M],
        path: str,
        *,
        params: dict[str, Any] | None = None,
        options: RequestOptions | None = None,
    ) -> ApiResponse[Any]:
        """A list answer: ``data`` is a list of ``model``, ``metadata`` the paging."""
        body = await self.send("GET", path, params=params, options=options) or {}
        items = body.get("data") or []
        if isinstance(items, list):
            data: Any = [_parse(model, item) for item in items]
        else:  # e.g. contact requests: {"received": [...], "sent": [...]}
            data = _parse(Record, items)
        return ApiResponse(data=data, metadata=_meta(body))


async def download(
    caller: Caller, path: str, *, range: str | None = None, options: RequestOptions | None = None
) -> AsyncIterator[bytes]:
    """A file's bytes as chunks (``range`` such as ``bytes=0-99`` asks for one span)."""
    opts: RequestOptions = dict(options or {})  # type: ignore[assignment]
    if range is not None:
        opts["additional_headers"] = {**opts.get("additional_headers", {}), "range": range}
    response = await caller.raw("GET", path, options=opts)

    async def chunks() -> AsyncIterator[bytes]:
        yield response.content

    return chunks()


def _answer(model: type[M], body: dict[str, Any]) -> ApiResponse[Any]:
    """An answer whose ``data`` is one ``model``, with the body's paging metadata."""
    return ApiResponse(data=_parse(model, body.get("data")), metadata=_meta(body))


def _meta(body: dict[str, Any]) -> Record | None:
    meta = body.get("metadata") or body.get("meta")
    return Record.model_validate(meta) if isinstance(meta, dict) else None
