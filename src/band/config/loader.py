"""``load_agent_config``: an agent's id and key from ``agent_config.yaml``.

Keyed form ``{key: {agent_id, api_key}}`` (several agents in one file); when the key is
absent and the file has a top-level ``agent_id``, the whole file is the agent (flat form, as
container runners write it; other keys are ignored).
"""

from __future__ import annotations

import logging
from pathlib import Path

import yaml

__all__ = ["get_config_path", "load_agent_config"]

logger = logging.getLogger(__name__)


def get_config_path() -> Path:
    """``agent_config.yaml`` in the current working directory."""
    return Path.cwd() / "agent_config.yaml"


def load_agent_config(agent_key: str, *, config_path: str | Path | None = None) -> tuple[str, str]:
    """``(agent_id, api_key)`` for ``agent_key``.

    Raises FileNotFoundError (no file), ValueError (no such agent, or a field missing or
    empty) and RuntimeError (unreadable YAML).
    """
    path = Path(config_path) if config_path is not None else get_config_path()
    logger.debug("Loading config from: %s", path)
    if not path.is_file():
        raise FileNotFoundError(
            f"Config file not found at {path}. Copy agent_config.yaml.example to "
            "agent_config.yaml and configure your agents."
        )
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise TypeError(f"expected a mapping at the top of {path}")
        entry = data.get(agent_key)
        if not entry and "agent_id" in data:
            entry = data
        if not entry:
            raise ValueError(
                f"Agent '{agent_key}' not found in {path}. Please add the agent configuration."
            )
        if not isinstance(entry, dict):
            raise TypeError(f"agent '{agent_key}' must be a mapping")
        missing = [k for k in ("agent_id", "api_key") if not entry.get(k)]
        if missing:
            raise ValueError(
                f"Missing required fields for agent '{agent_key}': {', '.join(missing)}. "
                f"Please create a remote agent on the platform and add the credentials to {path}"
            )
        return str(entry["agent_id"]), str(entry["api_key"])
    except ValueError:
        raise
    except Exception as exc:
        raise RuntimeError(f"Error loading agent config: {exc}") from exc
