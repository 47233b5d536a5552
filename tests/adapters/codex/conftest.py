"""A real ``band serve`` child, the real ``codex app-server`` and a scripted Responses model."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "e2e"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sdk"))

from e2e_support import World, clean_env, free_port, seed_world, tail
from runtime_support import Person

from .codex_support import codex_binary

BAND = Path(sys.executable).parent / "band"


@dataclass
class BandServe:
    """``band serve`` on a loopback port, exactly as an operator starts it."""

    url: str
    ws_url: str
    world: World
    log: Path


@pytest.fixture(scope="module")
def band_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BandServe]:
    base = tmp_path_factory.mktemp("band-serve")
    world = asyncio.run(seed_world(base / "data", agent_name="Coder"))
    port = free_port()
    log = base / "serve.log"
    argv = [str(BAND), "serve", "--host", "127.0.0.1", "--port", str(port), "--data"]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*argv, str(base / "data")], stdout=out, stderr=subprocess.STDOUT, env=clean_env()
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"band serve exited {proc.returncode}\n{tail(log)}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"band serve did not answer /healthz\n{tail(log)}")
        time.sleep(0.1)
    try:
        yield BandServe(url, f"ws://127.0.0.1:{port}/api/v1/socket/websocket", world, log)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture
async def alice(band_serve: BandServe) -> AsyncIterator[Person]:
    headers = {"x-api-key": band_serve.world.person_key}
    async with httpx.AsyncClient(base_url=band_serve.url, headers=headers, timeout=30) as http:
        yield Person(http, band_serve.world.person_id)


@pytest.fixture(scope="module")
def codex_bin() -> Path:
    return codex_binary()


@pytest.fixture(scope="module")
def codex_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Outside /tmp would be nicer for Codex (it warns about helper links there), but
    # tmp_path_factory keeps everything disposable.
    return tmp_path_factory.mktemp("codex-home")
