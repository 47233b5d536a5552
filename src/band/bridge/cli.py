"""``band bridge`` and ``band runtime``: argument parsing and the asyncio entry points."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from band.runtime.config import resolve_urls

from .bridge import AgentCredentials, Bridge
from .forwarder import Forwarder, Target

__all__ = ["add_commands", "run_bridge", "run_runtime"]

log = logging.getLogger("band.bridge")


def _logging() -> None:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s"
    )
    for chatty in ("httpx", "httpcore", "websockets", "uvicorn.access"):
        logging.getLogger(chatty).setLevel(logging.WARNING)


def _agents(path: Path, keys: Sequence[str]) -> list[AgentCredentials]:
    """The agents of ``agent_config.yaml`` (keyed form), all of them or those named."""
    from band.runtime.config import load_agent_config

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise SystemExit(f"band bridge: {path} is not a mapping of agents")
    names = list(keys) or [k for k, v in data.items() if isinstance(v, dict) and "agent_id" in v]
    if not names and "agent_id" in data:
        names = ["agent"]  # flat form: the whole file is one agent
    out = []
    for name in names:
        agent_id, api_key = load_agent_config(name, config_path=path)
        out.append(AgentCredentials(name, agent_id, api_key))
    if not out:
        raise SystemExit(f"band bridge: no agents in {path}")
    return out


async def _until_signal(*waitables: asyncio.Future[object] | asyncio.Task[None]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    stopper = asyncio.ensure_future(stop.wait())
    await asyncio.wait({stopper, *waitables}, return_when=asyncio.FIRST_COMPLETED)
    stopper.cancel()


async def run_bridge(args: argparse.Namespace) -> int:
    agents = _agents(Path(args.config), args.agent)
    ws_url, rest_url = resolve_urls(args.ws_url, args.rest_url)
    pool = None
    if args.provider_command:
        from .daemon import ProviderPool

        pool = ProviderPool(
            args.provider_command,
            idle_timeout=args.idle_timeout,
            env={"BAND_REST_URL": rest_url, "BAND_WS_URL": ws_url},
            credentials={a.agent_id: a.api_key for a in agents},
        )
        target: Target = pool.target
        forwarder = Forwarder(target, on_delivered=pool.touched)
        log.info(
            "Daemon mode: providers from %r, idle timeout %ss",
            args.provider_command,
            args.idle_timeout,
        )
    else:
        url = args.runtime_url

        async def fixed(_agent_id: str, _room_id: str) -> str:
            return str(url)

        forwarder = Forwarder(fixed)
    bridge = Bridge(agents, forwarder, ws_url, rest_url)
    try:
        await bridge.start()
        log.info("Bridge running for %d agent(s)", len(agents))
        await _until_signal(asyncio.ensure_future(bridge.wait()))
    finally:
        await bridge.stop()
        if pool is not None:
            await pool.aclose()
    return 0


def run_runtime(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:
        print("band runtime needs uvicorn: pip install 'openband[runtime]'", file=sys.stderr)
        return 1
    from band.platform.link import BandLink
    from band.runtime.config import load_agent_config
    from band.runtime.oneshot import OneShotInvoker

    from .host import RuntimeApp, load_factory

    if args.agent_id and os.environ.get("BAND_API_KEY"):
        agent_id, api_key = args.agent_id, os.environ["BAND_API_KEY"]
    else:
        agent_id, api_key = load_agent_config(args.agent, config_path=args.config)
    ws_url, rest_url = resolve_urls(args.ws_url, args.rest_url)
    sys.path.insert(0, os.getcwd())
    adapter = load_factory(args.adapter)()
    link = BandLink(agent_id, api_key, ws_url, rest_url)
    app = RuntimeApp(OneShotInvoker(link=link, adapter=adapter, agent_id=agent_id))
    port = args.port if args.port is not None else int(os.environ.get("BAND_RUNTIME_PORT", "8080"))
    uvicorn.run(app, host=args.host, port=port, log_level="warning", lifespan="on")
    return 0


def _urls(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rest-url", help="platform REST URL (default: $BAND_REST_URL)")
    parser.add_argument("--ws-url", help="platform socket URL (default: $BAND_WS_URL)")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``bridge`` and ``runtime`` to a ``band`` sub-command table."""
    bridge = sub.add_parser("bridge", help="forward every agent event to a runtime over HTTP")
    bridge.add_argument(
        "--config", default="agent_config.yaml", help="agents file (default: agent_config.yaml)"
    )
    bridge.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="KEY",
        help="agent entry to bridge (repeatable; default: every agent in the file)",
    )
    bridge.add_argument(
        "--runtime-url",
        default="http://127.0.0.1:8080/invocations",
        help="where envelopes are POSTed (default: http://127.0.0.1:8080/invocations)",
    )
    bridge.add_argument(
        "--provider-command",
        metavar="CMD",
        help="daemon mode: start this command per room with work ({port}, {room_id}, {agent_id})",
    )
    bridge.add_argument(
        "--idle-timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="daemon mode: stop a room's provider after S idle seconds (default: 300)",
    )
    _urls(bridge)
    bridge.set_defaults(func=lambda a: asyncio.run(run_bridge(a)))

    runtime = sub.add_parser("runtime", help="serve POST /invocations with an adapter (AgentCore)")
    runtime.add_argument(
        "--adapter",
        required=True,
        metavar="MODULE:FACTORY",
        help="callable that builds the adapter, e.g. chat_adapter:ChatCompletionsAdapter",
    )
    runtime.add_argument(
        "--agent",
        default="my_agent",
        metavar="KEY",
        help="agent entry in the config file (default: my_agent)",
    )
    runtime.add_argument(
        "--agent-id", help="agent id (with $BAND_API_KEY instead of a config file)"
    )
    runtime.add_argument(
        "--config", default="agent_config.yaml", help="agents file (default: agent_config.yaml)"
    )
    runtime.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default: 127.0.0.1)"
    )
    runtime.add_argument(
        "--port", type=int, default=None, help="port (default: $BAND_RUNTIME_PORT, else 8080)"
    )
    _urls(runtime)
    runtime.set_defaults(func=run_runtime)


def main(argv: Sequence[str]) -> int:
    """``band bridge|runtime ...`` without the server installed."""
    _logging()
    parser = argparse.ArgumentParser(prog="band")
    add_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    args = parser.parse_args(list(argv))
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
