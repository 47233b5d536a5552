"""The ``band`` command: admin commands against a data folder, and ``band serve``."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from band_server import admin
from band_server.cli import main
from band_server.config import Settings
from conftest import free_port


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


def field(out: str, name: str) -> str:
    """The value printed on the ``name:`` line."""
    for line in out.splitlines():
        if line.startswith(f"{name}:"):
            return line.split(":", 1)[1].strip().split()[0]
    raise AssertionError(f"no {name} in {out!r}")


async def band(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the CLI in a worker thread (it runs its own event loop) and capture its output."""
    code = await asyncio.to_thread(main, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def test_admin_commands_end_to_end(
    client: httpx.AsyncClient,
    settings: Settings,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = str(settings.data_dir)
    code, out, _ = await band(
        capsys, "users", "create", "Alice", "--handle", "alice", "--email", "Alice@Example.org",
        "--data", data,
    )  # fmt: skip
    assert code == 0
    user_key = field(out, "api_key")
    me = await client.get("/api/v1/me/profile", headers=h(user_key))
    assert me.json()["data"]["id"] == field(out, "id")
    assert me.json()["data"]["email"] == "alice@example.org"
    assert me.json()["data"]["role"] == field(out, "role") == "admin"  # the first person

    config = tmp_path / "agent_config.yaml"
    config.write_text(yaml.safe_dump({"other": {"agent_id": "x", "api_key": "y"}}))
    monkeypatch.chdir(tmp_path)
    code, out, _ = await band(
        capsys,
        "agents",
        "create",
        "Echo Bot",
        "--owner",
        "alice",
        "--description",
        "Repeats what it hears",
        "--write-config",
        "agent_config.yaml",
        "--data",
        data,
    )
    assert code == 0, out
    agent_id, agent_key = field(out, "agent_id"), field(out, "api_key")
    saved = yaml.safe_load(config.read_text())
    assert saved == {
        "other": {"agent_id": "x", "api_key": "y"},
        "echo_bot": {"agent_id": agent_id, "api_key": agent_key},
    }
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600
    assert (await client.get("/api/v1/agent/contacts", headers=h(agent_key))).status_code == 200

    code, out, _ = await band(
        capsys,
        "rooms",
        "create",
        "--owner",
        "alice",
        "--title",
        "Ops",
        "--add",
        "alice/echo-bot",
        "--data",
        data,
    )
    assert code == 0
    room_id = field(out, "room_id")
    parts = await client.get(f"/api/v1/me/chats/{room_id}/participants", headers=h(user_key))
    assert [p["handle"] for p in parts.json()["data"]] == ["alice", "alice/echo-bot"]

    code, out, _ = await band(
        capsys,
        "send",
        "--room",
        room_id,
        "--as",
        "alice",
        "@alice/echo-bot status?",
        "--data",
        data,
    )
    assert code == 0 and "@alice/echo-bot" in out
    nxt = await client.get(f"/api/v1/agent/chats/{room_id}/messages/next", headers=h(agent_key))
    assert nxt.status_code == 200
    assert nxt.json()["data"]["id"] == field(out, "message_id")


async def test_rooms_created_without_a_title_are_named_like_the_web_app_names_them(
    client: httpx.AsyncClient, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(settings.data_dir)
    await band(
        capsys, "users", "create", "Alice Ames", "--handle", "alice", "--email", "a@x.org",
        "--data", data,
    )  # fmt: skip
    _, out, _ = await band(
        capsys, "users", "create", "Bob Bell", "--handle", "bob", "--email", "b@x.org",
        "--data", data,
    )  # fmt: skip
    bob_key = field(out, "api_key")
    await band(
        capsys, "agents", "create", "Echo Bot", "--owner", "alice", "--description",
        "Repeats what it hears", "--data", data,
    )  # fmt: skip

    async def title_of(*argv: str) -> str:
        code, out, err = await band(capsys, "rooms", "create", "--owner", *argv, "--data", data)
        assert code == 0, err
        room = await client.get(f"/api/v1/me/chats/{field(out, 'room_id')}", headers=h(bob_key))
        return str(room.json()["data"]["title"])

    # The others in it, in the order given (the owner and repeats left out), as the web app does.
    named = await title_of("bob", "--add", "alice/echo-bot", "alice", "bob", "alice")
    assert named == "Echo Bot, Alice Ames"
    assert await title_of("bob", "--title", "  ", "--add", "alice") == "Alice Ames"
    assert await title_of("bob", "--title", " Ops ") == "Ops"
    assert await title_of("bob") == "Bob Bell"  # a room of one is named after its owner
    code, _, err = await band(
        capsys, "rooms", "create", "--owner", "bob", "--title", "x" * 201, "--data", data
    )
    assert code != 0 and "too long" in err and len(err.strip().splitlines()) == 1


async def test_admin_errors_are_one_line(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(settings.data_dir)
    await band(
        capsys, "users", "create", "Alice", "--handle", "alice", "--email", "a@x.org",
        "--data", data,
    )  # fmt: skip
    cases = [
        ("users", "create", "Again", "--handle", "alice", "--email", "b@x.org"),
        ("users", "create", "Same", "--handle", "alice2", "--email", "A@x.org"),
        ("users", "create", "Bad", "--handle", "NO SPACES", "--email", "c@x.org"),
        ("users", "create", "Bad", "--handle", "bad", "--email", "not an address"),
        ("agents", "create", "Bot", "--owner", "ghost", "--description", "long enough"),
        ("agents", "create", "B", "--owner", "alice", "--description", "long enough"),
        ("rooms", "create", "--owner", "alice", "--add", "ghost"),
        ("send", "--room", "no-such-room", "--as", "alice", "hi"),
    ]
    for argv in cases:
        code, out, err = await band(capsys, *argv, "--data", data)
        assert code == 1, argv
        assert err.startswith("band: error: ") and err.count("\n") == 1, err
        assert "api_key" not in out


async def test_bootstrap_admin_happens_once(settings: Settings) -> None:
    first = await admin.bootstrap_admin(settings, "root@example.org")
    assert first is not None and first.handle == "admin" and first.role == "admin"
    assert await admin.bootstrap_admin(settings) is None
    second = await admin.create_user(settings, "Bob", "bob", "bob@example.org")
    assert second.role == "user"  # only the first person is the admin


async def test_bootstrap_admin_finds_the_admin_another_node_made_meanwhile(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL two nodes starting at once can both count no people, then one commits the
    admin before the other checks the handle: the other finds it there and starts (it used to
    exit with "handle 'admin' is taken")."""
    made = await admin.bootstrap_admin(settings, "root@example.org")
    assert made is not None
    real_count = admin.func.count

    class NoPeopleYet:  # the count as the late node read it, before the admin committed
        def __getattr__(self, name: str) -> object:
            return getattr(real_count, name)

        def __call__(self) -> object:
            return real_count().op("*")(0)

    monkeypatch.setattr(admin.func, "count", NoPeopleYet(), raising=False)
    assert await admin.bootstrap_admin(settings) is None


def test_write_config_refuses_a_non_mapping(tmp_path: Path) -> None:
    path = tmp_path / "agent_config.yaml"
    path.write_text("- just\n- a list\n")
    with pytest.raises(admin.AdminError):
        admin.write_agent_config(path, "k", "id", "key")
    assert path.read_text() == "- just\n- a list\n"


def test_demo_slot_reports_a_missing_module(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "band_server.demo", None)
    assert main(["demo"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("band demo is not available") and err.count("\n") == 1


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["users", "create", "NoHandle"])
    assert exc.value.code == 2


@pytest.mark.parametrize("access_log", [False, True], ids=["quiet", "access-log"])
def test_serve_bootstraps_and_answers_healthz(tmp_path: Path, access_log: bool) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "band_server.cli",
            "serve",
            "--port",
            str(port),
            "--data",
            str(tmp_path / "srv"),
            *(["--access-log"] if access_log else []),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.communicate()[0]
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                if r.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)
        assert r.json() == {"status": "ok"}
    finally:
        proc.terminate()
        out = proc.communicate(timeout=15)[0]
    assert f"http://127.0.0.1:{port}" in out
    # One line per request only when asked for (each line costs the server CPU per request).
    assert ('"GET /healthz HTTP/1.1" 200' in out) is access_log
    key = out.split("keep it safe):", 1)[1].split()[0]
    assert key.startswith("band_u_")
    profile = asyncio.run(_profile(tmp_path / "srv", key))
    assert profile == "admin"


async def _profile(data: Path, key: str) -> str:
    from band_server.app import create_app

    app = create_app(Settings(data_dir=data, database_url=None, redis_url=None))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
            r = await c.get("/api/v1/me/profile", headers=h(key))
            return str(r.json()["data"]["handle"])
