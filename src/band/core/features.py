"""Resolution of an adapter's feature keywords into ``AdapterFeatures``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, TypeVar

from .exceptions import BandConfigError
from .types import AdapterFeatures, Capability, Emit, FeatureKwargs

__all__ = ["FILE_TRANSFER_FLAG", "prune_by_feature_flags", "resolve_features"]

FILE_TRANSFER_FLAG = "ff_file_transfer"

E = TypeVar("E", bound=StrEnum)


def _coerce(enum: type[E], value: Any) -> frozenset[E]:
    if value is None:
        return frozenset()
    items = [value] if isinstance(value, str) else list(value)
    result: set[E] = set()
    for item in items:
        try:
            result.add(enum(item))
        except ValueError as exc:
            raise BandConfigError(f"invalid {enum.__name__} value: {exc}") from None
    return frozenset(result)


def _names(values: Iterable[StrEnum]) -> str:
    return ", ".join(sorted(v.value for v in values)) or "(none)"


def _tuple(value: Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return (value,) if isinstance(value, str) else tuple(value)


def resolve_features(
    adapter_name: str,
    supported_emit: frozenset[Emit],
    supported_capabilities: frozenset[Capability],
    kwargs: FeatureKwargs | Mapping[str, Any],
) -> AdapterFeatures:
    """Coerce and validate feature keywords against what an adapter supports.

    ``emit`` omitted means everything supported; ``capabilities`` omitted means none.
    Emit is checked before capabilities.
    """
    unknown = set(kwargs) - set(FeatureKwargs.__annotations__)
    if unknown:
        bad = sorted(unknown)[0]
        raise BandConfigError.with_suggestion(
            f"unknown feature keyword: {bad!r}.", bad, FeatureKwargs.__annotations__
        )
    raw_emit = kwargs.get("emit")
    emit = supported_emit if raw_emit is None else _coerce(Emit, raw_emit)
    capabilities = _coerce(Capability, kwargs.get("capabilities"))
    extra_emit = emit - supported_emit
    if extra_emit:
        raise BandConfigError(
            f"{adapter_name} does not support emit kind(s): {_names(extra_emit)}; "
            f"supported: {_names(supported_emit)}"
        )
    extra_caps = capabilities - supported_capabilities
    if extra_caps:
        raise BandConfigError(
            f"{adapter_name} does not support capability/-ies: {_names(extra_caps)}; "
            f"supported: {_names(supported_capabilities)}"
        )
    return AdapterFeatures(
        capabilities=capabilities,
        emit=frozenset(emit),
        include_tools=_tuple(kwargs.get("include_tools")),
        exclude_tools=_tuple(kwargs.get("exclude_tools")),
        include_categories=_tuple(kwargs.get("include_categories")),
    )


def prune_by_feature_flags(
    features: AdapterFeatures, feature_flags: Mapping[str, Any] | None
) -> AdapterFeatures:
    """Drop capabilities the deployment does not serve (FILES needs ``ff_file_transfer``)."""
    if feature_flags is None or Capability.FILES not in features.capabilities:
        return features
    if feature_flags.get(FILE_TRANSFER_FLAG):
        return features
    from dataclasses import replace

    return replace(features, capabilities=features.capabilities - {Capability.FILES})
