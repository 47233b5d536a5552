"""``band.yaml`` (validated strictly) and the environment variables the launcher reads.

``band.yaml`` says who the agent is and where its project and runtime state live; every
section forbids unknown keys, so a typo fails the launch. ``LauncherEnv`` is the whole
environment surface: documented overrides plus what the sandbox and image provide. Every value
is taken from the environment first, then ``band.yaml``, then (endpoints only) the defaults.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from band.docker.launcher.errors import LaunchError
from band.docker.repo_init import is_https_url, is_ssh_url

__all__ = [
    "AGENT_HOME",
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "PLACEHOLDER_AGENT_ID",
    "AgentSection",
    "BandSection",
    "CredentialSource",
    "CredentialsSection",
    "LauncherEnv",
    "ProjectSection",
    "RepoSection",
    "RuntimeSection",
    "WorkspaceConfig",
    "load_workspace_config",
    "require_url",
    "resolve_agent_id",
    "resolve_endpoints",
]

DEFAULT_CONFIG_FILENAME = "band.yaml"
DEFAULT_REST_URL = "https://app.band.ai"
DEFAULT_WS_URL = "wss://app.band.ai/api/v1/socket/websocket"
DEFAULT_SDK_HOME = "/opt/band"
# The starter kit's band.yaml ships this id: a workspace still holding it was never provisioned.
PLACEHOLDER_AGENT_ID = "replace-with-agent-id"
AGENT_HOME = "/home/agent"

_STRICT = ConfigDict(extra="forbid", populate_by_name=True)


class AgentSection(BaseModel):
    model_config = _STRICT

    id: str = ""
    entrypoint: str = "main.py"


class BandSection(BaseModel):
    model_config = _STRICT

    rest_url: str = Field(default="", alias="restUrl")
    ws_url: str = Field(default="", alias="wsUrl")


class ProjectSection(BaseModel):
    model_config = _STRICT

    path: str = "."


class RepoSection(BaseModel):
    """Clone the project from Git into the project path before the dependency sync."""

    model_config = _STRICT

    url: str
    branch: str | None = None
    index: bool = False

    @field_validator("url")
    @classmethod
    def url_must_be_supported(cls, value: str) -> str:
        """An SSH or HTTPS remote with a host and a path, and no credentials in it."""
        url = value.strip()
        if not (is_ssh_url(url) or is_https_url(url)):
            raise ValueError("must be an SSH (git@… / ssh://…) or https:// repository URL")
        if url.startswith("git@"):
            host, colon, path = url.removeprefix("git@").partition(":")
            if not (host and colon and path):
                raise ValueError("an SCP-form SSH remote must look like git@host:path")
            return url
        parts = urlsplit(url)
        _ = parts.port  # a bad port raises here
        if not parts.hostname or len(parts.path) <= 1:
            raise ValueError("must include a host and a repository path")
        # band.yaml is committed: a password, or any https user, is a leaked credential.
        if parts.password or (parts.scheme == "https" and parts.username):
            raise ValueError(
                "must not embed credentials; use the environment or the opt-in credential file"
            )
        return url


class CredentialSource(StrEnum):
    """Where the agent's keys come from: a plaintext workspace file, or a host-side proxy."""

    WORKSPACE_ENV_FILE = "workspace-env-file"
    PROXY_MANAGED = "proxy-managed"


class CredentialsSection(BaseModel):
    model_config = _STRICT

    source: CredentialSource
    path: str | None = None
    acknowledge_plaintext_in_sandbox: bool = Field(
        default=False, alias="acknowledgePlaintextInSandbox"
    )

    @model_validator(mode="after")
    def path_matches_source(self) -> CredentialsSection:
        if self.source is CredentialSource.WORKSPACE_ENV_FILE and not self.path:
            raise ValueError(f"path is required for source '{self.source}'")
        if self.source is CredentialSource.PROXY_MANAGED and self.path is not None:
            raise ValueError(f"path is not used with source '{self.source}'")
        return self


class RuntimeSection(BaseModel):
    model_config = _STRICT

    environment_path: str = Field(alias="environmentPath")
    state_path: str = Field(alias="statePath")
    cache_path: str = Field(alias="cachePath")
    log_path: str = Field(alias="logPath")


class WorkspaceConfig(BaseModel):
    """A workspace's ``band.yaml`` (schema version 1, the only one)."""

    model_config = _STRICT

    schema_version: Literal["1"] = Field(alias="schemaVersion")
    agent: AgentSection = AgentSection()
    band: BandSection = BandSection()
    project: ProjectSection = ProjectSection()
    repo: RepoSection | None = None
    credentials: CredentialsSection | None = None
    runtime: RuntimeSection


class LauncherEnv(BaseSettings):
    """The environment variables the launcher reads (the field name, any case)."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False)

    band_agent_id: str = ""
    band_api_key: str = ""
    band_rest_url: str = ""
    band_ws_url: str = ""
    openai_api_key: str = ""
    anthropic_api_key: str = ""
    copilot_github_token: str = ""
    gh_token: str = ""
    github_token: str = ""
    band_kit_config_path: str = ""  # where band.yaml is, when not in the workspace root
    workspace_dir: str = ""  # set by the sandbox: the mounted workspace
    band_sdk_uv: str = ""  # set by the image: its pinned uv
    band_sdk_home: str = DEFAULT_SDK_HOME


def load_workspace_config(config_path: Path) -> WorkspaceConfig:
    """Read and validate ``band.yaml``; any problem is a ``LaunchError`` of phase config."""
    if not config_path.is_file():
        raise LaunchError("config", f"workspace configuration not found: {config_path}")
    try:
        raw = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise LaunchError("config", f"invalid YAML in {config_path}: {exc}") from exc
    if not isinstance(raw, dict):
        raise LaunchError("config", f"{config_path} must contain a YAML mapping")
    try:
        return WorkspaceConfig.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise LaunchError("config", f"invalid {config_path}: {problems}") from exc


def require_url(value: str, *, scheme: str, name: str) -> str:
    """``value`` when it is a ``scheme://`` URL with a host (and a valid port, if any)."""
    try:
        parts = urlsplit(value)
        host, _ = parts.hostname, parts.port
    except ValueError as exc:
        raise LaunchError("config", f"{name} is not a valid URL: {value!r}") from exc
    if parts.scheme != scheme or not host:
        raise LaunchError("config", f"{name} must be a {scheme}:// URL with a host, got {value!r}")
    return value


def resolve_endpoints(config: WorkspaceConfig, env: LauncherEnv) -> tuple[str, str]:
    """The REST (https) and WebSocket (wss) URLs: environment, band.yaml, then the defaults."""
    rest = env.band_rest_url or config.band.rest_url or DEFAULT_REST_URL
    ws = env.band_ws_url or config.band.ws_url or DEFAULT_WS_URL
    return (
        require_url(rest, scheme="https", name="BAND_REST_URL"),
        require_url(ws, scheme="wss", name="BAND_WS_URL"),
    )


def resolve_agent_id(config: WorkspaceConfig, env: LauncherEnv) -> str:
    """The agent id (``BAND_AGENT_ID``, else ``agent.id``); never empty or the placeholder."""
    agent_id = env.band_agent_id or config.agent.id
    if not agent_id:
        raise LaunchError("config", "agent id missing: set agent.id in band.yaml or BAND_AGENT_ID")
    if agent_id == PLACEHOLDER_AGENT_ID:
        raise LaunchError(
            "config",
            f"agent id is still the starter kit placeholder ({agent_id!r}); run `band-kit "
            "provision` (or set agent.id/BAND_AGENT_ID to a real agent id) before launching",
        )
    return agent_id
