"""The OpenAPI document: every status a route can answer, with the error envelope, declared in
one place for every route (including routes added later), not by hand per route.

How it works: docs/internals/server.md, "The OpenAPI document's statuses".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from band_protocol import ErrorEnvelope
from band_server.http.json_body import MAX_DEPTH

API_PREFIX = "/api/v1/"
WRITES = {"POST", "PUT", "PATCH", "DELETE"}
DESCRIPTIONS = {
    400: "Malformed request: the body is not strict JSON (no NaN or Infinity, at most "
    f"{MAX_DEPTH} levels deep), or a header that must come once (X-API-Key, Idempotency-Key, "
    "Content-Type) was sent twice",
    401: "Missing, invalid or revoked API key",
    403: "This key may not do this",
    404: "No such resource, or one the caller may not see",
    409: "Conflicts with the current state or a concurrent change",
    413: "Payload too large",
    416: "Range not satisfiable",
    422: "Validation error (JSON-pointer keys in error.details)",
    429: "Too many requests",
    503: (
        "The database can't be reached right now (`unavailable`), or the node has too many "
        "requests under way (`overloaded`); retry after `Retry-After` seconds"
    ),
}
RETRY_AFTER_HEADER = {
    "Retry-After": {"description": "Seconds to wait before retrying", "schema": {"type": "integer"}}
}
ENVELOPE_REF = {"$ref": "#/components/schemas/ErrorEnvelope"}
KEY_HEADER = "x-api-key"
SECURITY_SCHEMES = {
    "ApiKey": {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "A person's key on /me, an agent's key on /agent, a system's key on "
        "/delegation/introspect",
    }
}


def walk(routes: Iterable[Any], prefix: str = "") -> Iterator[tuple[str, APIRoute]]:
    """(full path, route) of every API route, through included routers of any depth."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:  # FastAPI includes routers lazily
            yield from walk(included.routes, prefix + route.include_context.prefix)
        elif isinstance(route, APIRoute):
            yield prefix + route.path_format, route


def route_statuses(path: str, route: APIRoute) -> set[int]:
    """The error statuses a route can answer, from its shape."""
    statuses: set[int] = set()
    if path.startswith(API_PREFIX):
        # 400: a header sent twice (http.single_headers); 503: every API route needs the database
        statuses |= {400, 401, 403, 503}
    dependant = route.dependant
    params = [*dependant.query_params, *dependant.path_params, *dependant.body_params]
    for sub in dependant.dependencies:
        params += [*sub.query_params, *sub.path_params, *sub.body_params]
    if dependant.path_params:
        statuses.add(404)
    if params:
        statuses.add(422)
    if dependant.body_params:
        statuses.add(400)
    if (route.methods or set()) & WRITES:
        statuses |= {409, 413}  # 413: a body past http.body_limit (or a file past its limit)
    return statuses


def _key_as_security(op: dict[str, Any]) -> None:
    """The API key is a security scheme, not a parameter a client fills in per call."""
    params = op.get("parameters", [])
    kept = [p for p in params if not (p.get("in") == "header" and p["name"].lower() == KEY_HEADER)]
    if len(kept) != len(params):
        op["security"] = [{"ApiKey": []}]
        if kept:
            op["parameters"] = kept
        else:
            op.pop("parameters", None)


def _only_declared_models(responses: dict[str, Any]) -> None:
    """A success answer declared with a model (``answers``) keeps only the model's ``$ref``:
    FastAPI also writes the return annotation's untyped ``dict`` schema beside it."""
    for code, entry in responses.items():
        if not code.startswith("2"):
            continue
        for media in entry.get("content", {}).values():
            schema = media.get("schema", {})
            if "$ref" in schema:
                media["schema"] = {"$ref": schema["$ref"]}


def _envelope_schemas() -> dict[str, Any]:
    schema = ErrorEnvelope.model_json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    return {**defs, "ErrorEnvelope": schema}


def build(app: FastAPI) -> dict[str, Any]:
    doc = get_openapi(title=app.title, version=app.version, routes=app.routes)
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    components.update(_envelope_schemas())
    doc["components"]["securitySchemes"] = SECURITY_SCHEMES
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    for path, route in walk(app.routes):
        if not route.include_in_schema:
            continue
        ops = doc["paths"].get(path, {})
        for method in route.methods or ():
            op = ops.get(method.lower())
            if op is None:
                continue
            _key_as_security(op)
            responses: dict[str, Any] = op.setdefault("responses", {})
            _only_declared_models(responses)
            declared = {int(code) for code in responses if code.isdigit()}
            for status in route_statuses(path, route) | declared:
                if status < 400:
                    continue
                entry = responses.setdefault(str(status), {})
                entry["description"] = entry.get("description") or DESCRIPTIONS.get(status, "Error")
                if entry["description"] == "Validation Error":
                    entry["description"] = DESCRIPTIONS[422]
                entry["content"] = {"application/json": {"schema": ENVELOPE_REF}}
                if status == 503:
                    entry.setdefault("headers", {}).update(RETRY_AFTER_HEADER)
    return doc


def install(app: FastAPI) -> None:
    """Serve the derived document at ``app.openapi_url`` (built once, on first request)."""
    cache: dict[str, Any] = {}

    def openapi() -> dict[str, Any]:
        if not cache:
            cache.update(build(app))
        return cache

    app.openapi = openapi  # type: ignore[method-assign]
