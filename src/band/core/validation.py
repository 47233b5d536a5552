"""Cross-field rules of tool inputs, and how a refusal lists the accepted values."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["at_least_one_of", "listing"]


def listing(values: Iterable[str]) -> str:
    """The accepted values, comma-separated (``(none)`` when there are none)."""
    return ", ".join(values) or "(none)"


def _either(names: list[str]) -> str:
    if len(names) <= 2:
        return " or ".join(names)
    return f"{', '.join(names[:-1])}, or {names[-1]}"


def at_least_one_of(**fields: object) -> None:
    """Raise ``ValueError`` when every keyword is ``None`` (``TypeError`` when none is given)."""
    if not fields:
        raise TypeError("at_least_one_of() needs at least one keyword argument")
    if all(value is None for value in fields.values()):
        raise ValueError(f"At least one of {_either(list(fields))} must be set")
