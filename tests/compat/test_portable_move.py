"""A workspace moved between two `band serve` processes with `band export` / `band import`,
and read back through the official band-client-rest (issue 36).

Server A speaks the same REST contract as Band's cloud, so the export reads it as it would
read the cloud. B's admin imports the archive; the person's rooms, read on both servers by
band-client-rest 0.0.46 (its isolated venv), are the same. A `band import` killed with
SIGKILL mid-way and run again doubles nothing; a damaged archive is refused, naming the line,
and B is left as it was.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from .compat_harness import PROJECT_PYTHON, ServerProcess, tail, wait_for
from .isolated_venv import Unavailable, clean_env, ensure_venv
from .portable_world import Party, history, ok, seed
from .test_rest_client import rest_venv

pytestmark = [pytest.mark.compat, pytest.mark.timeout(240)]

READER = Path(__file__).resolve().parent / "rest_calls" / "read_rooms.py"
KEY_LINE = re.compile(r"^\s+(band_u_\S+)\s*$", re.MULTILINE)


def band(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    """The `band` command of this project (as a user runs it), its output as text."""
    return subprocess.run(
        [str(PROJECT_PYTHON), "-m", "band.cli", *args],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=180,
        **kw,
    )


@dataclass
class BandServe(ServerProcess):
    """`band serve` on a loopback port; it makes @admin on first start and prints the key."""

    def _argv(self) -> list[str]:
        return [
            str(PROJECT_PYTHON),
            "-m",
            "band.cli",
            "serve",
            "--data",
            str(self.data_dir),
            "--port",
            str(self.port),
        ]

    def admin_key(self) -> str:
        found = KEY_LINE.search(self.log_path.read_text(encoding="utf-8", errors="replace"))
        assert found, tail(self.log_path)
        return found[1]


def _cli_identity(server: BandServe, kind: str, *args: str) -> Party:
    made = band(kind, "create", *args, "--data", str(server.data_dir))
    assert made.returncode == 0, made.stderr
    fields = dict(
        line.split(":", 1) for line in made.stdout.splitlines() if re.match(r"^\w+:\s", line)
    )
    ident = (fields.get("id") or fields["agent_id"]).strip()
    return Party(ident, fields["api_key"].strip(), fields["handle"].strip())


@dataclass
class Move:
    a: BandServe
    b: BandServe
    alice: Party
    rooms: list[str]
    tmp: Path


async def _post_many(url: str, key: str, room: str, handle: str, count: int) -> None:
    async with httpx.AsyncClient(base_url=url, headers={"X-API-Key": key}, timeout=30) as c:
        for start in range(0, count, 20):
            batch = range(start, min(start + 20, count))
            posts = [
                c.post(
                    f"/api/v1/me/chats/{room}/messages",
                    json={"message": {"content": f"@{handle} note {n}"}},
                )
                for n in batch
            ]
            for answer in await asyncio.gather(*posts):
                ok(answer, 201)


@pytest.fixture(params=[40])
async def move(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Move]:
    """Server A seeded (``request.param`` notes in a second room), server B empty."""
    a = BandServe(data_dir=tmp_path / "a", log_dir=tmp_path / "logs-a")
    b = BandServe(data_dir=tmp_path / "b", log_dir=tmp_path / "logs-b")
    await a.start()
    await b.start()
    try:
        alice = _cli_identity(a, "users", "Alice", "--handle", "alice", "--email", "a@x.org")
        bob = _cli_identity(a, "users", "Bob", "--handle", "bob", "--email", "b@x.org")
        echo = _cli_identity(
            a, "agents", "Echo", "--owner", "alice", "--description", "Echo answers everything"
        )
        launch = await seed(a.url, alice, bob, echo)
        async with httpx.AsyncClient(base_url=a.url, headers={"X-API-Key": alice.key}) as c:
            notes = ok(await c.post("/api/v1/me/chats", json={"chat": {"title": "Notes"}}), 201)
            notes_id = notes["data"]["id"]
            body = {"participant": {"participant_id": echo.id}}
            ok(await c.post(f"/api/v1/me/chats/{notes_id}/participants", json=body), 201)
        await _post_many(a.url, alice.key, notes_id, echo.handle, request.param)
        yield Move(a, b, alice, [launch, notes_id], tmp_path)
    finally:
        a.stop()
        b.stop()


def _read_with_band_client_rest(url: str, key: str, out: Path) -> dict[str, Any]:
    try:
        python = ensure_venv(rest_venv("0.0.46"), lambda line: None)
    except Unavailable as exc:
        pytest.skip(f"band-client-rest unavailable: {exc}")
    done = subprocess.run(
        [str(python), str(READER), url, key, str(out)],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rooms: dict[str, Any] = json.loads(out.read_text())
    return rooms


def _histories(rooms: dict[str, Any]) -> dict[str, list[tuple[Any, ...]]]:
    return {title: history(r["messages"], r["participants"]) for title, r in rooms.items()}


def _export(move: Move, archive: Path) -> dict[str, Any]:
    done = band("export", str(archive), "--url", move.a.url, "--key", move.alice.key, "--json")
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


def _import_argv(move: Move, archive: Path, *extra: str) -> list[str]:
    key = move.b.admin_key()
    return ["import", str(archive), "--url", move.b.url, "--key", key, "--json", *extra]


async def test_rooms_moved_to_another_band_serve_read_the_same_through_band_client_rest(
    move: Move,
) -> None:
    archive = move.tmp / "alice.tar.gz"
    exported = _export(move, archive)
    assert exported["counts"]["room"] == 2 and exported["counts"]["file"] == 1
    done = band(*_import_argv(move, archive))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    alice_b = next(k["api_key"] for k in summary["keys"] if k["note"] == "created @alice")
    source = _read_with_band_client_rest(move.a.url, move.alice.key, move.tmp / "a.json")
    moved = _read_with_band_client_rest(move.b.url, alice_b, move.tmp / "b.json")
    assert sorted(moved) == ["Launch", "Notes"]
    assert _histories(moved) == _histories(source)
    assert len(moved["Notes"]["messages"]) == 40
    again = band(*_import_argv(move, archive))
    assert again.returncode == 0 and json.loads(again.stdout)["created"] == {}


@pytest.mark.parametrize("move", [300], indirect=True)  # enough batches to stop mid-way
async def test_an_import_killed_mid_way_resumes_and_doubles_nothing(move: Move) -> None:
    archive = move.tmp / "alice.tar"
    total = _export(move, archive)["counts"]["message"]
    manifest = json.loads(band("import", str(archive), "--check", "--json").stdout or "{}")
    assert manifest["message"] == total
    admin = {"X-API-Key": move.b.admin_key()}
    archive_id = _archive_id(archive)
    async with httpx.AsyncClient(base_url=move.b.url, headers=admin) as c:
        run = ok(await c.post("/api/v1/admin/imports", json={"archive_id": archive_id}), 201)
        run_url = f"/api/v1/admin/imports/{run['data']['id']}"
        child = subprocess.Popen(  # noqa: ASYNC220 - started, then killed; never waited on here
            [str(PROJECT_PYTHON), "-m", "band.cli", *_import_argv(move, archive, "--batch", "10")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=clean_env(),
        )

        async def mid_way() -> int | None:
            applied = ok(await c.get(run_url))["data"]["applied"].get("message", 0)
            return applied if 0 < applied < total - 50 else None

        await wait_for(mid_way, within=60, interval=0.02, what="the import to be mid-way")
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        # A batch the client sent before it died may still be applied by the server: the count
        # is read once it has stopped moving.
        seen: list[int] = []
        while len(seen) < 3 or len(set(seen[-3:])) > 1:
            seen.append(ok(await c.get(run_url))["data"]["applied"]["message"])
            await asyncio.sleep(0.2)
        at_kill = seen[-1]
    assert 0 < at_kill < total
    resumed = band(*_import_argv(move, archive, "--batch", "10"))
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["resumed"] and summary["created"].get("message") == total - at_kill
    async with httpx.AsyncClient(base_url=move.b.url, headers=admin) as c:
        rooms = ok(await c.get("/api/v1/admin/chats"))["data"]
        assert len(rooms) == 2
        for room in rooms:
            seqs: list[int] = []
            cursor = None
            while True:
                params: dict[str, Any] = {"limit": 100, **({"cursor": cursor} if cursor else {})}
                page = ok(await c.get(f"/api/v1/admin/chats/{room['id']}/messages", params=params))
                seqs += [m["seq"] for m in page["data"]]
                cursor = page["metadata"].get("next_cursor")
                if not cursor:
                    break
            assert seqs == list(range(1, len(seqs) + 1)), room["title"]


def _archive_id(archive: Path) -> str:
    import tarfile

    with tarfile.open(archive) as tar:
        member = tar.extractfile("manifest.json")
        assert member is not None
        return str(json.loads(member.read())["archive_id"])


async def test_a_damaged_archive_is_refused_naming_its_line_and_changes_nothing(
    move: Move,
) -> None:
    archive = move.tmp / "alice"
    _export(move, archive)
    lines = (archive / "messages.jsonl").read_text().splitlines()
    line = json.loads(lines[6])
    line["data"]["content"] += " (edited by hand)"  # the digest no longer matches
    lines[6] = json.dumps(line)
    (archive / "messages.jsonl").write_text("\n".join(lines) + "\n")
    refused = band(*_import_argv(move, archive))
    assert refused.returncode == 2
    assert "messages.jsonl line 7: the record does not match its sha256" in refused.stderr
    async with httpx.AsyncClient(
        base_url=move.b.url, headers={"X-API-Key": move.b.admin_key()}
    ) as c:
        assert ok(await c.get("/api/v1/admin/chats"))["data"] == []
        assert [p["handle"] for p in ok(await c.get("/api/v1/admin/people"))["data"]] == ["admin"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
