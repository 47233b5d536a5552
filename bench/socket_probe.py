"""One socket client's cost, run in whichever venv has that client (no project imports).

Usage: python socket_probe.py {ours|ours-marginal|phoenix} WS_URL API_KEY AGENT_ID ROOM_ID N
Prints one JSON line: import seconds, RSS growth, and connect + two joins latency.
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import sys
import time
from typing import Any


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def ours(url: str, key: str, agent: str, room: str) -> Any:
    from band.platform.socket import PhoenixSocket

    sock = PhoenixSocket(url, headers={"x-api-key": key}, params={"agent_id": agent})
    await sock.connect()
    await sock.join(f"agent_control:{agent}")
    await sock.join(f"chat_room:{room}")
    return sock.close


async def phoenix(url: str, key: str, agent: str, room: str) -> Any:
    from phoenix_channels_python_client import PHXChannelsClient

    client = PHXChannelsClient(
        f"{url}?agent_id={agent}", key, additional_headers={"x-api-key": key}
    )
    await client.__aenter__()
    await client.subscribe_to_topic(f"agent_control:{agent}")
    await client.subscribe_to_topic(f"chat_room:{room}")

    async def close() -> None:
        await client.__aexit__(None, None, None)

    return close


async def main() -> None:
    which, url, key, agent, room, n = sys.argv[1:7]
    if which == "ours-marginal":
        import band.platform.rest  # the runtime loads it anyway (REST)
    before = rss_kib()
    t0 = time.perf_counter()
    if which.startswith("ours"):
        import band.platform.socket  # noqa: F401
    else:
        import phoenix_channels_python_client  # noqa: F401
    imported = time.perf_counter() - t0
    after_import = rss_kib()
    opener = ours if which.startswith("ours") else phoenix
    times = []
    for _ in range(int(n)):
        t = time.perf_counter()
        close = await opener(url, key, agent, room)
        times.append(time.perf_counter() - t)
        held = rss_kib()
        await close()
    print(
        json.dumps(
            {
                "client": which,
                "import_s": round(imported, 4),
                "rss_import_kib": after_import - before,
                "rss_connected_kib": held - before,
                "connect_join_ms_median": round(statistics.median(times) * 1000, 2),
                "connect_join_ms_p90": round(sorted(times)[int(len(times) * 0.9) - 1] * 1000, 2),
            }
        )
    )


asyncio.run(main())
