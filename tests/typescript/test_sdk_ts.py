"""The TypeScript packages' own checks, as suite tests: strict type-checking (the SDK, its
tests, and the seed page's ``agent.ts`` against the SDK's published types), eslint, and the
SDK's ``node:test`` suite (which runs against a real ``band serve``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .support import CHANNEL, ROOT, SDK, SEED_PROJECT, node_env, require_built

pytestmark = [pytest.mark.timeout(600)]


def run(argv: list[str], cwd: Path, timeout: float = 300, **env: str) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=node_env(**env), capture_output=True, text=True, timeout=timeout
    )
    output = (done.stdout + done.stderr).strip()
    assert done.returncode == 0, f"{' '.join(argv)} failed ({done.returncode}):\n{output[-6000:]}"
    return output


def tool(package: Path, name: str) -> str:
    return str(package / "node_modules" / ".bin" / name)


def test_contract_json_is_what_the_python_sdk_and_the_server_say() -> None:
    """``sdk-ts/src/generated/contract.json`` is current (tools, prompts, OpenAPI components)."""
    run([sys.executable, str(ROOT / "scripts" / "ts_contract.py"), "--check"], ROOT)


def test_sdk_type_checks_strictly() -> None:
    require_built(SDK / "node_modules")
    run([tool(SDK, "tsc"), "-p", "tsconfig.json", "--noEmit"], SDK)


def test_seed_agent_ts_type_checks_against_the_published_types() -> None:
    require_built(SDK / "dist" / "index.d.ts", SEED_PROJECT / "node_modules")
    run([tool(SDK, "tsc"), "-p", "tsconfig.json"], SEED_PROJECT)


def test_sdk_lints_clean() -> None:
    require_built(SDK / "node_modules")
    run([tool(SDK, "eslint"), "--max-warnings=0", "."], SDK)


def test_channel_type_checks_and_lints_clean() -> None:
    require_built(CHANNEL / "node_modules")
    run([tool(CHANNEL, "tsc"), "-p", "tsconfig.json", "--noEmit"], CHANNEL)
    run([tool(CHANNEL, "eslint"), "--max-warnings=0", "."], CHANNEL)


@pytest.mark.parametrize("package", [SDK, CHANNEL], ids=["sdk-ts", "openclaw-channel"])
def test_node_test_suite_passes(package: Path) -> None:
    """``npm test``: the package's node:test files (the SDK's against a real ``band serve``)."""
    require_built(package / "node_modules")
    band = str(Path(sys.executable).parent / "band")
    output = run(["npm", "test"], package, timeout=540, BAND_BIN=band)
    assert "fail 0" in output, output[-3000:]
