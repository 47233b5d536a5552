"""The SDK's CPU per REST call: ``HttpCore`` posting a reply to a server that costs nothing.

The server (its own process) answers every request with a fixed JSON body, so the figure is
the client's share alone: the process CPU (``time.process_time``) of ``--calls`` keyed posts
sent one after another over one keep-alive connection, after a warm-up. With ``--before
DIR`` the same client runs from ``DIR/src`` (e.g. a ``git archive`` of main) too, the two
alternated ``--rounds`` times.

    .venv/bin/python -m bench.rest_client_cpu [--calls 3000] [--rounds 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench._platform import free_port

BODY = b'{"data":{"id":"0190c0de-0000-7000-8000-000000000000","success":true,"recipients":[]}}'
ANSWER = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (
    len(BODY),
    BODY,
)


class Answering(asyncio.Protocol):
    """Answers each request (head plus ``content-length`` bytes) with ``ANSWER``."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport, self.buffer = transport, b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            length = 0
            for line in self.buffer[:end].split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length :]
            self.transport.write(ANSWER)


async def serve(port: int) -> None:
    server = await asyncio.get_running_loop().create_server(Answering, "127.0.0.1", port)
    await server.serve_forever()


async def client(port: int, calls: int) -> float:
    from band.platform._http import HttpCore

    core = HttpCore(f"http://127.0.0.1:{port}", "key")
    body = {"message": {"content": "re hello", "mentions": [{"id": "someone"}]}}
    for _ in range(200):
        await core.call("POST", "/agent/chats/room/messages", json=body)
    started = time.process_time()
    for _ in range(calls):
        await core.call("POST", "/agent/chats/room/messages", json=body)
    spent = time.process_time() - started
    await core.aclose()
    return spent * 1e6 / calls


def run_client(port: int, calls: int, src: Path | None) -> float:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run(
        [sys.executable, "-m", "bench.rest_client_cpu", "--client", str(port), str(calls)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=Path(__file__).resolve().parent.parent,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", metavar="DIR", help="also run the client from DIR/src")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--client", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve))
        return
    if args.client:
        print(f"{asyncio.run(client(*args.client)):.1f}")
        return
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "bench.rest_client_cpu", "--serve", str(port)])
    try:
        time.sleep(1.0)
        builds: dict[str, Path | None] = {"this": None}
        if args.before:
            builds["before"] = Path(args.before).resolve() / "src"
        figures: dict[str, list[float]] = {name: [] for name in builds}
        for _ in range(args.rounds):
            for name, src in builds.items():
                figures[name].append(run_client(port, args.calls, src))
        print(f"load average {os.getloadavg()[0]:.2f}; client CPU us per keyed post:")
        for name, values in figures.items():
            print(f"  {name:>6}: median {statistics.median(values):.1f}  ({values})")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
