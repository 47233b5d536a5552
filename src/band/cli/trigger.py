"""``band-trigger``: open a room with an agent and send it a message, from cron, CI or a script.

It finds the target among the caller's peers by handle, creates a room, adds the target, and
posts the message mentioning it. The room id goes to stdout (exit 0); any failure is one
``Error: ...`` line on stderr (exit 1). Every option also reads an environment variable
(``BAND_API_KEY``, ``BAND_REST_URL``, ``BAND_AUTH_MODE``, ``BAND_TARGET_HANDLE``,
``BAND_MESSAGE``, ``BAND_TRIGGER_TIMEOUT``); the command line wins. ``--auth-mode user``
acts as a person (a user key) instead of an agent.

    BAND_API_KEY=... band-trigger --target-handle @owner/reporter --message "Daily report"
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os

from band.client.rest import (
    AsyncRestClient,
    ChatMessageRequest,
    ChatMessageRequestMentionsItem,
    ChatRoomRequest,
    CreateMyChatRoomRequestChat,
    ParticipantRequest,
    aclose_rest_client,
)
from band.platform.errors import BandRestError
from band.runtime.handles import normalize_handle

from .script import run_script

__all__ = ["build_parser", "find_peer_by_handle", "main", "run", "run_with_timeout"]

logger = logging.getLogger(__name__)

DEFAULT_REST_URL = "https://app.band.ai/"
DEFAULT_TIMEOUT = 120
RETRIES = {"max_retries": 3}
PEER_PAGE_SIZE = 100


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``band-trigger``; defaults come from the environment."""
    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="band-trigger",
        description="Open a Band room with an agent and send it a message.",
    )
    parser.add_argument(
        "--api-key",
        default=env("BAND_API_KEY"),
        help="API key (env BAND_API_KEY; prefer the variable: arguments show in process lists)",
    )
    parser.add_argument(
        "--rest-url",
        default=env("BAND_REST_URL", DEFAULT_REST_URL),
        help=f"the platform's REST address (env BAND_REST_URL, default {DEFAULT_REST_URL})",
    )
    parser.add_argument(
        "--auth-mode",
        choices=["agent", "user"],
        default=env("BAND_AUTH_MODE", "agent"),
        help="act as an agent or as a person (env BAND_AUTH_MODE, default agent)",
    )
    parser.add_argument(
        "--target-handle",
        default=env("BAND_TARGET_HANDLE"),
        help="the agent to message, e.g. @owner/agent-name (env BAND_TARGET_HANDLE)",
    )
    parser.add_argument(
        "--message", default=env("BAND_MESSAGE"), help="what to send it (env BAND_MESSAGE)"
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=int(env("BAND_TRIGGER_TIMEOUT", str(DEFAULT_TIMEOUT))),
        help=f"seconds for the whole run (env BAND_TRIGGER_TIMEOUT, default {DEFAULT_TIMEOUT})",
    )
    parser.add_argument("--verbose", action="store_true", help="log each step (DEBUG)")
    return parser


def _same_handle(a: str | None, b: str | None) -> bool:
    return (normalize_handle(a) or "").lower() == (normalize_handle(b) or "").lower()


async def find_peer_by_handle(
    client: AsyncRestClient, handle: str, auth_mode: str
) -> dict[str, str] | None:
    """The peer (``id``, ``name``, ``handle``) whose handle is ``handle``, paging through the
    caller's peers (``@`` and case do not matter); None when there is none."""
    page = 1
    while True:
        if auth_mode == "agent":
            answer = await client.agent_api_peers.list_agent_peers(
                page=page, page_size=PEER_PAGE_SIZE, request_options=RETRIES
            )
        else:
            answer = await client.human_api_peers.list_my_peers(
                page=page, page_size=PEER_PAGE_SIZE, request_options=RETRIES
            )
        peers = answer.data or []
        for peer in peers:
            if _same_handle(peer.handle, handle):
                return {"id": peer.id, "name": peer.name, "handle": peer.handle}
        total = getattr(answer.metadata, "total_pages", None) or 1
        if not peers or page >= total:
            return None
        page += 1


def _failure(exc: BandRestError, action: str) -> str:
    return f"Failed to {action}: {exc.message or f'HTTP {exc.status}'}"


async def run(args: argparse.Namespace) -> str:
    """Do the trigger; returns the new room's id. Missing options raise ``ValueError``; a
    refused request raises ``RuntimeError`` (naming the room left behind, if one was made)."""
    for value, option, variable in (
        (args.api_key, "--api-key", "BAND_API_KEY"),
        (args.target_handle, "--target-handle", "BAND_TARGET_HANDLE"),
        (args.message, "--message", "BAND_MESSAGE"),
    ):
        if not value:
            raise ValueError(f"{option} is required (or set {variable}).")
    as_agent = args.auth_mode == "agent"
    client = AsyncRestClient(api_key=args.api_key, base_url=args.rest_url.rstrip("/"))
    try:
        peer = await find_peer_by_handle(client, args.target_handle, args.auth_mode)
        if peer is None:
            raise ValueError(
                f"No peer with handle '{args.target_handle}': check the handle, and that "
                "this key can see that agent."
            )
        logger.info("Target: %s (%s)", peer["name"], peer["id"])
        try:
            if as_agent:
                room = await client.agent_api_chats.create_agent_chat(
                    chat=ChatRoomRequest(), request_options=RETRIES
                )
            else:
                room = await client.human_api_chats.create_my_chat_room(
                    chat=CreateMyChatRoomRequestChat(), request_options=RETRIES
                )
        except BandRestError as exc:
            raise RuntimeError(_failure(exc, "create the room")) from exc
        room_id: str = room.data.id
        logger.info("Room %s created", room_id)
        try:
            await _add_and_message(client, room_id, peer, args.message, as_agent)
        except BandRestError as exc:
            logger.warning("Room %s was created but the trigger did not finish", room_id)
            raise RuntimeError(f"{_failure(exc, 'finish')} (room left behind: {room_id})") from exc
    finally:
        await aclose_rest_client(client)
    return room_id


async def _add_and_message(
    client: AsyncRestClient, room_id: str, peer: dict[str, str], text: str, as_agent: bool
) -> None:
    member = ParticipantRequest(participant_id=peer["id"])
    mention = ChatMessageRequestMentionsItem(id=peer["id"], handle=peer["handle"])
    message = ChatMessageRequest(content=text, mentions=[mention])
    if as_agent:
        await client.agent_api_participants.add_agent_chat_participant(
            room_id, participant=member, request_options=RETRIES
        )
        await client.agent_api_messages.create_agent_chat_message(
            room_id, message=message, request_options=RETRIES
        )
    else:
        await client.human_api_participants.add_my_chat_participant(
            room_id, participant=member, request_options=RETRIES
        )
        await client.human_api_messages.send_my_chat_message(
            room_id, message=message, request_options=RETRIES
        )
    logger.info("Message sent to %s in room %s", peer["name"], room_id)


async def run_with_timeout(args: argparse.Namespace) -> str:
    """``run`` bounded by ``args.timeout`` seconds (``TimeoutError`` past it)."""
    return await asyncio.wait_for(run(args), timeout=args.timeout)


def main() -> None:
    """Entry point of ``band-trigger``: prints the room id, exits 0; or an error, exits 1."""
    args = build_parser().parse_args()
    run_script(
        run_with_timeout(args),
        name="band-trigger",
        logger=logger,
        verbose=args.verbose,
        timeout_s=args.timeout,
    )


if __name__ == "__main__":
    main()
