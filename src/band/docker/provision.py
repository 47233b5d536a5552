"""``band-kit provision``: register a sandboxed Band agent on the host, key kept out of the VM.

How it works: docs/internals/sdk.md, "Provisioning a sandboxed agent".

Safe to re-run. Exit 0 prints the agent id on stdout (never the key); exit 1 prints
``Error: ...`` on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
from pathlib import Path
from typing import Any, Final

from pydantic_settings import BaseSettings, SettingsConfigDict
from ruamel.yaml import YAML

from band.cli.script import run_script
from band.client.rest import (
    NO_RETRY_REQUEST_OPTIONS,
    AgentRegisterRequest,
    ApiError,
    AsyncRestClient,
    aclose_rest_client,
)
from band.credentials import PROXY_MANAGED_API_KEY
from band.docker._provision_messages import (
    RegistrationTimeoutOutcome,
    describe_register_error,
    describe_registration_timeout,
)
from band.docker.launcher.config import (
    DEFAULT_REST_URL,
    PLACEHOLDER_AGENT_ID,
    load_workspace_config,
)
from band.docker.sbx_process import run_sbx_subprocess

__all__ = [
    "ProvisionSettings",
    "RegistrationTimeoutOutcome",
    "build_parser",
    "create_sandbox",
    "inject_agent_key",
    "main",
    "read_agent_id",
    "register_agent",
    "run",
    "sandbox_exists",
    "sandbox_has_band_secret",
    "write_agent_id",
]

logger = logging.getLogger(__name__)

DEFAULT_BAND_HOST = "**.band.ai"
DEFAULT_TIMEOUT: Final[int] = 120
SBX_SECRET_TIMEOUT_S: Final[int] = 60
SBX_CREATE_TIMEOUT_S: Final[int] = 600
TIMEOUT_RECOVERY_CHECK_S: Final[int] = 30
SBX = "sbx"

_YAML = YAML()  # round-trip mode: comments and order survive a load and dump
_YAML.preserve_quotes = True


class ProvisionSettings(BaseSettings):
    """Defaults from the environment (``BAND_REST_URL``, ``BAND_API_KEY_USER``); flags win."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, env_ignore_empty=True)

    band_rest_url: str = ""
    band_api_key_user: str = ""


def build_parser() -> argparse.ArgumentParser:
    """``band-kit provision`` and its options."""
    parser = argparse.ArgumentParser(
        prog="band-kit", description="Host-side helper for the Band Python Docker Sandboxes kit."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser(
        "provision",
        help="Register a Band agent and wire its key into a Docker Sandbox (never into the VM).",
    )
    p.add_argument("--name", required=True, help="Sandbox name; also scopes the injected secret.")
    p.add_argument("--agent-name", default=None, help="Band agent name (default: --name).")
    p.add_argument(
        "--description", required=True, help="Band agent description (10-500 characters)."
    )
    p.add_argument(
        "--workspace", required=True, type=Path, help="The workspace directory with band.yaml."
    )
    p.add_argument(
        "--host",
        default=DEFAULT_BAND_HOST,
        help=f"Host pattern the proxy injects the Band key on (default: {DEFAULT_BAND_HOST}).",
    )
    p.add_argument(
        "--api-key",
        default=None,
        help="A person's API key, register_only scope is enough (env: BAND_API_KEY_USER).",
    )
    p.add_argument(
        "--rest-url",
        default=None,
        help=f"Band REST API URL (env: BAND_REST_URL, default: {DEFAULT_REST_URL})",
    )
    create = p.add_mutually_exclusive_group()
    create.add_argument(
        "--create",
        dest="create",
        action="store_true",
        default=True,
        help="Also run `sbx create` (default).",
    )
    create.add_argument(
        "--no-create",
        dest="create",
        action="store_false",
        help="Only register and inject the secret.",
    )
    p.add_argument("--kit", default=None, help="Image for `sbx create` (unless --no-create).")
    p.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_TIMEOUT,
        help=f"Seconds to wait for the registration (default: {DEFAULT_TIMEOUT})",
    )
    p.add_argument("--verbose", action="store_true", default=False, help="Debug logging")
    return parser


def _mapping(value: Any, *, what: str) -> Any:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a mapping, got {type(value).__name__}")
    return value


