"""Every public method of band-client-rest 0.0.46 and 0.0.51 against a real `band serve`.

Each client version lives in its own cached venv (`tests/compat/.venv-rest-<version>`, built
from PyPI on first use, fingerprinted). For each version a fresh server is seeded (people,
agents, a room, contact requests, a delegation consent) and `rest_calls/runner.py` calls every
method the client has (found by introspection) with the rows of `rest_calls/calls.py`. The
table of OK / PARSE / HTTP / CHECK per sub-client is printed; anything but OK (or PENDING, for
the files-tasks methods listed in `calls.PENDING_FILES_TASKS`) fails.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .compat_harness import COMPAT_DIR, ServerProcess, seed
from .isolated_venv import Unavailable, VenvSpec, clean_env, ensure_venv

pytestmark = pytest.mark.compat

VERSIONS = ("0.0.46", "0.0.51")
CALLS_DIR = COMPAT_DIR / "rest_calls"
PASSING = {"OK", "PENDING"}
STATUSES = ("OK", "PARSE", "HTTP", "CHECK", "ERROR", "NO ROW", "PENDING")


def rest_venv(version: str) -> VenvSpec:
    return VenvSpec(
        COMPAT_DIR / f".venv-rest-{version}",
        (f"band-client-rest=={version}",),
        "band-client-rest",
        version,
    )


@pytest.fixture(scope="session")
def say(pytestconfig: pytest.Config) -> Callable[[str], None]:
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")

    def out(text: str) -> None:
        if capture is not None:
            with capture.global_and_fixture_disabled():
                print(text, flush=True)
        else:
            print(text, flush=True)

    return out


async def _build_world(seeder: Any) -> dict[str, Any]:
    from band_server.services.contacts import requests as contacts
    from band_server.services.identity import accounts
    from band_server.services.rooms import membership as rooms
    from band_server.services.unit import UnitOfWork

    db = seeder.db
    people: dict[str, dict[str, str]] = {}
    agents: dict[str, dict[str, str]] = {}
    async with db.write() as session:
        for handle in ("alice", "bob", "carol", "dave", "erin"):
            user, key = await accounts.create_user(
                session, name=handle.title(), handle=handle, email=f"{handle}@example.org"
            )
            people[handle] = {"id": user.id, "key": key, "email": f"{handle}@example.org"}
        for short, owner, name in (
            ("echo", "alice", "Echo"),
            ("other", "alice", "Other"),
            ("helper", "bob", "Helper"),
        ):
            user = await accounts.get_user(session, people[owner]["id"])
            agent, key = await accounts.create_agent(
                session, user, name=name, description=f"{name}, an agent of {owner}'s"
            )
            agents[short] = {"id": agent.id, "key": key, "handle": agent.handle}
    principal = {h: accounts.user_principal(await _user(db, p["id"])) for h, p in people.items()}
    requests: dict[str, str] = {}
    async with db.write() as session:
        uow = UnitOfWork(session)
        room, _ = await rooms.create_room(session, principal["alice"], title="Main", task_id=None)
        for who in (agents["echo"]["id"], agents["other"]["id"], people["bob"]["id"]):
            await rooms.add_participant(session, principal["alice"], room, who)
        await contacts.add_contact(uow, principal["alice"], handle="bob", message=None)
        await contacts.respond(uow, principal["bob"], action="approve", handle="alice")
        for handle in ("carol", "dave"):
            request_id, _ = await contacts.add_contact(
                uow, principal[handle], handle="alice", message=f"{handle} here"
            )
            requests[handle] = request_id
    world: dict[str, Any] = {
        "people": people,
        "agents": agents,
        "rooms": {"main": room.id},
        "requests": requests,
    }
    world.update(await _delegation(db, people, agents, room.id))
    return world


async def _user(db: Any, user_id: str) -> Any:
    from band_server.services.identity import accounts

    async with db.read() as session:
        return await accounts.get_user(session, user_id)


async def _delegation(
    db: Any, people: dict[str, Any], agents: dict[str, Any], room_id: str
) -> dict[str, Any]:
    """Bob registers a system and lets alice's Echo act for him there."""
    from band_server.services.delegation import exchange as delegation

    async with db.write() as session:
        audience = await delegation.seed_consent(
            session, person_id=people["bob"]["id"], agent_id=agents["echo"]["id"]
        )
    return {"delegation": {"audience": audience}}


def _table(version: str, methods: dict[str, dict[str, Any]]) -> str:
    per_sub: dict[str, Counter[str]] = {}
    for name, result in methods.items():
        per_sub.setdefault(name.split(".")[0], Counter())[result["status"]] += 1
    head = f"band-client-rest {version}: " + ", ".join(
        f"{n} {s}" for s, n in Counter(r["status"] for r in methods.values()).most_common()
    )
    lines = [head, f"  {'sub-client':<28}" + "".join(f"{s:>8}" for s in STATUSES)]
    for sub in sorted(per_sub):
        lines.append(f"  {sub:<28}" + "".join(f"{per_sub[sub][s] or '.':>8}" for s in STATUSES))
    for name, result in sorted(methods.items()):
        if result["status"] not in PASSING:
            label = f" [{result['label']}]" if result.get("label") else ""
            lines.append(f"  {result['status']:<6} {name}{label}: {result['detail'][:900]}")
    return "\n".join(lines)


@pytest.mark.parametrize("version", VERSIONS)
async def test_every_method_of_the_rest_client_parses(
    version: str, tmp_path: Path, say: Callable[[str], None]
) -> None:
    try:
        python = ensure_venv(rest_venv(version), lambda line: say(f"[rest {version}] {line}"))
    except Unavailable as exc:
        pytest.skip(f"band-client-rest {version} unavailable: {exc}")
    data_dir = tmp_path / "data"
    world = await seed(data_dir, _build_world)
    server = ServerProcess(data_dir=data_dir, log_dir=tmp_path / "logs")
    await server.start()
    try:
        world["url"] = server.url
        world_path, results_path = tmp_path / "world.json", tmp_path / "results.json"
        world_path.write_text(json.dumps(world))
        run = subprocess.run(
            [str(python), str(CALLS_DIR / "runner.py"), str(world_path), str(results_path)],
            capture_output=True,
            text=True,
            timeout=600,
            env=clean_env(),
            cwd=str(tmp_path),
        )
        assert run.returncode == 0, f"runner failed:\n{run.stdout}\n{run.stderr}"
        report = json.loads(results_path.read_text())
    finally:
        server.stop()
    methods: dict[str, dict[str, Any]] = report["methods"]
    say("\n" + _table(version, methods))
    assert len(methods) >= 70, f"introspection found only {len(methods)} methods"
    assert not report["stray_rows"], f"rows for methods the client lacks: {report['stray_rows']}"
    failing = {n: r["status"] for n, r in methods.items() if r["status"] not in PASSING}
    server_log = server.log_path.read_text(errors="replace")
    assert "Traceback" not in server_log, f"the server logged a traceback:\n{server_log[-4000:]}"
    assert not failing, f"{len(failing)} methods are not OK: {failing}"
