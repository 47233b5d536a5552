"""``band demo``: the platform, a person, a room and two agents, in one process.

The platform runs on SQLite in the data folder (served by uvicorn on loopback). Two
agents built on :class:`band.adapters.OpenAIChatAdapter` connect to it like any
other agent would, over the socket and the REST API. They use an OpenAI-compatible model
when ``OPENAI_API_KEY`` is set (``OPENAI_BASE_URL`` optional) and otherwise the offline
scripted model from ``band.testing``. Identities are kept in ``<data dir>/demo.json``, so
a rerun reuses them. Ctrl-C (or SIGTERM) stops everything cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .app import create_app
from .config import Settings, default_data_dir
from .demo_seed import DemoIdentities, ensure_demo_identities

if TYPE_CHECKING:
    from openai import AsyncOpenAI

log = logging.getLogger("band_server.demo")

DEFAULT_MODEL = "gpt-5.4-mini"


@dataclass(frozen=True)
class DemoOptions:
    """What ``band demo`` was asked to do."""

    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8080
    model: str = DEFAULT_MODEL


class DemoError(RuntimeError):
    """A failure the demo explains in one line (no traceback)."""


def parse_args(argv: Sequence[str] | None) -> DemoOptions:
    """Options from the command line (and ``BAND_DATA_DIR`` / ``OPENAI_MODEL``)."""
    parser = argparse.ArgumentParser(
        prog="band demo",
        description="Run the platform with a person, a room and two demo agents.",
    )
    parser.add_argument("--port", type=int, default=8080, help="port to listen on (8080)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument(
        "--data",
        "--data-dir",
        dest="data_dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="data folder (default: $BAND_DATA_DIR or ./band-data)",
    )
    parser.add_argument(
        "--model",
        default=os.environ.get("OPENAI_MODEL") or DEFAULT_MODEL,
        help=f"model name when OPENAI_API_KEY is set (OPENAI_MODEL or {DEFAULT_MODEL})",
    )
    args = parser.parse_args(argv)
    data_dir = (args.data_dir or default_data_dir()).resolve()
    return DemoOptions(data_dir=data_dir, host=args.host, port=args.port, model=args.model)


def model_client() -> tuple[AsyncOpenAI, str]:
    """The demo agents' model client and a one-line description of it for the log."""
    try:
        from openai import AsyncOpenAI
    except ImportError as exc:
        hint = "band demo needs the openai client: pip install 'openband[openai]'"
        raise DemoError(hint) from exc
    key = os.environ.get("OPENAI_API_KEY")
    if key:
        base_url = os.environ.get("OPENAI_BASE_URL") or None
        where = base_url or "https://api.openai.com/v1"
        return AsyncOpenAI(api_key=key, base_url=base_url), f"OpenAI-compatible endpoint {where}"
    from band.testing.fake_models import OFFLINE_MODEL_LABEL, offline_openai_client

    return offline_openai_client(), f"{OFFLINE_MODEL_LABEL} (set OPENAI_API_KEY for a real model)"


def _uvicorn_server(app: Any, options: DemoOptions) -> Any:
    import uvicorn

    class _Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # The demo owns SIGINT/SIGTERM: it stops the agents before the server.
            yield

    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        log_level="warning",
        lifespan="on",
        ws_per_message_deflate=False,
    )
    return _Server(config)


async def _start_server(server: Any) -> asyncio.Task[None]:
    task: asyncio.Task[None] = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            with contextlib.suppress(BaseException):
                task.result()
            raise DemoError("the platform did not start (is the port already in use?)")
        await asyncio.sleep(0.02)
    return task


async def _start_agents(
    identities: DemoIdentities, client: AsyncOpenAI, options: DemoOptions, url: str
) -> list[Any]:
    from band import Agent
    from band.adapters import OpenAIChatAdapter

    ws_scheme_url = url.replace("http://", "ws://", 1)
    started: list[Any] = []
    for identity in identities.agents:
        agent = Agent.create(
            adapter=OpenAIChatAdapter(options.model, client=client),
            agent_id=identity.id,
            api_key=identity.api_key,
            ws_url=f"{ws_scheme_url}/api/v1/socket/websocket",
            rest_url=url,
        )
        await agent.start()
        started.append(agent)
    return started