def _load_band_yaml(workspace: Path) -> tuple[Path, Any, Any]:
    path = workspace / "band.yaml"
    if not path.is_file():
        raise ValueError(f"no band.yaml found in workspace: {path}")
    data = _mapping(_YAML.load(path.read_text(encoding="utf-8")), what=str(path))
    return path, data, _mapping(data.get("agent"), what=f"{path}: 'agent'")


def read_agent_id(workspace: Path) -> str:
    """``agent.id`` of the workspace's ``band.yaml`` ("" when unset)."""
    _, _, agent = _load_band_yaml(workspace)
    return str(agent.get("id") or "")


def write_agent_id(workspace: Path, agent_id: str) -> None:
    """Set ``agent.id`` in ``band.yaml``, keeping the rest of the file and its comments, then
    re-read it through the launcher's strict model."""
    path, data, agent = _load_band_yaml(workspace)
    agent["id"] = agent_id
    data["agent"] = agent
    with path.open("w", encoding="utf-8") as out:
        _YAML.dump(data, out)
    if load_workspace_config(path).agent.id != agent_id:
        raise RuntimeError(f"wrote agent.id to {path} but it did not round-trip; check the file")


def sandbox_has_band_secret(name: str, host: str) -> bool:
    """Whether ``sbx`` holds a custom secret for sandbox ``name`` targeting ``host``."""
    done = run_sbx_subprocess(
        [SBX, "secret", "ls", "--sandbox", name, "--json"], timeout=SBX_SECRET_TIMEOUT_S
    )
    secrets = json.loads(done.stdout).get("custom_secrets") or []
    return any(s.get("scope") == name and host in (s.get("targets") or []) for s in secrets)


def inject_agent_key(*, name: str, host: str, agent_key: str) -> None:
    """``sbx secret set-custom`` for ``BAND_API_KEY``; the key goes on stdin, never in argv,
    and the VM sees the ``proxy-managed`` placeholder."""
    argv = [SBX, "secret", "set-custom", "--sandbox", name, "--host", host]
    argv += ["--env", "BAND_API_KEY", "--placeholder", PROXY_MANAGED_API_KEY]
    run_sbx_subprocess(argv, timeout=SBX_SECRET_TIMEOUT_S, input=agent_key, redact=agent_key)


def sandbox_exists(name: str) -> bool:
    """Whether ``sbx ls`` lists a sandbox called ``name``."""
    done = run_sbx_subprocess([SBX, "ls", "--json"], timeout=SBX_SECRET_TIMEOUT_S)
    return any(s.get("name") == name for s in json.loads(done.stdout).get("sandboxes") or [])


def create_sandbox(*, name: str, kit: str, workspace: Path) -> None:
    """``sbx create --name NAME KIT WORKSPACE``: the workload with its workspace mounted."""
    run_sbx_subprocess(
        [SBX, "create", "--name", name, kit, str(workspace)], timeout=SBX_CREATE_TIMEOUT_S
    )


def _client(api_key: str, rest_url: str) -> AsyncRestClient:
    return AsyncRestClient(api_key=api_key, base_url=rest_url.rstrip("/"))


async def register_agent(
    *, api_key: str, rest_url: str, name: str, description: str
) -> tuple[str, str]:
    """Register the agent with a person's key: ``(agent_id, agent_api_key)``. Sent once (no
    retry): the key is shown once, and a retry after a lost answer would orphan an agent."""
    client = _client(api_key, rest_url)
    try:
        answer = await client.human_api_agents.register_my_agent(
            agent=AgentRegisterRequest(name=name, description=description),
            request_options=NO_RETRY_REQUEST_OPTIONS,
        )
    except ApiError as exc:
        raise RuntimeError(describe_register_error(exc)) from exc
    finally:
        await aclose_rest_client(client)
    return str(answer.data.agent.id), str(answer.data.credentials.api_key)


async def _find_agent(client: AsyncRestClient, agent_name: str) -> str | None:
    """The id of the agent named exactly ``agent_name`` (the filter matches substrings)."""
    cursor: str | None = None
    while True:
        page = await client.human_api_agents.list_my_agents(
            name=agent_name, cursor=cursor, request_options=NO_RETRY_REQUEST_OPTIONS
        )
        for agent in page.data:
            if agent.name == agent_name:
                return str(agent.id)
        meta = page.metadata
        cursor = meta.get("next_cursor") if meta is not None and meta.get("has_more") else None
        if cursor is None:
            return None


