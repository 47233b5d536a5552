"""Which platform feature flag gates which capability, and the hub room's contacts rule.

A capability the adapter asked for but the deployment does not serve is dropped before any
tool schema is built: an absent tool, not one that fails on first call.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from band.core.features import FILE_TRANSFER_FLAG, prune_by_feature_flags
from band.core.types import AdapterFeatures, Capability

__all__ = [
    "CAPABILITY_FEATURE_FLAGS",
    "FeatureFlag",
    "prune_unsupported",
    "with_hub_room_contacts",
]


class FeatureFlag(StrEnum):
    """Keys of ``AgentMe.feature_flags`` the SDK reads."""

    FILE_TRANSFER = FILE_TRANSFER_FLAG


CAPABILITY_FEATURE_FLAGS: dict[Capability, FeatureFlag] = {
    Capability.FILES: FeatureFlag.FILE_TRANSFER,
}


def prune_unsupported(
    features: AdapterFeatures, feature_flags: Mapping[str, Any] | None
) -> AdapterFeatures:
    """``features`` without the capabilities the deployment does not serve.

    ``feature_flags`` is the agent's ``/me``: a flag false or missing means not served;
    None (no answer) prunes nothing.
    """
    return prune_by_feature_flags(features, feature_flags)


def with_hub_room_contacts(
    capabilities: frozenset[Capability], *, is_hub_room: bool
) -> frozenset[Capability]:
    """The contacts hub room always has the contact tools its instructions name."""
    return capabilities | {Capability.CONTACTS} if is_hub_room else capabilities
