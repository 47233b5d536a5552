"""Bootstrap an agent's repository: clone it (or check the clone there), optionally index it.

How it works: docs/internals/sdk.md, "Bootstrapping an agent's repository".

Failures raise ``ValueError`` with git's own message.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess  # nosec B404 # runs git, uv or sbx with fixed argv, no shell
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import urlsplit

from filelock import FileLock, Timeout
from pydantic import BaseModel, ValidationError, field_validator

from band.docker._repo_context import CONTEXT_FILENAMES, file_hashes, write_context

__all__ = [
    "RepoConfig",
    "RepoInitMetadata",
    "RepoInitResult",
    "initialize_repo",
    "is_https_url",
    "is_ssh_url",
    "load_context_bundle",
    "parse_repo_config",
]

logger = logging.getLogger(__name__)

DEFAULT_STATE_DIR = Path("/workspace/state")
DEFAULT_CONTEXT_DIR = Path("/workspace/context")
DEFAULT_LOCK_TIMEOUT_S = 120.0
STRICT_HOST_KEYS_ENV = "GIT_SSH_STRICT_HOST_KEY_CHECKING"
_SCP_REMOTE = re.compile(r"^git@(?P<host>[^:]+):(?P<path>.+)$")


def is_ssh_url(url: str) -> bool:
    """Whether a git remote is spelled as SSH (``git@host:path`` or ``ssh://``)."""
    return url.startswith(("git@", "ssh://"))


def is_https_url(url: str) -> bool:
    """Whether a git remote is an ``https://`` URL."""
    return url.startswith("https://")


class RepoConfig(BaseModel):
    """The ``repo`` section: where the repository comes from and where it lives."""

    url: str | None = None
    path: str
    branch: str | None = None
    index: bool = False

    @field_validator("url")
    @classmethod
    def _remote(cls, value: str | None) -> str | None:
        url = (value or "").strip()
        if not url:
            return None
        if not (is_ssh_url(url) or is_https_url(url)):
            raise ValueError("repo.url must be SSH (git@... or ssh://...) or HTTPS (https://...)")
        return url

    @field_validator("path")
    @classmethod
    def _absolute(cls, value: str) -> str:
        path = value.strip()
        if not path:
            raise ValueError("repo.path must not be empty")
        # A container path: absolute by POSIX or Windows rules, whatever the host is.
        if not (PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()):
            raise ValueError("repo.path must be an absolute path")
        return path

    @field_validator("branch")
    @classmethod
    def _branch(cls, value: str | None) -> str | None:
        return (value or "").strip() or None


class RepoInitMetadata(BaseModel):
    """What the last run saw, kept in ``state_dir`` to decide whether to re-index."""

    repo_url: str = ""
    repo_path: str
    branch: str | None = None
    head_commit: str
    index_enabled: bool
    indexed_at: str | None = None
    context_files: dict[str, str]


class RepoInitResult(BaseModel):
    """What ``initialize_repo`` did."""

    enabled: bool = False
    repo_path: str | None = None
    cloned: bool = False
    indexed: bool = False
    context_bundle: str = ""


def parse_repo_config(config: dict[str, Any]) -> RepoConfig | None:
    """The validated ``repo`` section of ``config``, or None when it has none."""
    section = config.get("repo")
    if section is None:
        return None
    if not isinstance(section, dict):
        raise ValueError("repo must be a mapping when provided")
    try:
        return RepoConfig.model_validate(section)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"Invalid repo configuration: {problems}") from exc


