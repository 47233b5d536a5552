"""Choosing an ACP session's model and reasoning effort from the options it advertises.

An ACP agent lists its session settings as config options (``session/new`` and
``session/load`` answers, ``config_option_update`` notifications); the model is the select
of category ``model`` and the effort the one of category ``thought_level`` (an option whose
id is ``model`` / ``thought_level`` counts as well). A wanted value is checked against what
the select offers before ``session/set_config_option`` is sent, so a typo is answered with
the choices instead of a broken session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from band.core.exceptions import BandConfigError

__all__ = [
    "EFFORT",
    "MODEL",
    "ACPConfigError",
    "ACPConfigRequest",
    "SessionConfigResolver",
    "current",
    "offered",
    "select",
]

MODEL = "model"
EFFORT = "thought_level"
SETTING_NAMES = {MODEL: "model", EFFORT: "reasoning effort"}


@dataclass(frozen=True)
class ACPConfigRequest:
    """What a ``resolve_session_config`` callback sees: the room, the session, its options."""

    room_id: str
    session_id: str
    config_options: tuple[Any, ...]


SessionConfigResolver: TypeAlias = Callable[
    [ACPConfigRequest], Awaitable[Mapping[str, str | bool | None] | None]
]
"""Returns ``{config option id: value}`` to set (None values are skipped), or None."""


class ACPConfigError(BandConfigError):
    """A session setting could not be applied; the message names what is offered."""


def select(options: Iterable[Any], category: str) -> Any | None:
    """The select option of ``category`` (``model`` / ``thought_level``), if offered."""
    selects = [o for o in options if getattr(o, "type", None) == "select"]
    by_category = [o for o in selects if getattr(o, "category", None) == category]
    return (by_category or [o for o in selects if getattr(o, "id", None) == category] or [None])[0]


def offered(option: Any) -> list[str]:
    """The values a select offers, groups flattened."""
    values: list[str] = []
    for entry in option.options:
        inner = getattr(entry, "options", None)
        values += [v.value for v in inner] if inner is not None else [entry.value]
    return values


def current(options: Iterable[Any], category: str) -> str | None:
    option = select(options, category)
    return None if option is None else str(option.current_value)


def check(options: Iterable[Any], category: str, value: str) -> Any:
    """The option to set ``value`` on; ACPConfigError naming the choices otherwise."""
    name = SETTING_NAMES.get(category, category)
    option = select(options, category)
    if option is None:
        raise ACPConfigError(f"this ACP agent's sessions offer no {name} setting")
    choices = offered(option)
    if value not in choices:
        listed = ", ".join(f"`{c}`" for c in choices) or "nothing"
        raise ACPConfigError(f"{name} `{value}` is not offered; the session offers {listed}")
    return option


async def apply(
    conn: Any, session_id: str, options: list[Any], wanted: Mapping[str, str | None]
) -> list[Any]:
    """Set each wanted ``{category: value}`` the session does not run yet; the options
    after (as the agent answers them)."""
    for category, value in wanted.items():
        if value is None or current(options, category) == value:
            continue
        option = check(options, category, value)
        options = await set_option(conn, session_id, options, option.id, value)
    return options


async def set_option(
    conn: Any, session_id: str, options: list[Any], config_id: str, value: str | bool
) -> list[Any]:
    from acp import RequestError

    try:
        answer = await conn.set_config_option(
            config_id=config_id, session_id=session_id, value=value
        )
    except RequestError as exc:
        raise ACPConfigError(f"the agent refused {config_id} = {value!r}: {exc}") from exc
    returned = getattr(answer, "config_options", None)
    return list(returned) if returned is not None else options


def describe(options: list[Any]) -> str:
    """The session's model (and effort) and what it offers, for ``/model``."""
    model = select(options, MODEL)
    if model is None:
        return "This ACP agent's sessions offer no model setting."
    text = f"Model in this room: `{model.current_value}`; offered: " + ", ".join(
        f"`{v}`" for v in offered(model)
    )
    effort = select(options, EFFORT)
    if effort is not None:
        text += f". Reasoning effort `{effort.current_value}` (of {', '.join(offered(effort))})"
    return text + "."
