"""Narrowing tool schemas by an adapter's features, and scrubbing schemas for picky providers.

``filter_tool_schemas`` applies ``include_categories``, then ``include_tools``, then
``exclude_tools`` (each narrows the last; unknown names are logged).
``sanitize_tool_schema`` drops JSON-Schema keywords some providers refuse (numeric bounds,
``additionalProperties``), never a property that happens to carry such a name, and spells a
single-value ``const`` as ``enum``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from band.core.types import AdapterFeatures

__all__ = ["filter_tool_schemas", "sanitize_tool_schema"]

logger = logging.getLogger(__name__)
T = TypeVar("T")

_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
# Keywords whose keys are property names, not keywords.
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def sanitize_tool_schema(
    schema: Any, *, drop_numeric_bounds: bool = False, drop_additional_properties: bool = False
) -> Any:
    """A scrubbed copy of ``schema`` (the input is untouched)."""
    drop = set(_BOUNDS) if drop_numeric_bounds else set()
    if drop_additional_properties:
        drop.add("additionalProperties")
    return _scrub(schema, frozenset(drop))


def _scrub(node: Any, drop: frozenset[str]) -> Any:
    if isinstance(node, list):
        return [_scrub(item, drop) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in drop:
            continue
        if key in _NAMED and isinstance(value, dict):
            out[key] = {name: _scrub(sub, drop) for name, sub in value.items()}
        elif key == "const":
            out["enum"] = [value]
        else:
            out[key] = _scrub(value, drop)
    return out


def _warn_unknown(option: str, wanted: Iterable[str], known: set[str]) -> None:
    unknown = set(wanted) - known
    if unknown:
        logger.warning("%s contains unknown names: %s", option, ", ".join(sorted(unknown)))


def filter_tool_schemas(
    schemas: list[T],
    features: AdapterFeatures,
    *,
    get_name: Callable[[T], str],
    get_category: Callable[[T], str | None] | None = None,
) -> list[T]:
    """The schemas ``features`` keeps, in their order."""
    known = {get_name(s) for s in schemas}
    kept = list(schemas)
    if features.include_categories is not None:
        if get_category is None:
            logger.warning(
                "include_categories is set but this adapter cannot filter by category "
                "(ignored): %s",
                features.include_categories,
            )
        else:
            categories = set(features.include_categories)
            kept = [s for s in kept if get_category(s) in categories]
    if features.include_tools is not None:
        _warn_unknown("include_tools", features.include_tools, known)
        wanted = set(features.include_tools)
        kept = [s for s in kept if get_name(s) in wanted]
    if features.exclude_tools is not None:
        _warn_unknown("exclude_tools", features.exclude_tools, known)
        unwanted = set(features.exclude_tools)
        kept = [s for s in kept if get_name(s) not in unwanted]
    return kept
