"""The fast lane answers exactly as FastAPI does: a differential property test.

For every route the lane serves (enumerated from the lane itself, ``app.api_lanes()``: a new
lane route is covered by construction), the same request goes to the app with the lane and to
the app with the lane switched off (``BAND_FAST_LANE=0``), both started from one seeded
database. Both must give the same status, the same error code, the same answer (ids minted
during the run and times masked), the same answer headers that matter, and leave the same
rows in their databases; neither may answer 5xx.

Two properties: requests of every kind (keys of every kind, duplicated, revoked, oversized,
non-ASCII; path ids of the world, foreign and malformed; content types; idempotency keys;
query strings), and bodies of every kind (valid from the route's model, malformed, deep,
huge, of wrong types, odd unicode, other encodings) sent as the route expects them.
"""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from lane_pair import Pair, masked, pair, snapshot
from lane_requests import Request, requests, resolve

from band_server.app import api_lanes
from property_kit import live

LANES = [lane for lane in api_lanes() if lane.simple]
HEADERS = ("content-type", "idempotent-replayed", "retry-after", "band-working", "location")
EXAMPLES = {"requests": 500, "bodies": 500}
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    with pair(tmp_path_factory.mktemp("lane")) as p:
        yield p


def _answer(response: httpx.Response, p: Pair) -> dict[str, Any]:
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    if isinstance(body, dict) and isinstance(body.get("data"), dict):
        # Secrets shown once are random by design: only their presence is compared.
        for part in ("credentials", "system"):
            inner = body["data"].get(part)
            if isinstance(inner, dict):
                for name in ("api_key", "key", "secret"):
                    if name in inner:
                        inner[name] = "<secret>"
    error = body.get("error", {}) if isinstance(body, dict) else {}
    return {
        "status": response.status_code,
        "code": error.get("code") if isinstance(error, dict) else None,
        "body": masked(body, p.world),
        # (a redirect's Location names each app's own port)
        "headers": {h: _local(response.headers.get(h)) for h in HEADERS},
    }


def _local(value: str | None) -> str | None:
    return None if value is None else re.sub(r"^http://127\.0\.0\.1:\d+", "", value)


def _send(p: Pair, req: Request, app: int) -> httpx.Response:
    url, headers = resolve(req, p.world, app)
    return p.clients[app].request(req.method, url, headers=headers, content=req.body)


def _follow(p: Pair, req: Request, answers: list[httpx.Response]) -> None:
    """Keep the world as both apps now have it: a regenerated key replaces the old one per
    app (each got its own secret); a participant removed from the world's room is added back
    (the same request to both)."""
    ok = all(a.status_code < 300 for a in answers)
    if ok and req.template.endswith("/regenerate-key"):
        agent = dict(req.params).get("agent_id", "")
        name = agent if agent in p.world.keys[0] else None
        if name is not None:
            for app, answer in enumerate(answers):
                p.world.keys[app][name] = answer.json()["data"]["credentials"]["api_key"]
    if ok and req.method == "DELETE" and "/participants/" in req.template:
        room = f"/api/v1/me/chats/{p.world.ids['room']}/participants"
        for name in ("echo", "helper", "bob"):
            body = {"participant": {"participant_id": p.world.ids[name]}}
            statuses = {
                c.post(room, json=body, headers={"x-api-key": p.world.keys[i]["alice"]}).status_code
                for i, c in enumerate(p.clients)
            }
            assert len(statuses) == 1, statuses


def check_alike(p: Pair, req: Request, seen: collections.Counter[str]) -> None:
    """Send ``req`` to both apps; assert the answers and databases match, and no 5xx."""
    note(f"{req.method} {resolve(req, p.world, 0)[0]} keys={req.keys} headers={req.headers}")
    note(f"body={req.body[:300] if req.body else req.body!r}")
    answers = [_send(p, req, app) for app in (0, 1)]
    lane, routed = (_answer(a, p) for a in answers)
    assert lane["status"] < 500, lane
    assert lane == routed, (lane, routed)
    snapshots = [snapshot(s.db, p.world) for s in p.served]
    assert snapshots[0] == snapshots[1], _difference(*snapshots)
    seen[f"{lane['status'] // 100}xx"] += 1
    seen[f"{lane['status']} {lane['code']}"] += 1
    if lane["status"] < 300:
        seen[f"{req.method} {req.template}"] += 1
    _follow(p, req, answers)


def _difference(a: dict[str, list[str]], b: dict[str, list[str]]) -> str:
    out = []
    for table in sorted(set(a) | set(b)):
        only_a = sorted(set(a.get(table, ())) - set(b.get(table, ())))
        only_b = sorted(set(b.get(table, ())) - set(a.get(table, ())))
        if only_a or only_b:
            out.append(f"{table}: lane only {only_a[:3]}; routed only {only_b[:3]}")
    return "\n".join(out)


def _run(p: Pair, name: str, strategy: st.SearchStrategy[Request]) -> collections.Counter[str]:
    seen: collections.Counter[str] = collections.Counter()

    # The two apps keep their state from one example to the next (as a client's calls
    # do): an example replayed later meets another state, so nothing is shrunk.
    @live(EXAMPLES[name], shrink=False)
    @given(req=strategy)
    def alike(req: Request) -> None:
        check_alike(p, req, seen)

    alike()
    print(f"\n{name}: {sum(seen[f'{n}xx'] for n in range(1, 6))} examples, {json.dumps(seen)}")
    return seen


def test_the_lane_serves_routes_of_both_surfaces() -> None:
    """What the properties cover: the lane's own routes, of both REST surfaces."""
    templates = {lane.template for lane in LANES}
    assert "/api/v1/agent/chats/{chat_id}/events" in templates
    assert "/api/v1/me/chats/{chat_id}/messages" in templates
    assert len(LANES) >= 50, sorted(templates)


def test_requests_of_every_kind_are_answered_alike(both: Pair) -> None:
    seen = _run(both, "requests", requests(LANES, both.world, odd=True))
    assert seen["4xx"] > 0 and seen["2xx"] > 0, seen


def test_bodies_of_every_kind_are_answered_alike(both: Pair) -> None:
    seen = _run(both, "bodies", requests(LANES, both.world, odd=False))
    served = {k for k in seen if k.startswith(("GET ", "POST ", "PUT ", "PATCH ", "DELETE "))}
    # Valid bodies reach the services: many lane routes answered a success at least once
    # (the world changes as it goes: a memory deleted early answers 404 after).
    assert len(served) >= len(LANES) * 2 // 5, sorted(served)


def test_the_lane_app_has_the_lane_and_the_other_not(both: Pair, tmp_path: Path) -> None:
    lane_app, routed_app = (s.app for s in both.served)
    assert _has_lane(lane_app) and not _has_lane(routed_app)


def _has_lane(app: Any) -> bool:
    from band_server.http.fast_lane import FastLane

    layer = app.http_stack
    while layer is not None:
        if isinstance(layer, FastLane):
            return True
        layer = getattr(layer, "app", None)
    return False
