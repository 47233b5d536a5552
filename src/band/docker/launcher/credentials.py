"""The agent's keys: from the environment, gaps filled from an opt-in workspace file.

A plaintext secrets file is read only when ``band.yaml`` selects ``workspace-env-file`` and
acknowledges that the keys then sit in the workspace and the sandbox VM. Before any value is
used the file must pass every guard of ``GUARDS``, in order: no symlink on its way, a regular
file, owner-only permissions, ignored by Git and never tracked, only documented names. Values
already in the environment win. Under ``proxy-managed`` custody there is no file and the Band
key in the VM must be the sentinel the proxy swaps. No value is ever logged.
"""

from __future__ import annotations

import hmac
import logging
import os
import stat
import subprocess  # nosec B404 # runs git, uv or sbx with fixed argv, no shell
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path

from dotenv import dotenv_values

from band.credentials import PROXY_MANAGED_API_KEY
from band.docker.launcher.config import (
    CredentialSource,
    CredentialsSection,
    LauncherEnv,
    WorkspaceConfig,
)
from band.docker.launcher.errors import LaunchError
from band.docker.launcher.paths import resolve_inside

__all__ = [
    "GUARDS",
    "CredentialName",
    "SecretsFile",
    "defines_only_documented_names",
    "guarded_secrets_file",
    "has_owner_only_permissions",
    "is_a_file",
    "is_gitignored_and_never_tracked",
    "load_file_credentials",
    "missing_from_environment",
    "never_traverses_a_symlink",
    "require_explicit_opt_in",
    "require_gitignored",
    "require_gitignored_before_init",
    "require_never_tracked",
    "require_sentinel_under_proxy_managed",
    "resolve_credentials",
    "run_git",
]

logger = logging.getLogger(__name__)

PHASE = "credentials"
NOT_A_REPOSITORY = "not a git repository"


class CredentialName(StrEnum):
    """The names a secrets file may define (any other name fails the launch)."""

    BAND_API_KEY = "BAND_API_KEY"
    OPENAI_API_KEY = "OPENAI_API_KEY"
    ANTHROPIC_API_KEY = "ANTHROPIC_API_KEY"
    COPILOT_GITHUB_TOKEN = "COPILOT_GITHUB_TOKEN"  # nosec B105 # a variable name, not a secret
    GH_TOKEN = "GH_TOKEN"  # nosec B105 # a variable name, not a secret
    GITHUB_TOKEN = "GITHUB_TOKEN"  # nosec B105 # a variable name, not a secret


@dataclass
class SecretsFile:
    """The configured secrets file: as written, resolved, and the workspace it is in."""

    raw_path: Path
    path: Path
    workspace: Path

    @classmethod
    def locate(cls, workspace: Path, configured: str) -> SecretsFile:
        """Resolve ``configured`` inside ``workspace`` (leaving it is a ``LaunchError``)."""
        resolved = resolve_inside(workspace, configured, name="credentials file", phase=PHASE)
        given = Path(configured)
        return cls(given if given.is_absolute() else workspace / given, resolved, workspace)

    @cached_property
    def values(self) -> dict[str, str]:
        """The file's ``NAME=value`` pairs (dotenv syntax; nothing is executed)."""
        return {k: v for k, v in dotenv_values(self.path).items() if v is not None}


def never_traverses_a_symlink(secrets: SecretsFile) -> None:
    for step in (secrets.raw_path, *secrets.raw_path.parents):
        if step == secrets.workspace:
            return
        if step.is_symlink():
            raise LaunchError(PHASE, f"credentials file path must not traverse a symlink: {step}")


def is_a_file(secrets: SecretsFile) -> None:
    if not secrets.path.is_file():
        raise LaunchError(PHASE, f"credentials file not found: {secrets.path}")


def has_owner_only_permissions(secrets: SecretsFile) -> None:
    mode = stat.S_IMODE(secrets.path.stat().st_mode)
    if mode & 0o077:
        raise LaunchError(
            PHASE, f"credentials file must be owner-only (e.g. 600), got {mode:o}: {secrets.path}"
        )


