"""``ACPPresetAdapter``: an ``ACPClientAdapter`` preset for one agent CLI.

The Copilot, Cursor and OMP adapters take the same arguments and differ only in their config
class and what they make of it: ``prepared`` fills the default config and what it implies
(credentials into ``env``, say), ``preset_profile`` and ``preset_capabilities`` name the
agent's ACP extensions and the client capabilities it is offered.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, Generic, TypeVar, Unpack

from band.core.types import FeatureKwargs
from band.runtime.custom_tools import CustomToolDef
from band.workspaces import WorkspaceResolver

from .adapter import ACPClientAdapter
from .client import ACPClientProfile, PermissionResolver
from .config import ACPClientAdapterConfig
from .session_config import SessionConfigResolver

__all__ = ["ACPPresetAdapter"]

C = TypeVar("C", bound=ACPClientAdapterConfig)


class ACPPresetAdapter(ACPClientAdapter, Generic[C]):
    """The arguments every preset takes; the preset says how its config ``C`` is filled."""

    config: C

    def __init__(
        self,
        config: C | None = None,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        workspace_for_room: WorkspaceResolver | None = None,
        resolve_session_config: SessionConfigResolver | None = None,
        resolve_permission: PermissionResolver | None = None,
        spawn_process: Any = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            self.prepared(config),
            additional_tools=additional_tools,
            workspace_for_room=workspace_for_room,
            profile=self.preset_profile(),
            resolve_session_config=resolve_session_config,
            resolve_permission=resolve_permission,
            client_capabilities=self.preset_capabilities(),
            spawn_process=spawn_process,
            **features,
        )

    @abstractmethod
    def prepared(self, config: C | None) -> C:
        """The config to run with: the preset's default when None, with what it implies."""

    def preset_profile(self) -> ACPClientProfile | None:
        """The agent's ACP extensions (None: plain ACP)."""
        return None

    def preset_capabilities(self) -> Any:
        """The ``ClientCapabilities`` offered at ``initialize`` (None: the default)."""
        return None