def initialize_repo(
    config: dict[str, Any],
    *,
    agent_key: str,
    state_dir: Path = DEFAULT_STATE_DIR,
    context_dir: Path = DEFAULT_CONTEXT_DIR,
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
) -> RepoInitResult:
    """Clone or check the configured repository, then index it when asked (see module doc)."""
    repo = parse_repo_config(config)
    if repo is None:
        return RepoInitResult()
    checkout = Path(repo.path)
    state_dir.mkdir(parents=True, exist_ok=True)
    context_dir.mkdir(parents=True, exist_ok=True)
    meta_path = state_dir / "repo_init_meta.json"
    logger.info(
        "repo init agent=%s url=%s path=%s branch=%s index=%s",
        agent_key,
        repo.url or "(local)",
        repo.path,
        repo.branch or "default",
        repo.index,
    )
    with _exclusive(state_dir / "repo_init.lock", timeout_s=lock_timeout_s):
        if repo.url:
            _check_ssh_access(repo.url)
            cloned = _clone_or_check(repo, checkout)
        else:
            cloned = False
            _require_directory(checkout)
            _switch_branch(repo, checkout)
        head = _git(checkout, "rev-parse", "HEAD").strip()
        indexed = repo.index and _stale(repo, _read_metadata(meta_path), head, context_dir)
        if indexed:
            write_context(checkout, context_dir)
            logger.info("repo context written to %s", context_dir)
        stamp = datetime.now(UTC).isoformat().replace("+00:00", "Z") if repo.index else None
        metadata = RepoInitMetadata(
            repo_url=repo.url or "",
            repo_path=repo.path,
            branch=repo.branch,
            head_commit=head,
            index_enabled=repo.index,
            indexed_at=stamp,
            context_files=file_hashes(context_dir),
        )
        _replace_text(meta_path, json.dumps(metadata.model_dump(), indent=2, sort_keys=True))
    return RepoInitResult(
        enabled=True,
        repo_path=repo.path,
        cloned=cloned,
        indexed=indexed,
        context_bundle=load_context_bundle(context_dir),
    )


def load_context_bundle(context_dir: Path = DEFAULT_CONTEXT_DIR) -> str:
    """The context documents as one ``## Repository Context`` section ("" when none)."""
    parts = []
    for name in CONTEXT_FILENAMES:
        path = context_dir / name
        text = path.read_text(encoding="utf-8").strip() if path.exists() else ""
        if text:
            parts.append(f"### {name}\n\n{text}")
    if not parts:
        return ""
    return (
        "## Repository Context\n\nContext generated from the working repository:\n\n"
        + "\n\n".join(parts)
    )


def _require_directory(checkout: Path) -> None:
    if not checkout.exists():
        raise ValueError(
            f"repo.path does not exist: {checkout} (without repo.url the directory must exist)"
        )
    if not checkout.is_dir():
        raise ValueError(f"repo.path exists but is not a directory: {checkout}")


def _clone_or_check(repo: RepoConfig, checkout: Path) -> bool:
    """Clone into a missing or empty ``checkout`` (True), or check the one there (False)."""
    if checkout.exists() and not checkout.is_dir():
        raise ValueError(f"repo.path exists but is not a directory: {checkout}")
    if checkout.is_dir() and (checkout / ".git").exists():
        _check_origin(repo, checkout)
        _switch_branch(repo, checkout)
        logger.info("repository already at %s; not cloning", checkout)
        return False
    if checkout.is_dir() and any(checkout.iterdir()):
        raise ValueError(
            f"repo.path is non-empty and not a git repository: {checkout}; "
            "use an empty directory or an existing clone"
        )
    checkout.parent.mkdir(parents=True, exist_ok=True)
    if repo.url is None:
        raise ValueError("repo.url is required when cloning a repository")
    branch = ["--branch", repo.branch, "--single-branch"] if repo.branch else []
    _git(None, "clone", *branch, repo.url, str(checkout))
    logger.info("cloned %s into %s", repo.url, checkout)
    return True


def _switch_branch(repo: RepoConfig, checkout: Path) -> None:
    if repo.branch and _git(checkout, "rev-parse", "--abbrev-ref", "HEAD").strip() != repo.branch:
        _git(checkout, "checkout", repo.branch)
        logger.info("checked out %s in %s", repo.branch, checkout)


