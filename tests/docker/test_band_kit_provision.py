"""``band-kit provision`` (band.docker.provision) against our platform on a loopback port, with
a recording stand-in for ``sbx`` on PATH: the agent registered with a person's key, its key
handed to ``sbx secret set-custom`` on stdin only, agent.id written into band.yaml with its
comments kept, the sandbox created; re-runs skip what is done and refuse what is ambiguous."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from band.client.rest import ApiError
from band.docker._provision_messages import (
    RegistrationTimeoutOutcome,
    describe_register_error,
    describe_registration_timeout,
)
from band.docker.provision import read_agent_id
from band.platform.errors import BandRestError
from conftest import LiveServer, make_user

FAKE_SBX = """#!{python}
import json, os, sys
state_path = os.environ["SBX_STATE"]
state = json.load(open(state_path))
argv = sys.argv[1:]
stdin = sys.stdin.read() if argv[:2] == ["secret", "set-custom"] else ""
state["calls"].append({{"argv": argv, "stdin": stdin}})
if argv[:2] == ["secret", "ls"]:
    print(json.dumps({{"custom_secrets": state["secrets"]}}))
elif argv[:2] == ["secret", "set-custom"]:
    state["secrets"].append({{"scope": argv[argv.index("--sandbox") + 1],
                            "targets": [argv[argv.index("--host") + 1]]}})
elif argv[:1] == ["ls"]:
    print(json.dumps({{"sandboxes": state["sandboxes"]}}))
elif argv[:1] == ["create"]:
    if state.get("fail_create"):
        print("daemon unreachable", file=sys.stderr); sys.exit(3)
    state["sandboxes"].append({{"name": argv[argv.index("--name") + 1]}})
json.dump(state, open(state_path, "w"))
"""

BAND_YAML = """\
# The echo agent's workspace (band-kit provision fills in agent.id)
schemaVersion: "1"
agent:
  id: replace-with-agent-id  # set by band-kit provision
  entrypoint: main.py
runtime:
  environmentPath: /home/agent/.venv
  statePath: /home/agent/state
  cachePath: /home/agent/cache
  logPath: /home/agent/logs
