"""The OpenAPI document declares every error status of every route with the error envelope."""

from __future__ import annotations

import httpx


async def test_every_route_declares_its_error_statuses_with_the_envelope(
    client: httpx.AsyncClient,
) -> None:
    doc = (await client.get("/openapi.json")).json()
    assert "ErrorEnvelope" in doc["components"]["schemas"]
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    seen = 0
    for path, ops in doc["paths"].items():
        if not path.startswith("/api/v1/"):
            continue
        for method, op in ops.items():
            responses = op["responses"]
            assert {"401", "403"} <= set(responses), (method, path)
            if "{" in path:
                assert "404" in responses, (method, path)
            if method in ("post", "put", "patch", "delete"):
                assert "409" in responses, (method, path)
            for code, entry in responses.items():
                if int(code) >= 400:
                    schema = entry["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorEnvelope"}, (path, code)
            seen += 1
    assert seen > 60
    rename = doc["paths"]["/api/v1/me/chats/{chat_id}"]["patch"]["responses"]
    assert {"400", "401", "403", "404", "409", "422"} <= set(rename)
