"""The configuration convention every adapter follows.

``XAdapter(config: XAdapterConfig | None = None, *, history_converter=..., additional_tools=...,
<live objects>=..., **features)``: the config holds what a host could write down (models,
prompts, timeouts, modes) and loads from YAML or JSON with ``model_validate``; clients,
graphs and callbacks stay keyword arguments of the adapter.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["BaseAdapterConfig", "EnvAdapterConfig"]


class BaseAdapterConfig(BaseModel):
    """An adapter config: immutable, and an unknown field is an error rather than lost."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class EnvAdapterConfig(BaseAdapterConfig, BaseSettings):
    """A config whose fields may also come from ``<env_prefix><FIELD>`` variables.

    An explicit value wins over the environment; names are case-insensitive and an empty
    variable counts as unset.
    """

    model_config: ClassVar[SettingsConfigDict] = SettingsConfigDict(
        frozen=True, extra="forbid", case_sensitive=False, env_ignore_empty=True
    )
