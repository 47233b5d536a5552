"""schemathesis against ``/openapi.json`` of a live platform, on both REST surfaces.

The platform runs on a loopback port with a seeded world (people, agents, a room with
messages, events, a file, a task, a memory, contact requests, a delegation consent). The
path parameters draw from the seeded ids most of the time (schemathesis dictionaries), so the
generated requests reach real rows, and are otherwise generated. Each surface runs with its
own key (an agent's on ``/api/v1/agent``, a person's on ``/api/v1/me``, a target system's on
``/api/v1/delegation``, the admin's on ``/api/v1/admin``) and the checks
``not_a_server_error``, ``status_code_conformance``, ``content_type_conformance``,
``response_schema_conformance`` and ``negative_data_rejection``; any failure fails the test
and its report is printed. Examples per operation are bounded (``BAND_FUZZ_EXAMPLES``,
default 20) and the seed is fixed, so a run is reproducible and takes a few minutes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import LiveServer, make_agent, make_user

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
)
EXAMPLES = int(os.environ.get("BAND_FUZZ_EXAMPLES", "20"))
SEED = int(os.environ.get("BAND_FUZZ_SEED", "20260501"))
ST = Path(sys.executable).with_name("st")

pytestmark = pytest.mark.timeout(900)


@dataclass
class Seeded:
    keys: dict[str, str]
    ids: dict[str, list[str]]


def _ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, f"{r.request.method} {r.request.url}: {r.text}"
    return r.json()["data"]


async def _seed(server: LiveServer) -> Seeded:
    platform = server.platform
    alice_id, alice = await make_user(platform, "alice")
    bob_id, bob = await make_user(platform, "bob")
    echo_id, echo, echo_handle = await make_agent(platform, alice_id, "Echo")
    spare_id, _, _ = await make_agent(platform, alice_id, "Spare")
    helper_id, _, _ = await make_agent(platform, bob_id, "Helper")
    a, e = {"X-API-Key": alice}, {"X-API-Key": echo}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as c:
        asked = _ok(
            await c.post(
                "/api/v1/me/contacts/requests",
                json={"contact_request": {"recipient_handle": "alice"}},
                headers={"X-API-Key": bob},
            ),
            201,
        )
        _ok(await c.post(f"/api/v1/me/contacts/requests/{asked['id']}/approve", headers=a))
        room = _ok(
            await c.post("/api/v1/me/chats", json={"chat": {"title": "Main"}}, headers=a), 201
        )
        for who in (echo_id, spare_id, bob_id):
            body = {"participant": {"participant_id": who}}
            _ok(
                await c.post(f"/api/v1/me/chats/{room['id']}/participants", json=body, headers=a),
                201,
            )
        chat = f"/api/v1/me/chats/{room['id']}"
        hello = _ok(
            await c.post(
                f"{chat}/messages", json={"message": {"content": f"@{echo_handle} hi"}}, headers=a
            ),
            201,
        )
        agent_chat = f"/api/v1/agent/chats/{room['id']}"
        await c.post(f"{agent_chat}/messages/{hello['id']}/processing", headers=e)
        event = {"event": {"content": "looking", "message_type": "thought", "metadata": {"k": 1}}}
        _ok(await c.post(f"{agent_chat}/events", json=event, headers=e), 201)
        reply = {"message": {"content": "hello", "mentions": [{"handle": "alice"}]}}
        _ok(await c.post(f"{agent_chat}/messages", json=reply, headers=e), 201)
        upload = {**a, "x-file-name": "notes.txt", "content-type": "text/plain"}
        stored = _ok(await c.put(f"{chat}/files", content=b"notes", headers=upload), 201)
        task = _ok(
            await c.post(
                f"{agent_chat}/tasks", json={"subject": "Plan", "detail": "the plan"}, headers=e
            ),
            201,
        )
        memory = {
            "memory": {
                "content": "Alice likes tea",
                "system": "long_term",
                "type": "semantic",
                "segment": "user",
                "thought": "said so",
                "scope": "subject",
                "subject_id": alice_id,
            }
        }
        remembered = _ok(await c.post("/api/v1/agent/memories", json=memory, headers=e), 201)
        _carl_id, carl = await make_user(platform, "carl")
        pending = _ok(
            await c.post(
                "/api/v1/me/contacts/requests",
                json={"contact_request": {"recipient_handle": "alice"}},
                headers={"X-API-Key": carl},
            ),
            201,
        )
        job = _ok(
            await c.post("/api/v1/me/chats/bulk-delete", json={"ids": ["nothing"]}, headers=a), 202
        )
        made = _ok(
            await c.post(
                "/api/v1/me/delegation/systems", json={"system": {"name": "Cal"}}, headers=a
            ),
            201,
        )
        system = made["system"]["id"]
        consent = {"consent": {"agent_id": helper_id, "system_id": system}}
        given = _ok(await c.post("/api/v1/me/delegation/consents", json=consent, headers=a), 201)
    return Seeded(
        keys={"alice": alice, "echo": echo, "system": made["credentials"]["api_key"]},
        ids={
            "chat_id": [room["id"]],
            "message_id": [hello["id"]],
            "participant_id": [spare_id, bob_id],
            "agent_id": [spare_id],
            "memory_id": [remembered["id"]],
            "file_id": [stored["id"]],
            "task_id": [task["id"], "1"],
            "request_id": [pending["id"]],
            "job_id": [job["id"]],
            "system_id": [system],
            "consent_id": [given["id"]],
        },
    )


def _config(seeded: Seeded) -> str:
    lines = []
    for name, values in seeded.ids.items():
        if values:
            lines.append(f"[dictionaries.{name}]\nvalues = {json.dumps(values)}\n")
    lines.append("[parameters]")
    for name, values in seeded.ids.items():
        if values:
            lines.append(f'"path.{name}" = {{ dictionary = "{name}", probability = 0.85 }}')
    return "\n".join(lines) + "\n"


async def _run(server: LiveServer, tmp_path: Path, key: str, surface: str) -> tuple[int, str]:
    config = tmp_path / "schemathesis.toml"
    argv = [
        str(ST),
        "--config-file",
        str(config),
        "run",
        f"{server.url}/openapi.json",
        "--checks",
        ",".join(CHECKS),
        "--include-path-regex",
        f"^{surface}/",
        "--header",
        f"X-API-Key: {key}",
        "--max-examples",
        str(EXAMPLES),
        "--seed",
        str(SEED),
        "--phases",
        "examples,coverage,fuzzing",
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--generation-database",
        "none",
        "--no-color",
        "--continue-on-failure",
        "--suppress-health-check",
        "all",
    ]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "SCHEMATHESIS_HOOKS": ""},
    )
    out, _ = await proc.communicate()
    return int(proc.returncode or 0), out.decode(errors="replace")


@pytest.mark.parametrize(
    ("surface", "who"),
    [
        ("/api/v1/agent", "echo"),
        ("/api/v1/me", "alice"),
        ("/api/v1/delegation", "system"),
        ("/api/v1/admin", "alice"),  # the first person: the deployment's admin
    ],
)
async def test_schemathesis_finds_nothing(
    live_server: LiveServer, tmp_path: Path, surface: str, who: str
) -> None:
    if not ST.exists():
        pytest.fail(
            f"schemathesis is not installed in the test venv ({ST}); it is in the dev extra"
        )
    seeded = await _seed(live_server)
    (tmp_path / "schemathesis.toml").write_text(_config(seeded))
    code, report = await _run(live_server, tmp_path, seeded.keys[who], surface)
    print(report[-6000:])
    assert code == 0, f"schemathesis found problems on {surface}:\n{report[-20000:]}"
