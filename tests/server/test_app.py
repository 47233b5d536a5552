"""The app starts, migrates, serves OpenAPI and answers unknown paths with the envelope."""

import httpx


async def test_openapi_is_served(client: httpx.AsyncClient) -> None:
    r = await client.get("/openapi.json")
    assert r.status_code == 200
    assert r.json()["info"]["title"].startswith("Band")


async def test_unknown_path_gets_error_envelope(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/v1/nope")
    assert r.status_code == 404
    err = r.json()["error"]
    assert err["code"] == "not_found"
    assert err["request_id"]
