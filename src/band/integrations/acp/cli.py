"""``band-acp``: an editor's ACP agent (over stdio) that talks to Band peers in Band rooms.

    band-acp --agent-id <id> --api-key <key> --peer alice/coder
    # or BAND_AGENT_ID / BAND_API_KEY / BAND_REST_URL / BAND_WS_URL in the environment

stdout carries ACP's JSON-RPC, so logs go to stderr (one line per event).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence

from band._log_settings import LogSettings
from band.logging_config import LogStream

__all__ = ["entry_point", "main", "parse_args"]

logger = logging.getLogger("band.integrations.acp.cli")


def parse_args(args: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="band-acp", description="Band as an ACP agent: an editor talks to Band peers."
    )
    env = os.environ.get
    parser.add_argument(
        "--agent-id", default=env("BAND_AGENT_ID"), help="Band agent id (env: BAND_AGENT_ID)"
    )
    parser.add_argument(
        "--api-key", default=env("BAND_API_KEY"), help="its API key (env: BAND_API_KEY)"
    )
    parser.add_argument(
        "--rest-url",
        default=env("BAND_REST_URL", "https://app.band.ai"),
        help="the platform's REST root (env: BAND_REST_URL)",
    )
    parser.add_argument(
        "--ws-url",
        default=env("BAND_WS_URL", "wss://app.band.ai/api/v1/socket/websocket"),
        help="the platform's socket (env: BAND_WS_URL)",
    )
    parser.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="HANDLE",
        help="a Band agent or person added to every session's room (repeatable)",
    )
    parser.add_argument(
        "--prompt-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long a prompt waits for its peers (default 300)",
    )
    parser.add_argument(
        "--log-level",
        default=None,
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log level (env: BAND_LOG_LEVEL, default INFO)",
    )
    return parser.parse_args(args)


async def main(args: argparse.Namespace | None = None) -> None:
    """Start the Band agent, then serve ACP on stdio until the editor disconnects."""
    args = args or parse_args()
    # stdout is the editor's JSON-RPC channel: a log line there would break the session.
    levels = {"log_level": args.log_level} if args.log_level else {}
    LogSettings(**levels, log_stream=LogStream.STDERR).configure()
    if not args.agent_id:
        raise ValueError("An agent id is needed: --agent-id or BAND_AGENT_ID")
    if not args.api_key:
        raise ValueError("An API key is needed: --api-key or BAND_API_KEY")

    from band.runtime.agent import Agent

    from .server import ACPServer, run_acp_server
    from .server_adapter import BandACPServerAdapter, BandACPServerAdapterConfig

    config = BandACPServerAdapterConfig(
        peers=tuple(args.peer), prompt_timeout_s=args.prompt_timeout
    )
    adapter = BandACPServerAdapter(config)
    agent = Agent.create(
        adapter=adapter,
        agent_id=args.agent_id,
        api_key=args.api_key,
        rest_url=args.rest_url,
        ws_url=args.ws_url,
    )
    logger.info("band-acp starting (agent %s, peers %s)", args.agent_id, ", ".join(args.peer))
    await agent.start()
    try:
        await run_acp_server(ACPServer(adapter))
    finally:
        await agent.stop(5)
        logger.info("band-acp stopped")


def entry_point() -> None:
    """The ``band-acp`` command."""
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    except ValueError as exc:
        print(f"band-acp: {exc}", file=sys.stderr)
        sys.exit(2)