def _check_origin(repo: RepoConfig, checkout: Path) -> None:
    try:
        # As configured (before any insteadOf rewrite): the URL the agent config names.
        origin = _git(checkout, "config", "--get", "remote.origin.url").strip()
    except ValueError:
        logger.warning("no origin remote in %s; remote not checked", checkout)
        return
    if repo.url and _same_repository_key(origin) != _same_repository_key(repo.url):
        raise ValueError(
            "Existing repository remote does not match repo.url: "
            f"existing={origin}, configured={repo.url}"
        )


def _host_and_path(url: str) -> tuple[str, str] | None:
    scp = _SCP_REMOTE.match(url)
    if scp:
        return scp["host"], scp["path"]
    if is_https_url(url) or url.startswith("ssh://"):
        parts = urlsplit(url)
        path = parts.path.strip("/")
        if parts.hostname and path:
            return parts.hostname, path
    return None


def _same_repository_key(url: str) -> str:
    """``host/owner/name`` in lower case without ``.git``: one key per repository."""
    found = _host_and_path(url)
    if found is None:
        return url.rstrip("/")
    host, path = found
    return f"{host.lower()}/{path.lower().removesuffix('.git')}"


def _check_ssh_access(url: str) -> None:
    if not is_ssh_url(url):
        return
    ssh = Path.home() / ".ssh"
    if not ssh.is_dir():
        raise ValueError(f"SSH repo URL configured but {ssh} is missing; mount ~/.ssh")
    if not os.access(ssh, os.R_OK):
        raise ValueError(f"SSH repo URL configured but {ssh} is not readable")
    if os.environ.get(STRICT_HOST_KEYS_ENV, "true").strip().lower() in {"0", "false", "no"}:
        return
    found = _host_and_path(url)
    if found is None:
        return
    host, known = found[0], ssh / "known_hosts"
    if not known.exists():
        raise ValueError("SSH strict host key checking is on but ~/.ssh/known_hosts is missing")
    try:
        lookup = subprocess.run(  # nosec B603 B607 # fixed argv, no shell
            ["ssh-keygen", "-F", host, "-f", str(known)],
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError as exc:
        raise ValueError("ssh-keygen is needed to verify SSH hosts but was not found") from exc
    if lookup.returncode != 0:
        raise ValueError(
            f"Host '{host}' not found in {known}; add it first "
            f"(ssh-keyscan -H {host} >> ~/.ssh/known_hosts)"
        )


def _stale(repo: RepoConfig, seen: RepoInitMetadata | None, head: str, context_dir: Path) -> bool:
    """Whether the context documents must be (re)written."""
    if seen is None:
        return True
    now = (repo.url or "", repo.path, repo.branch, head)
    if (seen.repo_url, seen.repo_path, seen.branch, seen.head_commit) != now:
        return True
    return not all((context_dir / name).exists() for name in CONTEXT_FILENAMES)


def _read_metadata(path: Path) -> RepoInitMetadata | None:
    if not path.exists():
        return None
    try:
        return RepoInitMetadata.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        logger.warning("ignoring unreadable repo init metadata at %s", path)
        return None


def _replace_text(path: Path, text: str) -> None:
    scratch = path.with_suffix(path.suffix + ".tmp")
    scratch.write_text(text + "\n", encoding="utf-8")
    scratch.replace(path)


@contextmanager
def _exclusive(path: Path, *, timeout_s: float) -> Iterator[None]:
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=timeout_s)
    except Timeout:
        raise ValueError(
            f"Timed out waiting for repo init lock at {path} after {timeout_s:.1f}s"
        ) from None
    try:
        yield
    finally:
        lock.release()


def _git(cwd: Path | None, *args: str) -> str:
    try:
        done = subprocess.run(  # nosec B603 B607 # fixed argv, no shell
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        )
    except subprocess.CalledProcessError as exc:
        said = (exc.stderr or "").strip() or (exc.stdout or "").strip() or "unknown git error"
        raise ValueError(f"Git command failed (git {' '.join(args)}): {said}") from exc
    return done.stdout
