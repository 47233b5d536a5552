"""The environment-variable layer of adapter configs."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["env_defaults"]


def env_defaults(
    prefix: str,
    names: Iterable[str],
    given: Mapping[str, Any],
    *,
    aliases: Mapping[str, str] | None = None,
    split: tuple[str, ...] = (),
    structured: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``given`` plus ``<PREFIX><FIELD>`` environment values for fields not given.

    An explicit value always wins. ``aliases`` name a field's variable outright (tried
    first, then the prefixed name). ``split`` fields are argv lists split on whitespace;
    ``structured`` fields are JSON; the rest are left to the model's own coercion.
    """
    merged = dict(given)
    for name in names:
        if name in merged:
            continue
        candidates = [f"{prefix}{name.upper()}"]
        if aliases and name in aliases:
            candidates.insert(0, aliases[name])
        raw = next((os.environ[v] for v in candidates if os.environ.get(v, "").strip()), None)
        if raw is None:
            continue
        if name in split:
            merged[name] = raw.split()
        elif name in structured:
            try:
                merged[name] = json.loads(raw)
            except ValueError as exc:
                raise ValueError(f"{candidates[-1]} must be JSON: {exc}") from None
        else:
            merged[name] = raw
    return merged