def _send_line(identities: DemoIdentities, url: str) -> str:
    """A ``band send`` command that mentions the first agent, posted through the server."""
    first = identities.agents[0]
    return (
        f"band send --url {url} --key {identities.person.api_key} "
        f'--room {identities.room_id} "@{first.handle} hello"'
    )


def _curl_line(identities: DemoIdentities, url: str) -> str:
    """The same message posted through the human API of the running server."""
    body = json.dumps({"message": {"content": f"@{identities.agents[0].handle} hello"}})
    return (
        f"curl -s -H 'X-API-Key: {identities.person.api_key}' -H 'Content-Type: application/json'"
        f" -d '{body}' {url}/api/v1/me/chats/{identities.room_id}/messages"
    )


def _banner(identities: DemoIdentities, url: str, model: str, data_dir: Path) -> str:
    handles = ", ".join(f"@{a.handle}" for a in identities.agents)
    person = identities.person
    return "\n".join(
        [
            "",
            "Band demo is running.",
            f"  Open:    {url}/",
            f"  Room:    {identities.room_id}",
            f"  Person:  {person.name} (@{person.handle})",
            f"  Agents:  {handles}",
            f"  Model:   {model}",
            "Try:",
            f"  {_send_line(identities, url)}",
            "or with curl (the person's key is in demo.json):",
            f"  {_curl_line(identities, url)}",
            "Press Ctrl-C to stop.",
            "",
        ]
    )


ReadyHook = Callable[[DemoIdentities, str], None]


async def run_demo(
    options: DemoOptions, stop: asyncio.Event | None = None, on_ready: ReadyHook | None = None
) -> None:
    """Run until ``stop`` is set (or SIGINT/SIGTERM when no event is given).

    ``on_ready(identities, url)`` is called once the agents are connected (tests use it).
    """
    stop = stop or _signal_event()
    settings = Settings(data_dir=options.data_dir, host=options.host, port=options.port)
    url = f"http://{options.host}:{options.port}"
    app = create_app(settings)
    server = _uvicorn_server(app, options)
    serving = await _start_server(server)
    agents: list[Any] = []
    client: AsyncOpenAI | None = None
    try:
        identities = await ensure_demo_identities(
            app.state.platform, options.data_dir / "demo.json"
        )
        client, model = model_client()
        log.info("demo agents use the %s", model)
        agents = await _start_agents(identities, client, options, url)
        print(_banner(identities, url, model, options.data_dir), flush=True)
        if on_ready is not None:
            on_ready(identities, url)
        await stop.wait()
        log.info("stopping the demo")
    finally:
        for agent in reversed(agents):
            try:
                await agent.stop(timeout=10)
            except Exception:
                log.exception("an agent did not stop cleanly")
        if client is not None:
            await client.close()
        server.should_exit = True
        await serving


def _signal_event() -> asyncio.Event:
    """An event set by the first SIGINT/SIGTERM; a second one exits at once."""
    event = asyncio.Event()
    loop = asyncio.get_running_loop()

    def handle() -> None:
        if event.is_set():
            os._exit(130)
        print("\nStopping (press Ctrl-C again to force)...", file=sys.stderr, flush=True)
        event.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, handle)
    return event


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``band demo``; returns the process exit status."""
    options = parse_args(argv)
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s [%(levelname)s] %(name)s: %(message)s",
        datefmt="%Y-%m-%d %H:%M:%S",
    )
    for chatty in ("httpx", "httpx2", "httpcore", "websockets", "aiosqlite"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    try:
        asyncio.run(run_demo(options))
    except DemoError as error:
        print(f"band demo: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