def run_git(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``git -C workspace args`` with the workspace trusted (a bind mount of another owner)
    and untranslated messages (some verdicts are told apart only by their text)."""
    command = ["git", "-c", f"safe.directory={workspace}", "-C", str(workspace), *args]
    return subprocess.run(  # nosec B603 # fixed argv, no shell
        command, capture_output=True, text=True, check=False, env={**os.environ, "LC_ALL": "C"}
    )


def _git_said(done: subprocess.CompletedProcess[str]) -> str:
    return (done.stderr or "").strip()


def require_never_tracked(secrets: SecretsFile) -> None:
    tracked = run_git(secrets.workspace, "ls-files", "--error-unmatch", str(secrets.path))
    if tracked.returncode == 0:
        raise LaunchError(
            PHASE, f"credentials file is tracked by Git — never commit it: {secrets.path}"
        )
    if tracked.returncode != 1:
        raise LaunchError(
            PHASE,
            f"git could not determine the credentials file's tracked state: {_git_said(tracked)}",
        )


def require_gitignored(secrets: SecretsFile, *git_options: str) -> None:
    ignored = run_git(secrets.workspace, *git_options, "check-ignore", "-q", str(secrets.path))
    if ignored.returncode == 1:
        raise LaunchError(PHASE, f"credentials file must be gitignored: {secrets.path}")
    if ignored.returncode != 0:
        raise LaunchError(
            PHASE,
            f"git could not determine the credentials file's ignore state: {_git_said(ignored)}",
        )


def require_gitignored_before_init(secrets: SecretsFile) -> None:
    """Outside a repository the ignore rule must exist already (a later ``git init`` and
    ``git add .`` would commit the file): checked through a scratch repository elsewhere."""
    with tempfile.TemporaryDirectory(prefix="band-launcher-git-") as scratch:
        repo = Path(scratch) / "repo"
        made = run_git(secrets.workspace, "init", "-q", str(repo))
        if made.returncode != 0:
            raise LaunchError(
                PHASE, f"git could not evaluate the workspace ignore rules: {_git_said(made)}"
            )
        require_gitignored(
            secrets, "--git-dir", str(repo / ".git"), "--work-tree", str(secrets.workspace)
        )


def is_gitignored_and_never_tracked(secrets: SecretsFile) -> None:
    """Inside a repository: ignored and untracked. Outside one: ignored already. Git unable
    to say either way fails the launch."""
    inside = run_git(secrets.workspace, "rev-parse", "--is-inside-work-tree")
    if inside.returncode == 0 and inside.stdout.strip() == "true":
        require_never_tracked(secrets)
        require_gitignored(secrets)
    elif NOT_A_REPOSITORY in _git_said(inside).lower():
        require_gitignored_before_init(secrets)
    else:
        said = _git_said(inside) or inside.stdout.strip() or f"exit {inside.returncode}"
        raise LaunchError(
            PHASE, f"git could not determine whether the workspace is a repository: {said}"
        )


def defines_only_documented_names(secrets: SecretsFile) -> None:
    unknown = sorted(set(secrets.values) - {name.value for name in CredentialName})
    if unknown:
        raise LaunchError(
            PHASE, "credentials file defines undocumented names: " + ", ".join(unknown)
        )


# The policy, in the order it is enforced (containment is SecretsFile.locate's).
GUARDS: tuple[Callable[[SecretsFile], None], ...] = (
    never_traverses_a_symlink,
    is_a_file,
    has_owner_only_permissions,
    is_gitignored_and_never_tracked,
    defines_only_documented_names,
)


def require_explicit_opt_in(section: CredentialsSection) -> None:
    if not section.acknowledge_plaintext_in_sandbox:
        raise LaunchError(
            PHASE,
            "credentials.acknowledgePlaintextInSandbox: true is required — the workspace env "
            "file places plaintext keys in both the host workspace and the sandbox VM",
        )


def guarded_secrets_file(workspace: Path, configured: str) -> SecretsFile:
    """The secrets file, once every guard passed (an unreadable file is a ``LaunchError``)."""
    secrets = SecretsFile.locate(workspace, configured)
    for guard in GUARDS:
        try:
            guard(secrets)
        except OSError as exc:
            raise LaunchError(PHASE, f"credentials file is not readable: {exc}") from exc
    return secrets


def missing_from_environment(secrets: SecretsFile, env: LauncherEnv) -> dict[str, str]:
    """The file's values for names the environment leaves empty."""
    present = env.model_dump()
    return {name: value for name, value in secrets.values.items() if not present.get(name.lower())}


def load_file_credentials(
    config: WorkspaceConfig, env: LauncherEnv, workspace: Path
) -> dict[str, str]:
    """The documented credentials the workspace file adds ({} unless it is selected)."""
    section = config.credentials
    if section is None or section.source is not CredentialSource.WORKSPACE_ENV_FILE:
        return {}
    require_explicit_opt_in(section)
    logger.warning(
        "credentials.source 'workspace-env-file' keeps plaintext keys in the workspace and the "
        "sandbox VM; 'proxy-managed' keeps the real keys out of the VM"
    )
    if section.path is None:
        raise LaunchError(PHASE, "credentials.path is required for the workspace env file")
    found = missing_from_environment(guarded_secrets_file(workspace, section.path), env)
    logger.info("loaded %d credential value(s) from the workspace env file", len(found))
    return found


def resolve_credentials(
    config: WorkspaceConfig, env: LauncherEnv, workspace: Path
) -> dict[str, str]:
    """Each documented credential under its canonical (upper-case) name: environment first,
    then the opt-in file."""
    from_file = load_file_credentials(config, env, workspace)
    from_env = env.model_dump()
    resolved = {
        name.value: value
        for name in CredentialName
        if (value := from_env.get(name.lower()) or from_file.get(name.value))
    }
    require_sentinel_under_proxy_managed(config, resolved)
    return resolved


def require_sentinel_under_proxy_managed(
    config: WorkspaceConfig, credentials: dict[str, str]
) -> None:
    """Under ``proxy-managed`` custody, a Band key in the VM must be the sentinel: the real
    one stays on the host (``sbx secret set-custom``) and the proxy supplies it on the wire."""
    section = config.credentials
    if section is None or section.source is not CredentialSource.PROXY_MANAGED:
        return
    key = credentials.get("BAND_API_KEY")
    # Compared in constant time, as every key is (the sentinel is public; the key is not).
    if key and not hmac.compare_digest(key.encode(), PROXY_MANAGED_API_KEY.encode()):
        raise LaunchError(
            PHASE,
            f"proxy-managed custody requires BAND_API_KEY to be the {PROXY_MANAGED_API_KEY!r} "
            "sentinel, not a real key — the real key must stay on the host (provision it with "
            "`sbx secret set-custom`).",
        )
