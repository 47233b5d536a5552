"""An ACP session's advertised settings (its config catalog) and setting them safely.

How it works: docs/internals/sdk.md, "ACP: session settings".

Imports without the ``acp`` extra: the setter passed in is what talks to the agent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from band.core.exceptions import BandConfigError
from band.core.validation import listing

__all__ = [
    "CONFIG_FAILURE_PREFIX",
    "SESSION_CONFIG_TIMEOUT_SECONDS",
    "ACPConfigError",
    "ACPConfigRequest",
    "ACPConfigUnreachableError",
    "SessionConfigResolver",
    "SessionConfigSelections",
    "SessionConfigSetter",
    "apply_session_config_selections",
    "find_select",
    "flatten_select_options",
    "refreshed_catalog",
    "select_ids",
    "select_values",
    "selects",
    "session_config_options",
]

SessionConfigOption: TypeAlias = Any
"""``acp.schema.SessionConfigOptionSelect`` or ``...Boolean`` (read by shape here)."""
SessionConfigSelections: TypeAlias = Mapping[str, str | None]
SessionConfigSetter: TypeAlias = Callable[[str, str, str], Awaitable[Any]]
"""``(session_id, option_id, value)``: sends ``session/set_config_option``, returns its answer."""
SessionConfigResolver: TypeAlias = Callable[
    ["ACPConfigRequest"], Awaitable[SessionConfigSelections | None]
]
"""Returns ``{config option id: value}`` to set (None values are skipped), or None."""

SESSION_CONFIG_TIMEOUT_SECONDS = 10.0
CONFIG_FAILURE_PREFIX = "ACP session configuration failed: "
RESOLVER_OPTION_ID = "resolver"


@dataclass(frozen=True)
class ACPConfigRequest:
    """What a ``resolve_session_config`` callback sees: the room, the session, its catalog."""

    room_id: str
    session_id: str
    config_options: tuple[SessionConfigOption, ...]


class ACPConfigError(BandConfigError, RuntimeError):
    """A wanted session setting could not be applied; the message says why (and what is
    offered). Also a ``RuntimeError``, as band-sdk's is."""

    def __init__(
        self, *, session_id: str, option_id: str, selected_value: str, message: str
    ) -> None:
        super().__init__(message)
        self.session_id = session_id
        self.option_id = option_id
        self.selected_value = selected_value


class ACPConfigUnreachableError(ACPConfigError):
    """No answer came to a setting (timeout or lost connection): the agent did not refuse it."""


def _is_select(option: Any) -> bool:
    return getattr(option, "type", None) == "select"


def flatten_select_options(options: Sequence[Any]) -> tuple[Any, ...]:
    """A select's offered entries with named groups opened up, in order."""
    flat: list[Any] = []
    for entry in options:
        inner = getattr(entry, "options", None)
        flat.extend(inner if inner is not None else [entry])
    return tuple(flat)


def select_values(option: Any) -> tuple[str, ...]:
    """The values a select offers (groups flattened)."""
    return tuple(str(entry.value) for entry in flatten_select_options(option.options))


def selects(options: Sequence[SessionConfigOption]) -> Iterator[Any]:
    """The select options of a catalog (booleans left out)."""
    return (option for option in options if _is_select(option))


def find_select(options: Sequence[SessionConfigOption], option_id: str) -> Any | None:
    """The select with id ``option_id``, or None."""
    return next((option for option in selects(options) if option.id == option_id), None)


def select_ids(options: Sequence[SessionConfigOption]) -> tuple[str, ...]:
    """The ids of a catalog's selects."""
    return tuple(str(option.id) for option in selects(options))


def session_config_options(response: object) -> tuple[SessionConfigOption, ...] | None:
    """An answer's whole catalog; None when it has none or an entry is no config option."""
    options = getattr(response, "config_options", None)
    if not isinstance(options, list):
        return None
    known = all(getattr(o, "type", None) in ("select", "boolean") for o in options)
    return tuple(options) if known and all(hasattr(o, "id") for o in options) else None


async def apply_session_config_selections(
    *,
    session_id: str,
    config_options: Sequence[SessionConfigOption],
    selections: SessionConfigSelections,
    set_option: SessionConfigSetter,
) -> tuple[SessionConfigOption, ...]:
    """Set each ``{option id: value}`` in order (None skipped); the catalog after them all.

    Each value must be a string the select offers in the catalog as it stands then. A value
    already current is sent anyway: only the agent's answer proves it is set.
    """

    def error(option_id: str, value: str, message: str) -> ACPConfigError:
        return ACPConfigError(
            session_id=session_id, option_id=option_id, selected_value=value, message=message
        )

    if not isinstance(selections, Mapping):
        raise error(RESOLVER_OPTION_ID, "", "the session config resolver must return a mapping")
    catalog = tuple(config_options)
    for option_id, value in selections.items():
        if value is None:
            continue
        if not isinstance(value, str):
            raise error(option_id, str(value), f'the value for "{option_id}" must be a string')
        option = find_select(catalog, option_id)
        if option is None:
            offered = listing(select_ids(catalog))
            raise error(option_id, value, f'no config option "{option_id}"; offered: {offered}')
        if value not in (values := select_values(option)):
            raise error(
                option_id, value, f'"{value}" is not offered for "{option_id}": {listing(values)}'
            )
        try:
            answer = await asyncio.wait_for(
                set_option(session_id, option_id, value), SESSION_CONFIG_TIMEOUT_SECONDS
            )
        except TimeoutError as exc:
            raise ACPConfigUnreachableError(
                session_id=session_id,
                option_id=option_id,
                selected_value=value,
                message=f'no answer setting "{option_id}" '
                f"within {SESSION_CONFIG_TIMEOUT_SECONDS:g} s",
            ) from exc
        except Exception as exc:
            refused = _is_answer(exc)
            kind = ACPConfigError if refused else ACPConfigUnreachableError
            raise kind(
                session_id=session_id, option_id=option_id, selected_value=value, message=str(exc)
            ) from exc
        catalog = refreshed_catalog(
            response=answer, session_id=session_id, option_id=option_id, selected_value=value
        )
    return catalog


def _is_answer(exc: Exception) -> bool:
    """An error the agent sent (a JSON-RPC error) or a malformed answer (validation)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"RequestError", "ValidationError"})


def refreshed_catalog(
    *, response: Any, session_id: str, option_id: str, selected_value: str
) -> tuple[SessionConfigOption, ...]:
    """The catalog a ``set_config_option`` answer carries, once it shows the value applied."""

    def error(message: str) -> ACPConfigError:
        return ACPConfigError(
            session_id=session_id,
            option_id=option_id,
            selected_value=selected_value,
            message=f'config option "{option_id}" {message}',
        )

    if response is None or not isinstance(getattr(response, "config_options", None), list):
        raise error("was answered without a refreshed catalog")
    catalog = session_config_options(response)
    if catalog is None:
        raise error("was answered with a malformed catalog")
    option = find_select(catalog, option_id)
    if option is None:
        raise error("is missing from the refreshed catalog")
    if option.current_value != selected_value:
        raise error(f'did not take the value "{selected_value}"')
    return catalog
