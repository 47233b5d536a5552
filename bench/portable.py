"""A seeded deployment moved with ``band export`` / ``band import``: sizes and times.

Two platforms in this process (``band.testing.LocalPlatform``, SQLite, loopback HTTP). A is
seeded through its REST API: one person, an agent, ``--rooms`` rooms of ``--messages`` text
messages each (every one mentioning the agent), one file per room attached to its first
message. The person's export (a ``.tar.gz``) is imported into B by B's admin, then imported
again (the idempotent re-run). Each step is timed; the archive's size is its file's.

    .venv/bin/python -m bench.portable [--rooms 20] [--messages 250] [--file-kib 64]

Prints a table and writes bench/results/portable.json.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

RESULTS = Path(__file__).parent / "results"


async def _seed(url: str, key: str, agent: str, rooms: int, messages: int, kib: int) -> None:
    async with httpx.AsyncClient(base_url=url, headers={"X-API-Key": key}, timeout=60) as c:
        for r in range(rooms):
            room = (await c.post("/api/v1/me/chats", json={"chat": {"title": f"Room {r}"}})).json()
            rid = room["data"]["id"]
            body = {"participant": {"participant_id": agent}}
            (await c.post(f"/api/v1/me/chats/{rid}/participants", json=body)).raise_for_status()
            content = os.urandom(kib * 1024)
            headers = {
                "x-file-name": f"data-{r}.bin",
                "x-file-sha256": hashlib.sha256(content).hexdigest(),
                "content-type": "application/octet-stream",
            }
            put = await c.put(f"/api/v1/me/chats/{rid}/files", content=content, headers=headers)
            file_id = put.json()["data"]["id"]
            for start in range(0, messages, 25):
                posts = [
                    c.post(
                        f"/api/v1/me/chats/{rid}/messages",
                        json={
                            "message": {
                                "content": f"@[[{agent}]] message {n} of room {r}",
                                "mentions": [{"id": agent}],
                                "attachment_ids": [file_id] if n == 0 else [],
                            }
                        },
                    )
                    for n in range(start, min(start + 25, messages))
                ]
                for answer in await asyncio.gather(*posts):
                    answer.raise_for_status()


async def run(rooms: int, messages: int, kib: int) -> dict[str, Any]:
    from band.client.rest import AsyncRestClient
    from band.portable import export_archive, import_archive
    from band.portable.progress import LineProgress
    from band.testing import LocalPlatform

    quiet = LineProgress(open(os.devnull, "w"))  # noqa: SIM115 - lives as long as the run
    with tempfile.TemporaryDirectory() as tmp:
        async with LocalPlatform(Path(tmp) / "a") as a, LocalPlatform(Path(tmp) / "b") as b:
            await a.person("root")
            alice = await a.person("alice")
            echo = await a.agent(alice, "Echo", "Echo answers every mention")
            began = time.perf_counter()
            await _seed(a.rest_url, alice.key, echo.id, rooms, messages, kib)
            seeded = time.perf_counter() - began
            admin = await b.person("admin")
            archive = Path(tmp) / "alice.tar.gz"
            async with AsyncRestClient(base_url=a.rest_url, api_key=alice.key) as client:
                exported = await export_archive(client, archive, progress=quiet)
            async with AsyncRestClient(base_url=b.rest_url, api_key=admin.key) as client:
                began = time.perf_counter()
                imported = await import_archive(client, archive, progress=quiet)
                first = time.perf_counter() - began
                began = time.perf_counter()
                again = await import_archive(client, archive, progress=quiet)
                second = time.perf_counter() - began
    return {
        "rooms": exported.counts["room"],
        "messages": exported.counts["message"],
        "files": exported.counts["file"],
        "file_kib": kib,
        "archive_bytes": exported.size,
        "seed_s": round(seeded, 2),
        "export_s": round(exported.seconds, 2),
        "import_s": round(first, 2),
        "import_again_s": round(second, 2),
        "imported_messages": imported.created.get("message", 0),
        "import_again_created": sum(again.created.values()),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.portable", description=__doc__)
    parser.add_argument("--rooms", type=int, default=20, help="rooms to seed (default 20)")
    parser.add_argument("--messages", type=int, default=250, help="messages per room (default 250)")
    parser.add_argument("--file-kib", type=int, default=64, help="size of each room's file")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.rooms, args.messages, args.file_kib))
    print(f"{'measure':<24}{'value':>14}")
    for name, value in result.items():
        print(f"{name:<24}{value!s:>14}")
    rate = result["messages"] / result["import_s"] if result["import_s"] else 0
    print(f"{'import messages/s':<24}{rate:>14.0f}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "portable.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