"""


@dataclass
class Kit:
    workspace: Path
    state: Path
    env: dict[str, str]

    def sbx(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.state.read_text())
        return result


@pytest.fixture
def kit(tmp_path: Path) -> Kit:
    bin_dir, workspace = tmp_path / "bin", tmp_path / "workspace"
    bin_dir.mkdir()
    workspace.mkdir()
    (workspace / "band.yaml").write_text(BAND_YAML)
    sbx = bin_dir / "sbx"
    sbx.write_text(FAKE_SBX.format(python=sys.executable))
    sbx.chmod(0o755)
    state = tmp_path / "sbx-state.json"
    state.write_text(json.dumps({"calls": [], "secrets": [], "sandboxes": []}))
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "SBX_STATE": str(state)}
    return Kit(workspace, state, env)


async def band_kit(kit: Kit, *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "band.docker.provision",
        "provision",
        *args,
        env=kit.env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def provision_args(kit: Kit, server: LiveServer, user_key: str, *more: str) -> list[str]:
    return [
        "--name",
        "echo-box",
        "--agent-name",
        "Echo Box",
        "--description",
        "An echo agent in a sandbox",
        "--workspace",
        str(kit.workspace),
        "--api-key",
        user_key,
        "--rest-url",
        server.url,
        "--kit",
        "band/python-kit:6",
        *more,
    ]


async def test_provision_registers_injects_writes_and_creates(
    live_server: LiveServer, kit: Kit
) -> None:
    _, user_key = await make_user(live_server.platform, "alice", "Alice")
    code, out, err = await band_kit(kit, *provision_args(kit, live_server, user_key))
    assert code == 0, err
    agent_id = out.strip()
    assert read_agent_id(kit.workspace) == agent_id
    text = (kit.workspace / "band.yaml").read_text()
    assert "# The echo agent's workspace" in text
    assert "# set by band-kit provision" in text
    calls = kit.sbx()["calls"]
    assert [c["argv"][:2] for c in calls] == [
        ["secret", "ls"],
        ["secret", "set-custom"],
        ["ls", "--json"],
        ["create", "--name"],
    ]
    inject = calls[1]
    assert inject["argv"] == [
        "secret", "set-custom", "--sandbox", "echo-box", "--host", "**.band.ai",
        "--env", "BAND_API_KEY", "--placeholder", "proxy-managed",
    ]  # fmt: skip
    agent_key = inject["stdin"]
    assert agent_key and agent_key not in out + err + json.dumps([c["argv"] for c in calls])
    assert calls[3]["argv"] == [
        "create", "--name", "echo-box", "band/python-kit:6", str(kit.workspace)
    ]  # fmt: skip
    # The key handed to the proxy is the agent's own: it can read its identity.
    from band.client.rest import AsyncRestClient

    client = AsyncRestClient(api_key=agent_key, base_url=live_server.url)
    try:
        me = await client.agent_api_identity.get_agent_me()
    finally:
        await client.aclose()
    assert me.data.id == agent_id

    # Re-run: nothing registered, injected or created again.
    code, out2, err2 = await band_kit(kit, *provision_args(kit, live_server, user_key))
    assert (code, out2.strip()) == (0, agent_id), err2
    again = kit.sbx()["calls"][4:]
    assert [c["argv"][:2] for c in again] == [["secret", "ls"], ["ls", "--json"]]


async def test_a_secret_without_a_local_agent_is_someone_elses_sandbox(
    live_server: LiveServer, kit: Kit
) -> None:
    _, user_key = await make_user(live_server.platform, "bob", "Bob")
    state = kit.sbx()
    state["secrets"] = [{"scope": "echo-box", "targets": ["**.band.ai"]}]
    kit.state.write_text(json.dumps(state))
    code, out, err = await band_kit(kit, *provision_args(kit, live_server, user_key))
    assert (code, out) == (1, "")
    assert "Error: a Band secret is already injected for sandbox name 'echo-box'" in err
    assert read_agent_id(kit.workspace) == "replace-with-agent-id"


async def test_a_failed_create_is_retried_without_registering_again(
    live_server: LiveServer, kit: Kit
) -> None:
    _, user_key = await make_user(live_server.platform, "carol", "Carol")
    state = kit.sbx()
    state["fail_create"] = True
    kit.state.write_text(json.dumps(state))
    code, _, err = await band_kit(kit, *provision_args(kit, live_server, user_key))
    assert code == 1
    assert "sbx create --name echo-box" in err and "daemon unreachable" in err
    agent_id = read_agent_id(kit.workspace)
    state = kit.sbx()
    state["fail_create"] = False
    kit.state.write_text(json.dumps(state))
    code, out, err = await band_kit(kit, *provision_args(kit, live_server, user_key))
    assert (code, out.strip()) == (0, agent_id), err
    assert kit.sbx()["sandboxes"] == [{"name": "echo-box"}]


async def test_refusals_before_any_request(live_server: LiveServer, kit: Kit) -> None:
    args = provision_args(kit, live_server, "unused")
    without_key = [a for a in args if a not in {"--api-key", "unused"}]
    code, _, err = await band_kit(kit, *without_key)
    assert code == 1 and "Provide --api-key or set BAND_API_KEY_USER" in err
    without_kit = args[: args.index("--kit")]
    code, _, err = await band_kit(kit, *without_kit)
    assert code == 1 and "--kit is required unless --no-create" in err
    assert kit.sbx()["calls"] == []


async def test_a_refused_registration_says_why(live_server: LiveServer, kit: Kit) -> None:
    _, user_key = await make_user(live_server.platform, "dan", "Dan")
    args = provision_args(kit, live_server, user_key, "--no-create")
    args[args.index("--description") + 1] = ""
    code, out, err = await band_kit(kit, *args)
    assert (code, out) == (1, "")
    assert err.startswith("Error: Failed to register agent")
    assert read_agent_id(kit.workspace) == "replace-with-agent-id"


def api_error(status: int, body: Any) -> ApiError:
    return ApiError(BandRestError(status, "x", "refused"), body)


def test_registration_messages() -> None:
    assert "agent cap" in describe_register_error(api_error(403, {}))
    taken = {"error": {"details": {"name": ["has already been taken"]}}}
    assert "already exists" in describe_register_error(api_error(422, taken))
    short = {"error": {"details": {"/agent/description": ["is too short"]}}}
    assert describe_register_error(api_error(422, short)) == (
        "Failed to register agent: /agent/description: is too short"
    )
    assert describe_register_error(api_error(500, {"error": {"message": "boom"}})) == (
        "Failed to register agent: boom"
    )
    absent = describe_registration_timeout(
        RegistrationTimeoutOutcome.CONFIRMED_ABSENT, agent_name="E", agent_id=None, timeout=5
    )
    assert absent.endswith("safe to retry.")
    present = describe_registration_timeout(
        RegistrationTimeoutOutcome.CONFIRMED_PRESENT, agent_name="E", agent_id="a1", timeout=5
    )
    assert "(id=a1) was registered anyway" in present


async def test_after_a_timeout_a_lookup_by_exact_name_tells_what_happened(
    live_server: LiveServer,
) -> None:
    from band.docker import provision

    _, user_key = await make_user(live_server.platform, "erin", "Erin")
    agent_id, _ = await provision.register_agent(
        api_key=user_key, rest_url=live_server.url, name="Echo Box", description="A sandboxed echo"
    )
    await provision.register_agent(
        api_key=user_key, rest_url=live_server.url, name="Echo Box 2", description="Another one"
    )
    found = await provision._after_timeout(user_key, live_server.url, "Echo Box")
    assert found == (RegistrationTimeoutOutcome.CONFIRMED_PRESENT, agent_id)
    missing = await provision._after_timeout(user_key, live_server.url, "Echo")
    assert missing == (RegistrationTimeoutOutcome.CONFIRMED_ABSENT, None)
    unknown = await provision._after_timeout("bk_wrong", live_server.url, "Echo Box")
    assert unknown == (RegistrationTimeoutOutcome.UNKNOWN, None)
