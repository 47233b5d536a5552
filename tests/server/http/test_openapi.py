"""The OpenAPI document declares every error status of every route with the error envelope."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

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
            assert {"401", "403", "503"} <= set(responses), (method, path)
            assert "Retry-After" in responses["503"]["headers"], (method, path)
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


async def test_every_success_answer_of_the_api_names_its_model(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    schemas = doc["components"]["schemas"]
    untyped = []
    for path, ops in doc["paths"].items():
        if not path.startswith("/api/v1/"):
            continue
        for method, op in ops.items():
            for code, entry in op["responses"].items():
                json_body = entry.get("content", {}).get("application/json")
                if not code.startswith("2") or json_body is None:
                    continue
                ref = json_body["schema"].get("$ref", "")
                name = ref.rsplit("/", 1)[-1]
                if name not in schemas or not schemas[name].get("properties"):
                    untyped.append(f"{method.upper()} {path} {code}")
    assert not untyped, f"success answers without a model: {untyped}"
    room = schemas["Envelope_MeChatRoomDetail_"]
    assert room["required"] == ["data"]
    token = doc["paths"]["/api/v1/agent/delegation/token"]["post"]["responses"]
    assert token["200"]["content"]["application/json"]["schema"]["$ref"].endswith("DelegatedToken")
    assert {"413", "429"} <= set(token)
    assert doc["components"]["securitySchemes"]["ApiKey"]["name"] == "X-API-Key"
    for ops in doc["paths"].values():
        for op in ops.values():
            assert all(p["name"].lower() != "x-api-key" for p in op.get("parameters", []))
    assert doc["paths"]["/api/v1/me/chats"]["get"]["security"] == [{"ApiKey": []}]
    nothing = doc["paths"]["/api/v1/agent/chats/{chat_id}/messages/next"]["get"]["responses"]
    assert "204" in nothing and "content" not in nothing["204"]


async def test_an_oversized_json_body_is_413_before_anything_reads_it(
    client: httpx.AsyncClient, seeded: Any
) -> None:
    huge = b'{"chat": {"title": "' + b"x" * (1 << 20) + b'"}}'
    headers = {"X-API-Key": seeded.user_key, "content-type": "application/json"}
    r = await client.post("/api/v1/me/chats", content=huge, headers=headers)
    assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large", r.text

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(huge), 65536):
            yield huge[start : start + 65536]

    r = await client.post("/api/v1/me/chats", content=chunks(), headers=headers)
    assert r.status_code == 413, r.text
    listed = await client.get("/api/v1/me/chats", headers=headers)
    assert listed.json()["data"] == [], "nothing was created"

    async def small() -> AsyncIterator[bytes]:
        yield b'{"chat": '
        yield b'{"title": "streamed"}}'

    r = await client.post("/api/v1/me/chats", content=small(), headers=headers)
    assert r.status_code == 201 and r.json()["data"]["title"] == "streamed", r.text