async def _after_timeout(
    api_key: str, rest_url: str, agent_name: str
) -> tuple[RegistrationTimeoutOutcome, str | None]:
    """Find out whether a timed-out registration happened anyway (best effort)."""
    client = _client(api_key, rest_url)
    try:
        found = await asyncio.wait_for(_find_agent(client, agent_name), TIMEOUT_RECOVERY_CHECK_S)
    except Exception:
        logger.warning("could not confirm the registration after the timeout", exc_info=True)
        return RegistrationTimeoutOutcome.UNKNOWN, None
    finally:
        await aclose_rest_client(client)
    if found is None:
        return RegistrationTimeoutOutcome.CONFIRMED_ABSENT, None
    return RegistrationTimeoutOutcome.CONFIRMED_PRESENT, found


async def _ensure_registered(args: argparse.Namespace, *, api_key: str, rest_url: str) -> str:
    """The agent id: the workspace's when registration is already done, else a new agent's."""
    workspace, agent_name = args.workspace, args.agent_name or args.name
    existing = read_agent_id(workspace)
    has_identity = bool(existing and existing != PLACEHOLDER_AGENT_ID)
    has_secret = sandbox_has_band_secret(args.name, args.host)
    if has_secret and not has_identity:
        raise RuntimeError(
            f"a Band secret is already injected for sandbox name {args.name!r} (host "
            f"{args.host}), but workspace {workspace} has no registered agent (agent.id is "
            "unset or the placeholder); registering would overwrite that secret. Pick another "
            "--name, or restore this sandbox's agent.id in band.yaml."
        )
    if has_identity and has_secret:
        logger.info("sandbox %s already registered (agent %s); skipping", args.name, existing)
        return existing
    if has_identity:
        raise RuntimeError(
            f"workspace {workspace} already names agent {existing!r} in band.yaml, but no Band "
            f"secret is injected for sandbox {args.name!r} (host {args.host}). Its key cannot "
            "be retrieved again: re-inject it with `sbx secret set-custom` if you have it, or "
            "clear agent.id and retry with a new --agent-name."
        )
    logger.info("registering agent %r", agent_name)
    try:
        agent_id, agent_key = await asyncio.wait_for(
            register_agent(
                api_key=api_key, rest_url=rest_url, name=agent_name, description=args.description
            ),
            timeout=args.timeout,
        )
    except TimeoutError:
        outcome, found = await _after_timeout(api_key, rest_url, agent_name)
        raise RuntimeError(
            describe_registration_timeout(
                outcome, agent_name=agent_name, agent_id=found, timeout=args.timeout
            )
        ) from None
    logger.info("registered agent %s", agent_id)
    try:
        write_agent_id(workspace, agent_id)
        inject_agent_key(name=args.name, host=args.host, agent_key=agent_key)
    except Exception:
        logger.error(
            "registered agent %s but could not keep its key; delete that agent and retry with "
            "a new name (its one-time key cannot be retrieved)",
            agent_id,
        )
        raise
    return agent_id


def _ensure_sandbox(args: argparse.Namespace) -> None:
    if not args.create:
        return
    if sandbox_exists(args.name):
        logger.info("sandbox %s exists; not creating it", args.name)
        return
    logger.info("creating sandbox %s", args.name)
    create_sandbox(name=args.name, kit=args.kit, workspace=args.workspace)


async def run(args: argparse.Namespace) -> str:
    """The provision flow for parsed ``args``; the agent id."""
    settings = ProvisionSettings()
    api_key = args.api_key or settings.band_api_key_user
    if not api_key:
        raise ValueError(
            "A register_only-scoped user API key is required. "
            "Provide --api-key or set BAND_API_KEY_USER."
        )
    rest_url = args.rest_url or settings.band_rest_url or DEFAULT_REST_URL
    if args.create and not args.kit:
        raise ValueError("--kit is required unless --no-create is passed.")
    agent_id = await _ensure_registered(args, api_key=api_key, rest_url=rest_url)
    _ensure_sandbox(args)
    return agent_id


def main() -> None:
    """``band-kit``: exit 0 with the agent id on stdout, or 1 with the error on stderr."""
    args = build_parser().parse_args()
    run_script(run(args), name="band-kit", logger=logger, verbose=args.verbose)


if __name__ == "__main__":
    main()
